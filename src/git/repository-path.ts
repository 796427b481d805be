import path from "node:path";
import type { ToolContext } from "agent-tool-catalog";
import { gitError } from "./git-errors.js";
import type { GitRepository } from "./repository.js";

function outside(input: string, where: string): Error {
  return gitError(
    "path_outside_repository",
    `The path ${JSON.stringify(input)} is outside ${where}.`,
    "Give a path inside the repository, relative to the workspace (e.g. src/index.ts); ../ may not leave it.",
  );
}

/**
 * Turns a path from the model into a repository-relative path with `/` separators ("" is the
 * whole repository). Relative paths start at the workspace, as they do for the file tools; the
 * result never leaves the repository, never enters `.git`, and under sandbox `"workspace"` never
 * leaves the workspace either.
 */
export function repositoryPath(repository: GitRepository, input: string, context: ToolContext): string {
  if (input.includes("\u0000")) throw gitError("path_not_found", "Paths cannot contain NUL characters.");
  const { worktree, base } = repository.location;
  if (worktree === undefined) {
    // A bare repository has no files on disk: paths are repository-relative as given.
    // normalize drops a leading "./"; a leading dot of a name (.mailmap) is part of it.
    const normalized = path.posix.normalize(input.replaceAll("\\", "/")).replace(/\/$/, "");
    if (path.posix.isAbsolute(normalized) || normalized === ".." || normalized.startsWith("../")) {
      throw outside(input, "the repository");
    }
    return normalized === "." ? "" : normalized;
  }
  const absolute = path.resolve(base, input);
  const relative = path.relative(worktree, absolute);
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw outside(input, `the repository (${worktree})`);
  }
  const workspace = context.permissions.workspace;
  if (context.permissions.sandbox === "workspace" && workspace !== undefined) {
    const inWorkspace = path.relative(path.resolve(workspace), absolute);
    if (inWorkspace === ".." || inWorkspace.startsWith(`..${path.sep}`) || path.isAbsolute(inWorkspace)) {
      throw outside(input, "the workspace sandbox");
    }
  }
  const posix = relative.split(path.sep).join("/");
  if (posix === ".git" || posix.startsWith(".git/")) throw outside(input, "the tracked files (it is inside .git)");
  return posix;
}
