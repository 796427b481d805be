import type { ToolContext } from "agent-tool-catalog";
import { missingObjectError } from "./git-errors.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { MissingObjectError } from "./objects/git-object.js";
import { openRepository } from "./open-repository.js";
import type { GitRepository } from "./repository.js";

/**
 * Opens the call's repository and runs `work` with it. An object missing outside a shallow
 * boundary (a partial clone) becomes a `missing_object` error the model can read.
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
    if (error instanceof MissingObjectError) throw missingObjectError(error.oid);
    throw error;
  }
}
