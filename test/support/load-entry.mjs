// For a test's .mjs child process: imports a public entry of the package ("index", "tools/index",
// ...) from the copy the parent chose (test/support/child-entry.ts, passed as ATC_CHILD_FORMAT):
// dist/<entry>.js, or src/<entry>.ts (then the child runs under tsx). Without the variable: src.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The chosen copy: "dist" or "src". */
export const format = process.env.ATC_CHILD_FORMAT === "dist" ? "dist" : "src";

/** Imports the public entry `entry` (e.g. "tools/index") from the chosen copy. */
export function loadEntry(entry) {
  return import(pathToFileURL(path.join(repo, format === "dist" ? `dist/${entry}.js` : `src/${entry}.ts`)).href);
}
