// For a test's .mjs child process that loads a module format of the built package on purpose (the
// tests of both builds loaded at once, sharing locks, journals and brokers): the root and tools
// entries of dist/, as ESM by `import` or as CommonJS by `require`.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);

/** The built root (`core`) and tools (`tools`) entries in `format`: "esm" or "cjs". */
export async function loadBuild(format) {
  if (format === "esm") {
    return {
      core: await import(pathToFileURL(path.join(repo, "dist/index.js")).href),
      tools: await import(pathToFileURL(path.join(repo, "dist/tools/index.js")).href),
    };
  }
  if (format === "cjs")
    return { core: require(path.join(repo, "dist/index.cjs")), tools: require(path.join(repo, "dist/tools/index.cjs")) };
  throw new Error(`loadBuild: unknown format ${format}`);
}
