import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { subpaths } from "./scripts/subpaths.js";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

const ALL = ["src/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts", "examples/**/*.test.ts"];
// Test files that run without isolation (see the `shared` project below). test/host and test/mcp
// (28 files each) start real processes and servers but close them, so the setup file's checks hold
// for them too; sharing cut their CPU (user + sys of `vitest run`, 2 cores at load 24-32):
// test/host 73.2 -> 36.1 s (mean of 2 rounds each), test/mcp 165.8 -> 113.3 s, test/redteam
// (74 files; shuffled, seed 4646) 179.1 -> 100.3 s.
// test/tools (70 of its 74 files; its open-file limits are lowered in children only): all 74
// files 448.7 -> 396.3 s (1 round each, run side by side at load 20-29; shared shuffled, seed 4747).
const SHARED = [
  "src/**/*.test.ts",
  "test/adapters/**/*.test.ts",
  "test/options/**/*.test.ts",
  "test/spec-conformance/**/*.test.ts",
  "test/catalog/**/*.test.ts",
  "test/run/**/*.test.ts",
  "test/otel/**/*.test.ts",
  "test/architecture/**/*.test.ts",
  "test/host/**/*.test.ts",
  "test/mcp/**/*.test.ts",
  "test/redteam/**/*.test.ts",
  "test/tools/**/*.test.ts",
  "examples/**/*.test.ts",
  "bench/**/*.test.ts",
];

// Files under SHARED that still get a fresh process each (project `own-process`): their point is
// per-process state (a process-wide warning budget), or they time the library against itself in
// milliseconds, or bound the host's share of wall time (the two flood tests: refreshing, a blocked
// event loop), where a heap grown by earlier files adds collector pauses.
// test/tools: listing-huge-directory bounds the event loop's longest hold (2.0 s against 1.5 in a
// shared worker); git-protection-cache counts the listings of a process-wide scan cache (one more
// than it expects once other files ran); grep-engines-parent-ignores (ripgrep's control) and
// unreadable-directory (20 s timeout) failed shared once and passed alone: not diagnosed yet.
const OWN_PROCESS = [
  "test/otel/listener-warnings-bounded.test.ts",
  "test/tools/listing-huge-directory.test.ts",
  "test/tools/git-protection-cache.test.ts",
  "test/tools/grep-engines-parent-ignores.test.ts",
  "test/tools/unreadable-directory.test.ts",
  "src/registry/scale.test.ts",
  "test/redteam/list-changed-flood.test.ts",
  "test/redteam/notification-flood.test.ts",
];

export default defineConfig({
  resolve: {
    // Tests import the package by name, as users do; each subpath resolves to its source.
    alias: subpaths().map(({ specifier, source: file }) => ({
      find: new RegExp(`^${escapeRegExp(specifier)}$`),
      replacement: source(`./${file}`),
    })),
  },
  test: {
    testTimeout: 20_000,
    // Setup hooks build real fixtures (git histories, packed repositories, servers): seconds of
    // child processes, which a loaded 2-core machine stretches past vitest's 10 s default. What a
    // test asserts is bounded in the test itself, never by this.
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    pool: "forks",
    // Vitest's default on 2 cores is one worker, but most files wait on real processes (MCP
    // servers, git, bwrap, redis-server): two files at a time cut the wall time on such machines.
    // The whole suite passes this way at load 11-16 on 2 cores (checked before choosing it).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: SHARED,
          exclude: OWN_PROCESS,
          // A fresh process and module graph per file cost about 0.8 s of CPU each (a third of
          // a small file's time), measured on 28 files: 38.7 -> 16.1 CPU-s. These files test
          // in-process behaviour, so they share a worker's module graph; the setup file fails
          // any of them that leaves the environment, working directory or umask changed.
          isolate: false,
          setupFiles: ["./test/support/shared-worker-guard.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          // Every file the shared project does not take, with a fresh process and module graph each.
          include: ALL,
          exclude: SHARED,
        },
      },
      { extends: true, test: { name: "own-process", include: OWN_PROCESS } },
      {
        extends: true,
        test: {
          name: "types",
          // Type tests of the public API's inference (`expectTypeOf`); `npm run typecheck` covers
          // the rest (npm test compiles these there too, so its unit step leaves this project out).
          typecheck: {
            enabled: true,
            only: true,
            include: ["test/types/**/*.test-d.ts"],
            tsconfig: "./tsconfig.json",
            ignoreSourceErrors: true,
          },
        },
      },
    ],
  },
});
