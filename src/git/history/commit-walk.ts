import type { CommitRecord } from "../objects/parse-objects.js";
import type { GitRepository } from "../repository.js";
import { yieldToEventLoop } from "../yield-to-event-loop.js";
import { requireCommit } from "./commit-changes.js";

/** Options of {@link CommitWalk}. */
export interface CommitWalkOptions {
  /** Skip commits committed before this time (seconds), and do not walk past them. */
  readonly since?: number | undefined;
  /** Stops the walk. */
  readonly signal: AbortSignal;
  /**
   * A repository path ("" or absent: none). With one, the walk does what `git log -- <path>` does
   * by default (history simplification): a merge whose content at the path equals one of its
   * parents' follows only the first such parent and is not yielded, and a commit whose content
   * at the path equals its parent's is not yielded.
   */
  readonly simplify?: string | undefined;
}

interface Queued<Item> {
  readonly item: Item;
  readonly timestamp: number;
  readonly order: number;
}

/** Newest committer date first; among equal dates, the one queued first (git's commit queue). */
function before<Item>(x: Queued<Item>, y: Queued<Item>): boolean {
  return x.timestamp > y.timestamp || (x.timestamp === y.timestamp && x.order < y.order);
}

/** Items by descending committer date of their commit, as git's commit queue orders them (walks and blame). */
export class CommitQueue<Item> {
  private readonly heap: Queued<Item>[] = [];
  private counter = 0;

  /** Queues `item` under `commit`'s committer date. */
  push(item: Item, commit: CommitRecord): void {
    const heap = this.heap;
    heap.push({ item, timestamp: commit.time, order: this.counter++ });
    for (let index = heap.length - 1; index > 0; ) {
      const parent = (index - 1) >> 1;
      if (!before(heap[index] as Queued<Item>, heap[parent] as Queued<Item>)) break;
      [heap[index], heap[parent]] = [heap[parent] as Queued<Item>, heap[index] as Queued<Item>];
      index = parent;
    }
  }

  /** The newest item, removed from the queue. */
  pop(): Item | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top?.item;
    heap[0] = last;
    for (let index = 0; ; ) {
      const left = index * 2 + 1;
      const right = left + 1;
      let best = index;
      if (left < heap.length && before(heap[left] as Queued<Item>, heap[best] as Queued<Item>)) best = left;
      if (right < heap.length && before(heap[right] as Queued<Item>, heap[best] as Queued<Item>)) best = right;
      if (best === index) break;
      [heap[index], heap[best]] = [heap[best] as Queued<Item>, heap[index] as Queued<Item>];
      index = best;
    }
    return top.item;
  }
}

/**
 * The commits reachable from a start commit, newest committer date first, as plain `git log`
 * lists them: every parent followed, or with {@link CommitWalkOptions.simplify} as
 * `git log -- <path>` simplifies history. Records where a shallow clone
 * cut history off, so a caller can tell a complete answer from a truncated one.
 */
export class CommitWalk {
  /** Commits yielded so far. */
  scanned = 0;
  /** The first shallow commit met (its parents are missing), if any. */
  shallowBoundary: string | undefined;

  constructor(
    private readonly repository: GitRepository,
    private readonly start: CommitRecord,
    private readonly options: CommitWalkOptions,
  ) {}

  /**
   * The parents to follow and whether the commit is TREESAME at the path (git's
   * `try_to_simplify_commit` without `--full-history`).
   */
  private async simplified(commit: CommitRecord, scope: string): Promise<{ parents: readonly string[]; same: boolean }> {
    if (commit.parents.length === 0)
      return { parents: [], same: await this.repository.sameAtPath(undefined, commit.tree, scope) };
    const first = commit.parents[0] as string;
    // The graph's Bloom filter can say the first parent is TREESAME without reading a tree, as git asks it.
    if (this.repository.unchangedByFilter(commit, scope)) return { parents: [first], same: true };
    for (const parent of commit.parents) {
      const record = await requireCommit(this.repository, parent);
      if (await this.repository.sameAtPath(record.tree, commit.tree, scope)) return { parents: [parent], same: true };
    }
    return { parents: commit.parents, same: false };
  }

  async *commits(): AsyncGenerator<CommitRecord> {
    const { since, signal } = this.options;
    const scope = this.options.simplify ?? "";
    const queue = new CommitQueue<CommitRecord>();
    const seen = new Set<string>([this.start.oid]);
    queue.push(this.start, this.start);
    for (let commit = queue.pop(); commit !== undefined; commit = queue.pop()) {
      if (since !== undefined && commit.time < since) continue;
      if (++this.scanned % 256 === 0) await yieldToEventLoop(signal);
      const shallow = this.repository.isShallow(commit.oid);
      const { parents, same } =
        scope === "" || shallow ? { parents: commit.parents, same: false } : await this.simplified(commit, scope);
      if (!same) yield commit;
      if (shallow) {
        this.shallowBoundary ??= commit.oid;
        continue;
      }
      for (const parent of parents) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        const record = await requireCommit(this.repository, parent);
        queue.push(record, record);
      }
    }
  }
}
