import path from "node:path";
import { type IgnoreFile, parseIgnoreFile } from "./gitignore-rules.js";
import { directoriesAboveStart, PARENT_IGNORE_FILE_NAMES } from "./grep-parent-ignores.js";
import { lstatOrUndefined } from "./lstat-or-undefined.js";

/** Reads one ignore file's text, or `undefined` when there is none that may be read. */
export type ReadIgnoreFile = (absolute: string) => Promise<string | undefined>;

/** An ignore file and whether it is git's (`.gitignore`, `.git/info/exclude`). */
export type GitAwareIgnoreFile = IgnoreFile & { readonly git: boolean };

/**
 * The ignore files that still apply in a directory holding `.git` (a file or a directory: a
 * nested repository, a submodule, a worktree): as ripgrep (and git), the `.gitignore` and exclude
 * files of the directories above it do not; `.ignore` and `.rgignore` do.
 */
export function outsideRepository(ignores: readonly GitAwareIgnoreFile[]): GitAwareIgnoreFile[] {
  return ignores.filter((file) => !file.git);
}

/**
 * The ignore files of `directory`, in increasing precedence (as ripgrep: `.rgignore` over
 * `.ignore` over `.gitignore`, all over the directory's `.git/info/exclude`, which ripgrep reads in
 * every directory it enters with `--no-require-git`). `names`: only those of
 * {@link PARENT_IGNORE_FILE_NAMES} a listing showed (each read costs a round trip of the thread
 * pool even when the file is missing).
 */
export async function ignoreFilesIn(
  root: string,
  directory: string,
  readIgnore: ReadIgnoreFile,
  names: readonly string[] = PARENT_IGNORE_FILE_NAMES,
): Promise<GitAwareIgnoreFile[]> {
  const base = toSlash(path.relative(root, directory));
  const found: GitAwareIgnoreFile[] = [];
  for (const name of names) {
    const text = await readIgnore(path.join(directory, name));
    if (text !== undefined) found.push({ ...parseIgnoreFile(base, text), git: name !== ".ignore" && name !== ".rgignore" });
  }
  return found;
}

/** The ignore files from the root down to `start`'s parent (`start`'s own are read by the walk). */
export async function ignoreFilesAbove(root: string, start: string, readIgnore: ReadIgnoreFile): Promise<GitAwareIgnoreFile[]> {
  let found: GitAwareIgnoreFile[] = [];
  for (const directory of directoriesAboveStart(root, start)) {
    if (directory !== root && lstatOrUndefined(path.join(directory, ".git")) !== undefined) found = outsideRepository(found);
    found.push(...(await ignoreFilesIn(root, directory, readIgnore)));
  }
  return found;
}

/** A relative path with `/` separators, as ignore rules are matched. */
export function toSlash(relative: string): string {
  return relative.split(path.sep).join("/");
}
