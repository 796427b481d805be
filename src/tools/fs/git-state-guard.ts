import { constants, lstatSync } from "node:fs";
import { open, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { isGitHeadContent, isGitHeadLinkTarget } from "../sandbox/git-head.js";
import { foldGitName, isHeadName } from "../sandbox/git-names.js";
import { SEQUENCER_QUARANTINE } from "../sandbox/sequencer-quarantine.js";

// The fold is shared with the sandbox's own scans (sandbox/git-names.ts).
export { foldGitName, isHeadName };

/**
 * Names inside a git directory that git executes or follows: configuration (hooks, fsmonitor,
 * includes), the pointers to other git directories, and alternates. Writing any of them lets a
 * model make the host's own `git` run a command or read another repository.
 */
const PROTECTED_IN_GIT_DIRECTORY = new Set(["config", "config.worktree", "hooks", "commondir", "gitdir", "info", "worktrees"]);

/**
 * The sequencer state of an interrupted `git rebase`, `git am`, `git cherry-pick` or `git revert`:
 * its todo list may hold `exec` lines, which the user's own `git rebase --continue` (or
 * `cherry-pick --continue`) later runs outside any sandbox. Protected as the first entry of a git
 * directory (or of a submodule's, below `modules/`), not wherever the name appears, so a branch
 * named `sequencer` (`refs/heads/sequencer`) stays an ordinary file.
 */
const SEQUENCER_DIRECTORIES = new Set(["rebase-merge", "rebase-apply", "sequencer"]);

/**
 * A sequencer directory, or where the sandbox moved one a command left (`atc-quarantine-<name>-<time>`,
 * sandbox/sequencer-quarantine.ts): the bash result tells the user to read it and `mv` it back, so
 * a model that rewrote it there would have its `exec` lines run by the user's
 * `git rebase --continue` after the restore.
 */
function isSequencerState(segment: string): boolean {
  return SEQUENCER_DIRECTORIES.has(segment) || segment.startsWith(`${SEQUENCER_QUARANTINE}-`);
}

/**
 * True when changing the file at `segments` (real path components below the workspace) would
 * create or change git state that git executes or follows: a `.git` entry itself (a `.git` file
 * may point anywhere with `gitdir:`), or inside a `.git` directory its config, hooks,
 * `commondir`, `info/`, `objects/info/` (alternates), worktrees, the sequencer state
 * (`rebase-merge/`, `rebase-apply/`, `sequencer/`) and the sandbox's quarantines of it
 * (`atc-quarantine-*`), and the same inside `modules/<name>/` of
 * submodules.
 */
export function touchesGitState(segments: readonly string[]): boolean {
  return touchesFoldedGitState(segments.map(foldGitName));
}

/**
 * {@link touchesGitState} of components already folded ({@link foldGitName} of each): a batch
 * that asks several questions of one path folds its components once.
 */
export function touchesFoldedGitState(lower: readonly string[]): boolean {
  const gitIndex = lower.indexOf(".git");
  if (gitIndex === -1) return false;
  if (gitIndex === lower.length - 1) return true;
  return protectedInGitDirectory(lower.slice(gitIndex + 1));
}

/**
 * True when `inside` (path components below a git directory, whatever that directory is called:
 * `.git`, the target of a `.git` file such as `git init --separate-git-dir`, a bare `repo.git`)
 * names git state that git executes or follows.
 */
export function protectedInGitDirectory(inside: readonly string[]): boolean {
  const lower = inside.map(foldGitName);
  if (lower.some((segment) => PROTECTED_IN_GIT_DIRECTORY.has(segment) || segment === ".git")) return true;
  if (lower.some((segment, index) => isSequencerState(segment) && (index === 0 || lower.slice(0, index).includes("modules")))) {
    return true;
  }
  const objects = lower.indexOf("objects");
  return objects !== -1 && lower[objects + 1] === "info";
}

/**
 * True when some suffix of `segments` (`segments.slice(depth)` for some depth) names git state
 * below a git directory ({@link protectedInGitDirectory}): only such a path can be refused by a
 * git directory found on its way. One pass over the components (a component git executes or
 * follows, sequencer state, `objects/info`), not one `protectedInGitDirectory` per depth.
 */
export function protectedBelowSomeDirectory(segments: readonly string[]): boolean {
  return protectedFoldedBelowSomeDirectory(segments.map(foldGitName));
}

/** {@link protectedBelowSomeDirectory} of components already folded ({@link foldGitName} of each). */
export function protectedFoldedBelowSomeDirectory(lower: readonly string[]): boolean {
  return lower.some(
    (segment, index) =>
      PROTECTED_IN_GIT_DIRECTORY.has(segment) ||
      segment === ".git" ||
      isSequencerState(segment) ||
      (segment === "objects" && lower[index + 1] === "info"),
  );
}

/** The first bytes of a regular file (not followed when a symlink, never blocking), or undefined. */
async function headOf(file: string, bytes: number): Promise<string | undefined> {
  const handle = await open(file, READ_FLAGS).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * True when the directory whose entries `at(name)` names holds a `HEAD` git accepts (`ref:refs/...`
 * with or without a space, an object id, a symlink to `refs/...`): a git directory whatever its name (a bare `repo.git`).
 * Only `HEAD` decides, and it is protected in such a directory (the sandbox pins it too), so a
 * command cannot dismantle the repository (move `objects/`, `refs/`) to have it overlooked.
 */
export async function hasGitHead(at: (name: string) => string): Promise<boolean> {
  const head = at("HEAD");
  // git accepts a symlink HEAD to `refs/...` too (see isGitHeadContent).
  const target = await readlink(head).catch(() => undefined);
  if (target !== undefined) return isGitHeadLinkTarget(target);
  const content = await headOf(head, 255);
  return content !== undefined && isGitHeadContent(content);
}

/**
 * The git directories a `.git` file in `directory` (its real path; `at(name)` names its entries)
 * points at with `gitdir:`, with that directory's `commondir`: real paths where they exist.
 */
export async function gitFileTargets(directory: string, at: (name: string) => string): Promise<string[]> {
  // Most directories have no `.git` entry. A synchronous `lstat` that reports a missing entry
  // without an error object is much cheaper than a failed open through the thread pool, done for
  // every directory of a large change; only an existing entry is then opened and read (a symlink
  // named `.git` is not followed either way: `headOf` refuses it).
  let present = true;
  try {
    present = lstatSync(at(".git"), { throwIfNoEntry: false }) !== undefined;
  } catch {
    // Anything but "missing" (a directory that cannot be searched) is left to the open below.
  }
  if (!present) return [];
  const text = await headOf(at(".git"), 4096);
  const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(text ?? "")?.[1];
  if (pointer === undefined) return [];
  const gitDirectory = path.resolve(directory, pointer);
  const targets = [gitDirectory];
  const common = (await headOf(path.join(gitDirectory, "commondir"), 4096))?.trim();
  if (common !== undefined && common !== "") targets.push(path.resolve(gitDirectory, common));
  return Promise.all(targets.map((target) => realpath(target).catch(() => target)));
}

/** True when `error` is the refusal {@link gitStateRefused} makes. */
export function isGitStateRefusal(error: unknown): boolean {
  return error instanceof ToolError && error.code === "git_metadata_refused";
}

/** The refusal a mutating file tool gives for git state (see {@link touchesGitState}). */
export function gitStateRefused(requested: string): ToolError {
  return new ToolError(
    "git_metadata_refused",
    `Refused to change "${requested}": it is git state that git executes or follows (config, hooks, commondir, info, alternates, worktrees, rebase/cherry-pick todo lists and the copies of them moved aside after a command, a bare repository's HEAD, or a .git entry).`,
    { hint: "Change git configuration with git commands the user runs, not with file tools." },
  );
}
