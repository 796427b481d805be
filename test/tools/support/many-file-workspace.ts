/**
 * The workspace many-file-patch.mjs changes, for the tests of a change made in groups of
 * directories (group-rename-reopen, group-kill-restore): file `i` in directory `d{i % dirs}`,
 * the even ones there before the change ("old i"), the odd ones added by it; every file "new ..."
 * after it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** 400 directories at `ulimit -n` 256: groups of 64 directories, d384..d399 the last. */
export const MANY = { limit: 256, dirs: 400, files: 800 } as const;

/** Makes `workspace` afresh: every directory, and the even files as "old i". */
export function seedManyFiles(workspace: string): void {
  rmSync(workspace, { recursive: true, force: true });
  for (let d = 0; d < MANY.dirs; d++) mkdirSync(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < MANY.files; i += 2) writeFileSync(path.join(workspace, `d${i % MANY.dirs}`, `f${i}.txt`), `old ${i}\n`);
}

/**
 * Each file's state ("new", "old" or "missing"), keyed `<directory>/f<i>.txt`; `directoryOf`
 * names where directory number `d` is looked for (a test that moved one away reads it there).
 */
export function manyFileStates(workspace: string, directoryOf = (d: number) => `d${d}`): Map<string, string> {
  const found = new Map<string, string>();
  for (let i = 0; i < MANY.files; i++) {
    const file = `${directoryOf(i % MANY.dirs)}/f${i}.txt`;
    let text = "missing";
    try {
      text = readFileSync(path.join(workspace, file), "utf8");
    } catch {}
    found.set(file, text === "missing" ? text : text.startsWith("new") ? "new" : "old");
  }
  return found;
}
