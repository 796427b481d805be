/**
 * Runs tasks one at a time per key (a file path), so that "check the version, then write" is one
 * step for every writer in this process: two concurrent writers cannot both pass the check.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** One lock table for the process: two runs writing the same file are serialized too. */
export const fileLocks = new KeyedMutex();
