import type { ToolContext } from "agent-tool-catalog";
import { CatalogError } from "../errors/catalog-error.js";
import { corruptRepositoryError, gitError, missingObjectError } from "./git-errors.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { MissingObjectError } from "./objects/git-object.js";
import { openRepository, requireSha1 } from "./open-repository.js";
import type { GitRepository } from "./repository.js";

/**
 * Opens the call's repository and runs `work` with it. An object missing outside a shallow
 * boundary (a partial clone) becomes a `missing_object` error the model can read, and a file the
 * object readers refused (a hostile or damaged repository) `corrupt_object` or `too_large`: the
 * readers throw `CatalogError`s, which would otherwise reach the model as `tool_failed`.
 */
export async function withRepository<Result>(
  runtime: GitToolRuntime,
  context: ToolContext,
  work: (repository: GitRepository) => Promise<Result>,
): Promise<Result> {
  const repository = await openRepository(context, {
    repositoryPath: runtime.options.repositoryPath,
    fs: runtime.options.fs,
    cache: runtime.cache,
  });
  try {
    return await work(repository);
  } catch (error) {
    // A SHA-256 repository fails as broken refs or missing objects: say what it is instead.
    if (error instanceof CatalogError && error.code !== "aborted")
      await requireSha1(repository.files, repository.location.commondir);
    if (error instanceof MissingObjectError) throw missingObjectError(error.oid);
    if (error instanceof CatalogError) {
      if (error.code === "corrupt_object" || error.code === "too_large") throw corruptRepositoryError(error.code, error.message);
      // A pack or index that disappeared or was replaced while it was read (a concurrent gc, or a hostile swap).
      if (error.code === "missing_object")
        throw gitError("missing_object", error.message, "Ask again: the repository changed while it was read.");
    }
    throw error;
  }
}
