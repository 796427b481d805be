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
    // Vitest's default on 2 cores is one worker, but most files wait on real processes (MCP
    // servers, git, bwrap, redis-server): two files at a time cut the wall time on such machines.
    // The whole suite passes this way at load 11-16 on 2 cores (checked before choosing it).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
