/**
 * Names the shared declaration chunks of dist/ as a build from src/ names them. Rolled up from the
 * typecheck's .d.ts files (tsup.config.ts, `ATC_DECLARATIONS`), a chunk takes its name from a
 * module called `x.d.ts`, so rollup writes `x.d-HASH.d.ts` (and `.d.cts`) where the build from
 * `x.ts` writes `x-HASH.d.ts`; the contents and hashes are the same. This renames those chunks and
 * the imports of them, so the package ships the same files either way.
 */
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist", import.meta.url));
/** `name.d-HASH.d.ts` / `.d.cts`: rollup's `[name]-[hash]` with a name ending in `.d`. */
const misnamed = /^(.+)\.d-([A-Za-z0-9_-]+)\.d\.(c?ts)$/;

function declarationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return declarationFiles(full);
    return /\.d\.c?ts$/.test(name) ? [full] : [];
  });
}

const renamed = new Map<string, string>();
for (const file of declarationFiles(dist)) {
  const match = misnamed.exec(path.basename(file));
  if (match === null) continue;
  const [, name, hash, extension] = match as unknown as [string, string, string, string];
  renameSync(file, path.join(path.dirname(file), `${name}-${hash}.d.${extension}`));
  // Imports name the chunk by its JavaScript twin: `./x.d-HASH.js` or `./x.d-HASH.cjs`.
  renamed.set(`${name}.d-${hash}.`, `${name}-${hash}.`);
}
if (renamed.size > 0) {
  const misnamedImport = new RegExp(
    `([/'"])(${[...renamed.keys()].map((key) => key.replaceAll(".", "\\.")).join("|")})(c?js['"])`,
    "g",
  );
  for (const file of declarationFiles(dist)) {
    const text = readFileSync(file, "utf8");
    const fixed = text.replace(
      misnamedImport,
      (_all, before: string, chunk: string, after: string) => `${before}${renamed.get(chunk)}${after}`,
    );
    if (fixed !== text) writeFileSync(file, fixed);
  }
}
console.log(
  `Declaration chunks named: ${[...new Set(renamed.values())].map((name) => name.slice(0, -1)).join(", ") || "none to rename"}.`,
);
