import type { ToolContext } from "agent-tool-catalog";
import { createGitCache, type GitCache } from "./git-cache.js";
import { missingObjectError } from "./git-errors.js";
import type { GitToolOptions } from "./git-tool-options.js";
import { MissingObjectError } from "./objects/git-object.js";
import { openRepository } from "./open-repository.js";
import type { GitRepository } from "./repository.js";

/** What every git tool of one `createGitTools()` call shares: options, cache and clock. */
export interface GitToolRuntime {
  /** The host's options. */
  readonly options: GitToolOptions;
  /** The shared cache. */
  readonly cache: GitCache;
  /** The clock. */
  readonly now: () => Date;
}

/** The runtime for a set of tools, with defaults applied. */
export function createGitToolRuntime(options: GitToolOptions): GitToolRuntime {
  return { options, cache: options.cache ?? createGitCache(), now: options.now ?? (() => new Date()) };
}

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
