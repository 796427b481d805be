import path from "node:path";
import { lstatOrUndefined } from "./lstat-or-undefined.js";

/**
 * The directories whose ignore files apply to a search of `start` besides those ripgrep reads
 * itself: the workspace root and every directory between it and `start` (`start` excluded:
 * ripgrep reads the ignore files of the directory it searches). None for the root itself or a
 * start outside it. Ignore files above the workspace root never apply.
 */
export function directoriesAboveStart(root: string, start: string): string[] {
  const relative = path.relative(root, start);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return [];
  const found = [root];
  let current = root;
  for (const part of relative.split(path.sep).slice(0, -1)) {
    current = path.join(current, part);
    found.push(current);
  }
  return found;
}

/** The ignore files of one directory, lowest precedence first (as ripgrep ranks them). */
export const PARENT_IGNORE_FILE_NAMES: readonly string[] = [
  path.join(".git", "info", "exclude"),
  ".gitignore",
  ".ignore",
  ".rgignore",
];

/**
 * The ignore files between the workspace root and the searched directory, as ripgrep is given them
 * (`--ignore-file`, paths relative to the root where it runs, `./`-prefixed), or why ripgrep cannot
 * apply them. ripgrep's own reading of parent directories (without `--no-ignore-parent`) reads
 * every directory up to `/` (ignore files above the workspace applied) and, ripgrep 13, matches a
 * pattern holding a `/` (`sub/e.txt`, `/e.txt`) against the wrong path, so it never applied.
 *
 * ripgrep ranks the patterns of `--ignore-file` files relative to its working directory (the
 * root), the last file's match first; so they are listed as ripgrep ranks matches run at the
 * root: every `.rgignore` match over every `.ignore` match over every `.gitignore` match over
 * every `exclude` match, the nearest file first among the same kind. A file in a directory below
 * the root holding a pattern anchored to that directory (a `/` before its end) cannot be given so:
 * then `unusable` says which. `git`: a `.gitignore` or exclude file is among them (ripgrep would
 * apply it inside a repository nested below `start` too, where it does not apply).
 *
 * @param read - an ignore file's text, or `undefined` when there is none that may be read
 */
export async function parentIgnoreFiles(
  root: string,
  start: string,
  read: (absolute: string) => Promise<string | undefined>,
): Promise<{ readonly files: readonly string[]; readonly git: boolean } | { readonly unusable: string }> {
  const directories = directoriesAboveStart(root, start);
  // As ripgrep (and git): the .gitignore and exclude files of the directories above a repository's
  // top (a directory holding `.git`, a file or a directory) do not apply inside it.
  const gitApplies = new Set<string>();
  let inRepository = lstatOrUndefined(path.join(start, ".git")) !== undefined;
  for (const directory of [...directories].reverse()) {
    if (!inRepository) gitApplies.add(directory);
    inRepository ||= lstatOrUndefined(path.join(directory, ".git")) !== undefined;
  }
  const files: string[] = [];
  let git = false;
  for (const name of PARENT_IGNORE_FILE_NAMES) {
    const isGit = name !== ".ignore" && name !== ".rgignore";
    for (const directory of directories) {
      if (isGit && !gitApplies.has(directory)) continue;
      const absolute = path.join(directory, name);
      // Most directories have none: one lstat.
      if (lstatOrUndefined(absolute) === undefined) continue;
      if (directory !== root) {
        const text = await read(absolute);
        if (text === undefined) continue;
        if (text.split(/\r?\n/).some(isAnchored)) return { unusable: absolute };
      }
      files.push(`./${path.relative(root, absolute).split(path.sep).join("/")}`);
      git ||= isGit;
    }
  }
  return { files, git };
}

/** Whether a gitignore line is a pattern anchored to its file's directory (a `/` before its end). */
export function isAnchored(line: string): boolean {
  if (line.startsWith("#")) return false;
  const pattern = (line.startsWith("!") ? line.slice(1) : line).replace(/(?<!\\)\s+$/, "");
  return (pattern.endsWith("/") ? pattern.slice(0, -1) : pattern).includes("/");
}
