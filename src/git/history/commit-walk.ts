import { type CommitRecord, GraphCommit } from "../objects/parse-objects.js";
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

  /** Whether any queued item satisfies `predicate` (in no particular order). */
  some(predicate: (item: Item) => boolean): boolean {
    return this.heap.some((queued) => predicate(queued.item));
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
   * The parents to follow (`undefined`: all of them) and whether the commit is TREESAME at the
   * path (git's `try_to_simplify_commit` without `--full-history`).
   */
  private async simplified(commit: CommitRecord, scope: string): Promise<Simplified> {
    const repository = this.repository;
    // The graph's Bloom filter can say the first parent is TREESAME without reading a tree, as git asks it.
    if (commit.parents.length > 0 && repository.unchangedByFilter(commit, scope)) {
      return { parents: [(await repository.parentsOf(commit))[0] as CommitRecord], same: true };
    }
    const parents = await repository.parentsOf(commit);
    if (parents.length === 0) return { parents, same: await repository.sameInCommits(undefined, commit, scope) };
    for (const parent of parents) {
      if (await repository.sameInCommits(parent, commit, scope)) return { parents: [parent], same: true };
    }
    return CHANGED;
  }

  /**
   * {@link simplified} for a commit from the graph on a synchronous store (no promise, no id
   * text, no object): -1 when it is not TREESAME (all parents followed), else the index of the
   * one parent to follow (0 for a root commit, which has none).
   */
  private simplifiedSync(commit: GraphCommit, scope: string): number {
    const repository = this.repository;
    const positions = commit.parentPositions;
    if (positions.length === 0) return repository.sameInCommitsSync(undefined, commit, scope) ? 0 : -1;
    if (repository.unchangedByFilter(commit, scope)) return 0;
    for (let index = 0; index < positions.length; index++) {
      const parent = repository.graphParent(commit, positions[index] as number);
      if (repository.sameInCommitsSync(parent, commit, scope)) return index;
    }
    return -1;
  }

  /** Queues parent `index` of a graph commit, if it has one and it is not queued yet. */
  private queueGraphParent(commit: GraphCommit, index: number, queue: CommitQueue<CommitRecord>, seen: Set<number | string>) {
    const position = commit.parentPositions[index];
    if (position === undefined || seen.has(position)) return;
    seen.add(position);
    const parent = this.repository.graphParent(commit, position);
    queue.push(parent, parent);
  }

  /**
   * Queues the parents to follow (`undefined`: all) that are not queued yet, when they are known
   * without a read (records at hand, graph positions); false when they must be read first.
   */
  private queueKnownParents(
    commit: CommitRecord,
    parents: readonly CommitRecord[] | undefined,
    queue: CommitQueue<CommitRecord>,
    seen: Set<number | string>,
  ): boolean {
    if (parents !== undefined) {
      for (const parent of parents) {
        const key = this.repository.commitKey(parent);
        if (seen.has(key)) continue;
        seen.add(key);
        queue.push(parent, parent);
      }
      return true;
    }
    if (!(commit instanceof GraphCommit)) return false;
    for (const position of commit.parentPositions) {
      if (seen.has(position)) continue;
      seen.add(position);
      const parent = this.repository.graphParent(commit, position);
      queue.push(parent, parent);
    }
    return true;
  }

  /** Reads and queues the parents of a commit outside the graph that are not queued yet. */
  private async queueReadParents(commit: CommitRecord, queue: CommitQueue<CommitRecord>, seen: Set<number | string>) {
    const repository = this.repository;
    for (const id of commit.parents) {
      if (seen.has(id)) continue;
      seen.add(id);
      const parent = await requireCommit(repository, id);
      // A parent the graph lists may also be reached by position from another commit.
      const key = repository.commitKey(parent);
      if (key !== id) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      queue.push(parent, parent);
    }
  }

  async *commits(): AsyncGenerator<CommitRecord> {
    const { since, signal } = this.options;
    const scope = this.options.simplify ?? "";
    const repository = this.repository;
    const queue = new CommitQueue<CommitRecord>();
    // Commits from the graph are known by position, the others by id: no id turned into text to walk.
    const seen = new Set<number | string>([repository.commitKey(this.start)]);
    const synchronous = repository.rawReads;
    const maybeShallow = repository.shallow.size > 0;
    queue.push(this.start, this.start);
    for (let commit = queue.pop(); commit !== undefined; commit = queue.pop()) {
      if (since !== undefined && commit.time < since) continue;
      if (++this.scanned % 256 === 0) await yieldToEventLoop(signal);
      const shallow = maybeShallow && repository.isShallow(commit.oid);
      let same = false;
      let parents: readonly CommitRecord[] | undefined;
      let only = -1;
      if (scope !== "" && !shallow) {
        if (synchronous && commit instanceof GraphCommit) {
          only = this.simplifiedSync(commit, scope);
          same = only >= 0;
        } else ({ parents, same } = await this.simplified(commit, scope));
      }
      if (!same) yield commit;
      if (shallow) {
        this.shallowBoundary ??= commit.oid;
        continue;
      }
      if (only >= 0) this.queueGraphParent(commit as GraphCommit, only, queue, seen);
      else if (!this.queueKnownParents(commit, parents, queue, seen)) await this.queueReadParents(commit, queue, seen);
    }
  }
}

/** What simplification keeps of a commit: the parents to follow (`undefined`: all) and whether it is TREESAME. */
interface Simplified {
  readonly parents: readonly CommitRecord[] | undefined;
  readonly same: boolean;
}

const CHANGED: Simplified = { parents: undefined, same: false };
