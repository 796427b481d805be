import { lstat } from "node:fs/promises";
import { ToolError } from "agent-tool-catalog";

/**
 * Names inside a git directory that git executes or follows: configuration (hooks, fsmonitor,
 * includes), the pointers to other git directories, and alternates. Writing any of them lets a
 * model make the host's own `git` run a command or read another repository.
 */
const PROTECTED_IN_GIT_DIRECTORY = new Set(["config", "config.worktree", "hooks", "commondir", "gitdir", "info", "worktrees"]);

/**
 * True when changing the file at `segments` (real path components below the workspace) would
 * create or change git state that git executes or follows: a `.git` entry itself (a `.git` file
 * may point anywhere with `gitdir:`), or inside a `.git` directory its config, hooks,
 * `commondir`, `info/`, `objects/info/` (alternates), worktrees, and the same inside
 * `modules/<name>/` of submodules.
 */
export function touchesGitState(segments: readonly string[]): boolean {
  const lower = segments.map((segment) => segment.toLowerCase());
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
  const lower = inside.map((segment) => segment.toLowerCase());
  if (lower.some((segment) => PROTECTED_IN_GIT_DIRECTORY.has(segment) || segment === ".git")) return true;
  const objects = lower.indexOf("objects");
  return objects !== -1 && lower[objects + 1] === "info";
}

/**
 * True when the directory whose entries `at(name)` names is a git directory as git itself
 * recognises one: a `HEAD` entry with an object store (`objects/`) or a pointer to one
 * (`commondir`, as linked worktrees have). Its name does not matter: git follows a `.git` file's
 * `gitdir:` to any directory, and runs in bare repositories.
 */
export async function isGitDirectory(at: (name: string) => string): Promise<boolean> {
  const head = await lstat(at("HEAD")).catch(() => undefined);
  if (head === undefined || head.isDirectory()) return false;
  const objects = await lstat(at("objects")).catch(() => undefined);
  if (objects?.isDirectory() === true) return true;
  return (await lstat(at("commondir")).catch(() => undefined)) !== undefined;
}

/** The refusal a mutating file tool gives for git state (see {@link touchesGitState}). */
export function gitStateRefused(requested: string): ToolError {
  return new ToolError(
    "git_metadata_refused",
    `Refused to change "${requested}": it is git state that git executes or follows (config, hooks, commondir, info, alternates, worktrees, or a .git entry).`,
    { hint: "Change git configuration with git commands the user runs, not with file tools." },
  );
}
