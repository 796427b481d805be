import { createGitCache, type GitCache } from "./git-cache.js";
import type { GitToolOptions } from "./git-tool-options.js";

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
