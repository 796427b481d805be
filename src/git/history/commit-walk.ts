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
      // A swap through a temporary: array destructuring runs the iterator protocol, slow in code still cold.
      const moved = heap[index] as Queued<Item>;
      heap[index] = heap[parent] as Queued<Item>;
      heap[parent] = moved;
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
      const moved = heap[index] as Queued<Item>;
      heap[index] = heap[best] as Queued<Item>;
      heap[best] = moved;
      index = best;
    }
    return top.item;
  }
}

/** {@link CommitWalk.nextSync}'s answer when {@link CommitWalk.next} must be awaited for the next commit. */
export const WALK_PENDING: unique symbol = Symbol("walk pending");

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

  /** The queue of commits to visit and the keys of those queued; made on the first step. */
  private state: { readonly queue: CommitQueue<CommitRecord>; readonly seen: Set<number | string> } | undefined;
  /** The commit returned last, whose parents are queued on the next step (a caller that stops never reads them). */
  private settled:
    | { readonly commit: CommitRecord; readonly parents: readonly CommitRecord[] | undefined; readonly only: number }
    | undefined;
  /** A commit taken from the queue and counted, not yet simplified. */
  private held: CommitRecord | undefined;
  /** What {@link next} must await before the next step: a turn of the event loop, a read of the settled commit's parents, or simplifying {@link held} asynchronously. */
  private awaiting: "turn" | "simplify" | "parents" | undefined;

  /**
   * The next commit of the walk when no await is needed to reach it (graph commits on a
   * synchronous store), `undefined` at the end, or {@link WALK_PENDING} when {@link next} must be
   * awaited (every 256th commit yields to the event loop; reads outside the graph are
   * asynchronous). A walk of 20,000 commits through an async generator allocated a promise and an
   * iterator result per commit, and a tool's awaited match per commit another promise, in code
   * that runs cold in a new process.
   */
  nextSync(): CommitRecord | undefined | typeof WALK_PENDING {
    if (this.awaiting !== undefined) return WALK_PENDING;
    const scope = this.options.simplify ?? "";
    const repository = this.repository;
    const { queue, seen } = this.walkState();
    for (;;) {
      if (!this.queueSettled(queue, seen)) return WALK_PENDING;
      const commit = this.take(queue);
      if (commit === undefined || commit === WALK_PENDING) return commit;
      if (repository.shallow.size > 0 && repository.isShallow(commit.oid)) {
        this.shallowBoundary ??= commit.oid;
        // Its parents are missing: nothing is queued after it.
        return commit;
      }
      let only = -1;
      if (scope !== "") {
        if (!(repository.rawReads && commit instanceof GraphCommit)) {
          this.held = commit;
          this.awaiting = "simplify";
          return WALK_PENDING;
        }
        only = this.simplifiedSync(commit, scope);
      }
      this.settled = { commit, parents: undefined, only };
      if (only < 0) return commit;
    }
  }

  /** The queue and the keys queued, made on the first step. */
  private walkState(): NonNullable<CommitWalk["state"]> {
    if (this.state !== undefined) return this.state;
    const queue = new CommitQueue<CommitRecord>();
    queue.push(this.start, this.start);
    // Commits from the graph are known by position, the others by id: no id turned into text to walk.
    this.state = { queue, seen: new Set<number | string>([this.repository.commitKey(this.start)]) };
    return this.state;
  }

  /** Queues the parents of the commit returned last; false when they must be read first (an await). */
  private queueSettled(queue: CommitQueue<CommitRecord>, seen: Set<number | string>): boolean {
    const settled = this.settled;
    if (settled === undefined) return true;
    if (settled.only >= 0) this.queueGraphParent(settled.commit as GraphCommit, settled.only, queue, seen);
    else if (!this.queueKnownParents(settled.commit, settled.parents, queue, seen)) {
      this.awaiting = "parents";
      return false;
    }
    this.settled = undefined;
    return true;
  }

  /** The held commit, or the next one in the queue within `since`, counted; pending on every 256th (a turn of the event loop first). */
  private take(queue: CommitQueue<CommitRecord>): CommitRecord | undefined | typeof WALK_PENDING {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      return held;
    }
    const { since } = this.options;
    for (let commit = queue.pop(); commit !== undefined; commit = queue.pop()) {
      if (since !== undefined && commit.time < since) continue;
      if (++this.scanned % 256 === 0) {
        this.held = commit;
        this.awaiting = "turn";
        return WALK_PENDING;
      }
      return commit;
    }
    return undefined;
  }

  /** {@link nextSync} with its awaits done: the next commit, or `undefined` at the end. */
  async next(): Promise<CommitRecord | undefined> {
    for (;;) {
      const found = this.nextSync();
      if (found !== WALK_PENDING) return found;
      const awaiting = this.awaiting;
      this.awaiting = undefined;
      if (awaiting === "turn") await yieldToEventLoop(this.options.signal);
      else if (awaiting === "parents") {
        const { commit } = this.settled as NonNullable<typeof this.settled>;
        this.settled = undefined;
        const { queue, seen } = this.state as NonNullable<typeof this.state>;
        await this.queueReadParents(commit, queue, seen);
      } else {
        const commit = this.held as CommitRecord;
        this.held = undefined;
        const { parents, same } = await this.simplified(commit, this.options.simplify ?? "");
        this.settled = { commit, parents, only: -1 };
        if (!same) return commit;
      }
    }
  }

  /** Every commit of the walk ({@link next} in a loop). */
  async *commits(): AsyncGenerator<CommitRecord> {
    for (let commit = await this.next(); commit !== undefined; commit = await this.next()) yield commit;
  }
}

/** What simplification keeps of a commit: the parents to follow (`undefined`: all) and whether it is TREESAME. */
interface Simplified {
  readonly parents: readonly CommitRecord[] | undefined;
  readonly same: boolean;
}

const CHANGED: Simplified = { parents: undefined, same: false };
