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
  const inside = lower.slice(gitIndex + 1);
  if (inside.some((segment) => PROTECTED_IN_GIT_DIRECTORY.has(segment) || segment === ".git")) return true;
  const objects = inside.indexOf("objects");
  return objects !== -1 && inside[objects + 1] === "info";
}

/** The refusal a mutating file tool gives for git state (see {@link touchesGitState}). */
export function gitStateRefused(requested: string): ToolError {
  return new ToolError(
    "git_metadata_refused",
    `Refused to change "${requested}": it is git state that git executes or follows (config, hooks, commondir, info, alternates, worktrees, or a .git entry).`,
    { hint: "Change git configuration with git commands the user runs, not with file tools." },
  );
}
