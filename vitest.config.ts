import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { subpaths } from "./scripts/subpaths.js";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

export default defineConfig({
  resolve: {
    // Tests import the package by name, as users do; each subpath resolves to its source.
    alias: subpaths().map(({ specifier, source: file }) => ({
      find: new RegExp(`^${escapeRegExp(specifier)}$`),
      replacement: source(`./${file}`),
    })),
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts", "examples/**/*.test.ts"],
    // Type tests of the public API's inference (`expectTypeOf`); `npm run typecheck` covers the rest.
    typecheck: { enabled: true, include: ["test/types/**/*.test-d.ts"], tsconfig: "./tsconfig.json", ignoreSourceErrors: true },
    testTimeout: 20_000,
    // Setup hooks build real fixtures (git histories, packed repositories, servers): seconds of
    // child processes, which a loaded 2-core machine stretches past vitest's 10 s default. What a
    // test asserts is bounded in the test itself, never by this.
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    pool: "forks",
    // Most files wait on real processes (MCP servers, git, bwrap, redis-server, timers of a minute):
    // measured alone at load ~1.5, bullmq-delivery took 45 s wall for 11 s of CPU, clock-skew 71 s
    // for 25 s, bash-run-budget-children 39 s for 14 s. With one file per core, a waiting file held
    // a core idle (stop 42: 1,054 s of wall for the unit tests on 2 cores). Two files per core keep
    // both cores busy. Checked on 2 cores: the whole suite passes this way at load ~7 (two suites
    // of two workers side by side, stop 42) and in `.ci/run` (stop 43).
    maxWorkers: Math.min(16, Math.max(4, availableParallelism() * 2)),
  },
});
