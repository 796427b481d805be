/**
 * The package's subpath exports, read from package.json `exports` (the one list), each with the
 * source file that builds it. A subpath `./name` lives in `src/name/index.ts`, or in
 * `src/adapters/name/index.ts` for the provider adapters; the root `.` is `src/index.ts`.
 * tsup, vitest and the API check derive their entries from here; tsconfig.json maps the same
 * folders with a wildcard.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** One subpath export and where its source lives. */
export interface Subpath {
  /** The import specifier, e.g. `agent-tool-catalog/git`. */
  readonly specifier: string;
  /** The entry name under dist/, e.g. `git/index` (`index` for the root). */
  readonly entry: string;
  /** The source file, relative to the repository root, e.g. `src/git/index.ts`. */
  readonly source: string;
}

/** Every subpath export of package.json, root first. */
export function subpaths(): Subpath[] {
  const packageJson = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
    name: string;
    exports: Record<string, unknown>;
  };
  return Object.keys(packageJson.exports)
    .filter((subpath) => subpath !== "./package.json")
    .map((subpath) => {
      if (subpath === ".") return { specifier: packageJson.name, entry: "index", source: "src/index.ts" };
      const name = subpath.slice(2);
      const candidates = [`src/${name}/index.ts`, `src/adapters/${name}/index.ts`];
      const source = candidates.find((candidate) => existsSync(`${root}${candidate}`));
      if (source === undefined) throw new Error(`No source for subpath ${subpath}: expected one of ${candidates.join(", ")}.`);
      return { specifier: `${packageJson.name}/${name}`, entry: `${name}/index`, source };
    });
}
