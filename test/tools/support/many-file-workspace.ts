/**
 * The workspace many-file-patch.mjs changes, for the tests of a change made in groups of
 * directories (group-rename-reopen, group-kill-restore): file `i` in directory `d{i % dirs}`,
 * the even ones there before the change ("old i"), the odd ones added by it; every file "new ..."
 * after it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A grouped change's size: `files` files in `dirs` directories, made under `ulimit -n` `limit`. */
export interface ManyShape {
  readonly limit: number;
  readonly dirs: number;
  readonly files: number;
}

/** 400 directories at `ulimit -n` 256: groups of 64 directories, d384..d399 the last. */
export const MANY = { limit: 256, dirs: 400, files: 800 } as const;

/**
 * The same split with a third of the files: 128 directories at `ulimit -n` 128, groups of 32
 * directories (a quarter of the limit, see `directoryWindow`), d96..d127 the last. For tests that
 * repeat the change many times (each round pays for the change, two recoveries and the reset).
 */
export const FEWER = { limit: 128, dirs: 128, files: 256 } as const;

/** Makes `workspace` afresh: every directory, and the even files as "old i". */
export function seedManyFiles(workspace: string, shape: ManyShape = MANY): void {
  rmSync(workspace, { recursive: true, force: true });
  for (let d = 0; d < shape.dirs; d++) mkdirSync(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < shape.files; i += 2) writeFileSync(path.join(workspace, `d${i % shape.dirs}`, `f${i}.txt`), `old ${i}\n`);
}

/**
 * Puts back the seed where a change was made whole ("after": every file "new"): the even files
 * "old i" again, the odd ones removed. Where it is wholly undone ("before") the workspace is the
 * seed already. Only for a workspace checked whole (nothing else was left in it).
 */
export function resetManyFiles(workspace: string, whole: "before" | "after", shape: ManyShape = MANY): void {
  if (whole === "before") return;
  for (let i = 0; i < shape.files; i++) {
    const file = path.join(workspace, `d${i % shape.dirs}`, `f${i}.txt`);
    if (i % 2 === 0) writeFileSync(file, `old ${i}\n`);
    else rmSync(file);
  }
}

/**
 * Each file's state ("new", "old" or "missing"), keyed `<directory>/f<i>.txt`; `directoryOf`
 * names where directory number `d` is looked for (a test that moved one away reads it there).
 */
export function manyFileStates(
  workspace: string,
  directoryOf = (d: number) => `d${d}`,
  shape: ManyShape = MANY,
): Map<string, string> {
  const found = new Map<string, string>();
  for (let i = 0; i < shape.files; i++) {
    const file = `${directoryOf(i % shape.dirs)}/f${i}.txt`;
    let text = "missing";
    try {
      text = readFileSync(path.join(workspace, file), "utf8");
    } catch {}
    found.set(file, text === "missing" ? text : text.startsWith("new") ? "new" : "old");
  }
  return found;
}
