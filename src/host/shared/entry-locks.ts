/**
 * Runs the read-modify-write of one named entry (a skill, a profile) one at a time. Calls of one
 * step run in parallel: two updates of one entry each read it before the other wrote, and the
 * later write put back the field the earlier one had changed, though both answered ok. Held by
 * the tools of one group, so it orders what one process does; writes stay atomic across
 * processes, where the last one wins.
 */
export class EntryLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every earlier task of `key` has settled. */
  run<Result>(key: string, task: () => Promise<Result>): Promise<Result> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // The map holds only entries with work queued: the last task of a key removes it.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
