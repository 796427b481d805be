import path from "node:path";
import { type IgnoreFile, matchIgnoreFile, parseIgnoreFile } from "./gitignore-rules.js";
import { directoriesAboveStart, PARENT_IGNORE_FILE_NAMES } from "./grep-parent-ignores.js";
import { lstatOrUndefined } from "./lstat-or-undefined.js";

/** Reads one ignore file's text, or `undefined` when there is none that may be read. */
export type ReadIgnoreFile = (absolute: string) => Promise<string | undefined>;

/**
 * An ignore file, whether it is git's (`.gitignore`, `.git/info/exclude`), and its kind's rank:
 * its name's index in {@link PARENT_IGNORE_FILE_NAMES} (exclude 0, `.gitignore` 1, `.ignore` 2,
 * `.rgignore` 3).
 */
export type GitAwareIgnoreFile = IgnoreFile & { readonly git: boolean; readonly rank: number };

/**
 * Whether `relative` (from the walk's root, `/`-separated) is ignored by `files` (outermost
 * directory first, as the walk collects them), ranked as ripgrep ranks them (the `ignore` crate's
 * `Ignore::matched_ignore`): for each kind separately the file of the deepest directory with a
 * matching rule decides (within it the last matching rule), and a kind's decision is taken over
 * every lower kind's: `.rgignore` over `.ignore` over `.gitignore` over `.git/info/exclude`. So a
 * `!build/` in the root's `.ignore` re-includes the `build/` a deeper `.gitignore` ignores, and
 * a deeper `.gitignore`'s `!build/` does not re-include what the root's `.ignore` ignores. "The
 * last matching rule of all the files wins" (git's rule within one kind) answered otherwise, and
 * both the JavaScript engine and the ignore-file look before ripgrep used it.
 */
export function isIgnoredAsRipgrep(files: readonly GitAwareIgnoreFile[], relative: string, isDirectory: boolean): boolean {
  for (let rank = PARENT_IGNORE_FILE_NAMES.length - 1; rank >= 0; rank--) {
    for (let index = files.length - 1; index >= 0; index--) {
      const file = files[index] as GitAwareIgnoreFile;
      if (file.rank !== rank) continue;
      const match = matchIgnoreFile(file, relative, isDirectory);
      if (match !== undefined) return match === "ignore";
    }
  }
  return false;
}

/**
 * Whether ripgrep run in the searched directory, given the ignore files above it with
 * `--ignore-file` (`above`), ignores `relative`: it ranks every one of the tree's own files
 * (by kind, the deepest first) over all of those, which among themselves rank as at the root.
 */
export function isIgnoredGivenAbove(
  files: readonly GitAwareIgnoreFile[],
  above: ReadonlySet<GitAwareIgnoreFile>,
  relative: string,
  isDirectory: boolean,
): boolean {
  for (let rank = PARENT_IGNORE_FILE_NAMES.length - 1; rank >= 0; rank--) {
    for (let index = files.length - 1; index >= 0; index--) {
      const file = files[index] as GitAwareIgnoreFile;
      if (file.rank !== rank || above.has(file)) continue;
      const match = matchIgnoreFile(file, relative, isDirectory);
      if (match !== undefined) return match === "ignore";
    }
  }
  return isIgnoredAsRipgrep(
    files.filter((file) => above.has(file)),
    relative,
    isDirectory,
  );
}

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
    const rank = PARENT_IGNORE_FILE_NAMES.indexOf(name);
    if (text !== undefined) found.push({ ...parseIgnoreFile(base, text), git: name !== ".ignore" && name !== ".rgignore", rank });
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
