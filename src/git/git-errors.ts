import { ToolError } from "../errors/tool-error.js";

/**
 * The error codes the git tools return, besides the run's own (`invalid_input`, `aborted`).
 *
 * @public
 */
export type GitToolErrorCode =
  | "no_repository"
  | "not_a_git_repository"
  | "empty_repository"
  | "unknown_ref"
  | "ambiguous_ref"
  | "invalid_ref"
  | "no_merge_base"
  | "path_outside_repository"
  | "path_not_found"
  | "not_a_file"
  | "binary_file"
  | "line_out_of_range"
  | "shallow_clone"
  | "missing_object"
  | "invalid_since"
  | "repository_outside_workspace"
  | "corrupt_object"
  | "too_large";

/** A {@link ToolError} with one of the git tools' codes. */
export function gitError(code: GitToolErrorCode, message: string, hint?: string): ToolError {
  return new ToolError(code, message, hint === undefined ? { data: { code } } : { hint, data: { code } });
}

/** History needed for the answer is cut off by a shallow clone. */
export function shallowCloneError(boundary: string, detail: string): ToolError {
  return gitError(
    "shallow_clone",
    `This is a shallow clone: history before commit ${boundary.slice(0, 10)} is missing, so ${detail}.`,
    "Ask the user to run `git fetch --unshallow` (or `git fetch --deepen=<n>`), or narrow the question to recent history (since, max_results).",
  );
}

/** An object the repository does not have, outside a shallow boundary: most likely a partial clone. */
export function missingObjectError(oid: string): ToolError {
  return gitError(
    "missing_object",
    `The repository does not have object ${oid.slice(0, 10)} (a partial clone, e.g. --filter=blob:none, or a damaged repository).`,
    "Ask the user to fetch the missing objects (`git fetch --refetch`) or use a full clone.",
  );
}

/**
 * A repository file the object readers refused (`corrupt_object`: a delta cycle, a lying size,
 * an offset out of range; `too_large`: an object over 1 GiB).
 */
export function corruptRepositoryError(code: "corrupt_object" | "too_large", detail: string): ToolError {
  return gitError(
    code,
    code === "too_large" ? detail : `The repository is damaged: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}`,
    code === "too_large"
      ? "Ask about other files or commits; the git tools do not read objects this large."
      : "Check it with `git fsck`; the git tools refuse damaged objects rather than guess. Other files and commits may still be readable.",
  );
}
