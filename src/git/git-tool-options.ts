import type { FsClient } from "isomorphic-git";
import type { GitCache } from "./git-cache.js";

/**
 * Options of `createGitTools()`.
 *
 * @public
 */
export interface GitToolOptions {
  /**
   * The repository the tools read (a working tree, any directory inside one, or a bare
   * repository). Relative paths from the model still start at the run's workspace.
   * @defaultValue the run's workspace (`ctx.permissions.workspace`)
   */
  readonly repositoryPath?: string;
  /**
   * An isomorphic-git fs client to read the repository through (an in-memory fs, a remote fs).
   * When given, every object read goes through isomorphic-git; without it, objects are read with
   * `node:fs` and native zlib, which is about ten times faster on large histories.
   * @defaultValue `node:fs`
   */
  readonly fs?: FsClient;
  /**
   * What the tools remember between calls (parsed objects, diffs). Pass one cache to share it
   * between tool sets; call `cache.clear()` to free it.
   * @defaultValue a new cache for this tool set
   */
  readonly cache?: GitCache;
  /**
   * The clock for relative `since` values ("2 weeks ago"); tests pin it.
   * @defaultValue `() => new Date()`
   */
  readonly now?: () => Date;
}
