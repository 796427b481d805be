import { performance } from "node:perf_hooks";
import { versionOf } from "./commit-file-changes.js";
import type { PiecedBytes } from "./patch/pieced-bytes.js";

/** How long one slice of hashing may hold the event loop before it yields (see {@link VersionsAhead}). */
const SLICE_MS = 1;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Version tokens of a change's new contents, hashed on this thread while it would otherwise wait.
 * `apply_patch` reports the version of every file it wrote (9 MB to hash for a 500-file change,
 * 10-30 ms of CPU): hashed after the commit, that time was added to every call's wall time; started
 * before the commit, in slices of {@link SLICE_MS} that yield to the event loop, it fills the time
 * the commit spends waiting for its locks and flushes, and costs the commit at most a slice where
 * the commit has work of its own. Same CPU either way: one SHA-256 per content (`versionOf`).
 */
export class VersionsAhead {
  readonly #done = new Map<Uint8Array | PiecedBytes, string>();
  #stopped = false;

  /**
   * Starts hashing `contents` in the background, in order (`undefined`, a delete, has none to hash).
   * The returned promise settles when all are hashed or {@link stop} was called; it never rejects.
   */
  start(contents: readonly (Buffer | PiecedBytes | undefined)[]): Promise<void> {
    return this.#run(contents).catch(() => undefined);
  }

  async #run(contents: readonly (Buffer | PiecedBytes | undefined)[]): Promise<void> {
    let index = 0;
    while (!this.#stopped && index < contents.length) {
      await yieldToLoop();
      const started = performance.now();
      while (!this.#stopped && index < contents.length && performance.now() - started < SLICE_MS) {
        const content = contents[index++];
        if (content !== undefined && !this.#done.has(content)) this.#done.set(content, versionOf(content));
      }
    }
  }

  /** Stops the background hashing (what is left is hashed by {@link of} when asked). */
  stop(): void {
    this.#stopped = true;
  }

  /** The version token of `content` (`versionOf`'s): the one hashed ahead, or hashed now. */
  of(content: Buffer | PiecedBytes | undefined): string {
    return (content === undefined ? undefined : this.#done.get(content)) ?? versionOf(content);
  }
}
