/**
 * Which copy of the package a test's child process loads: the built dist/ when it is current, else
 * src/ through tsx. A child importing src/ under tsx costs about 1.7 s of CPU (tsx, then every
 * source module transformed) against about 0.5 s for the build; `npm test` builds before the unit
 * tests, so there the build is current. A developer who edited src/ and runs one test without
 * building still tests the edit: any file under src/ newer than the oldest built entry means src/.
 *
 * Only children that import public entries (the package by name, or `src/<subpath>/index.ts`)
 * can switch: one importing an internal module too would mix two copies of the classes.
 * `ATC_CHILD_FORMAT=src` (or `dist`) forces the choice.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { subpaths } from "../../scripts/subpaths.js";

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The copy a child loads. */
export type ChildFormat = "dist" | "src";

/** A tsconfig without `paths`: under tsx, `agent-tool-catalog/...` then resolves through package.json to dist/. */
const distTsconfig = path.join(repoRoot, "test/support/tsconfig.child-dist.json");

function newestUnder(directory: string): number {
  let newest = statSync(directory).mtimeMs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Why dist/ cannot be used, or undefined when it is current. */
function distStale(): string | undefined {
  const built = [...subpaths().map(({ entry }) => `dist/${entry}.js`), "dist/schema-check-thread.js"];
  const missing = built.find((file) => !existsSync(path.join(repoRoot, file)));
  if (missing !== undefined) return `${missing} is missing`;
  const oldestBuilt = Math.min(...built.map((file) => statSync(path.join(repoRoot, file)).mtimeMs));
  if (newestUnder(path.join(repoRoot, "src")) > oldestBuilt) return "a file under src/ is newer than the build";
  return undefined;
}

let chosen: ChildFormat | undefined;

/** dist when the build is current (or `ATC_CHILD_FORMAT=dist`), else src; says so once when it falls back to src. */
export function childFormat(): ChildFormat {
  if (chosen !== undefined) return chosen;
  const forced = process.env.ATC_CHILD_FORMAT;
  const why = forced === "dist" || forced === "src" ? undefined : distStale();
  chosen = forced === "dist" || forced === "src" ? forced : why === undefined ? "dist" : "src";
  if (why !== undefined)
    console.warn(`[child-entry] child processes load src/ through tsx (slower): ${why}; \`npm run build\` to use dist/.`);
  return chosen;
}

/** The file URL of a public entry (`index`, `tools/index`, `mcp/index`, ...) in the chosen copy. */
export function entryUrl(entry: string): string {
  const source = subpaths().find((subpath) => subpath.entry === entry)?.source;
  if (source === undefined) throw new Error(`No public entry ${entry}`);
  return pathToFileURL(path.join(repoRoot, childFormat() === "dist" ? `dist/${entry}.js` : source)).href;
}

/** How a child is started: its environment (default: this process's) and modules preloaded before the script. */
export interface NodeChildOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** `--import` modules (plain .mjs) loaded before the script, after tsx. */
  readonly imports?: readonly string[];
  /** Forces the copy (for a child whose test does not pass on the build yet: say why where it is used). */
  readonly format?: ChildFormat;
}

/**
 * Node's arguments and environment for running `script` (then `args`) as a child on the chosen copy.
 * A .ts script always runs under tsx (its own syntax), with the package's name mapped to src/ or
 * to dist/; a .mjs script (loading entries by test/support/load-entry.mjs) runs as plain node
 * on dist/. The child learns the choice from `ATC_CHILD_FORMAT`.
 */
export function nodeChild(
  script: string,
  args: readonly string[] = [],
  options: NodeChildOptions = {},
): { args: string[]; env: NodeJS.ProcessEnv } {
  const format = options.format ?? childFormat();
  const ts = script.endsWith(".ts");
  const loader = ts || format === "src" ? ["--import", "tsx"] : [];
  const imports = (options.imports ?? []).flatMap((module) => ["--import", module]);
  const tsconfig = ts && format === "dist" ? { TSX_TSCONFIG_PATH: distTsconfig } : {};
  return {
    args: [...loader, ...imports, script, ...args],
    env: { ...(options.env ?? process.env), ATC_CHILD_FORMAT: format, ...tsconfig },
  };
}

/** `spawn(node, ...)` of `script` on the chosen copy (see {@link nodeChild}); `options.env` is extended. */
export function spawnNode(script: string, args: readonly string[], options: SpawnOptions & NodeChildOptions = {}): ChildProcess {
  const { imports, format, ...spawnOptions } = options;
  const child = nodeChild(script, args, {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(imports === undefined ? {} : { imports }),
    ...(format === undefined ? {} : { format }),
  });
  return spawn(process.execPath, child.args, { ...spawnOptions, env: child.env });
}
