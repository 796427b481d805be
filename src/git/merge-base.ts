import { gitError, shallowCloneError } from "./git-errors.js";
import { CommitQueue } from "./history/commit-walk.js";
import type { CommitRecord } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";

const FROM_LEFT = 1;
const FROM_RIGHT = 2;
const BOTH = FROM_LEFT | FROM_RIGHT;
/** Reached from a merge base already found: no better base lies behind it. */
const STALE = 4;
const FOUND = 8;

interface Painting {
  /** The commits reached from both sides and from no such commit, newest first (git's order). */
  readonly common: CommitRecord[];
  readonly marks: Map<number | string, number>;
  readonly shallowBoundary: string | undefined;
}

/**
 * git's `paint_down_to_common` (commit-reach.c): `one` and `others` are walked newest commit first
 * (committer time; equal times in the order queued), each commit marked with the sides that reach
 * it; a commit reached from both is a candidate, and what lies behind it is stale. The walk stops
 * when only stale commits are queued, so with commit times out of order a candidate may still be
 * an ancestor of another one: {@link removeRedundant} drops those, as git does.
 */
async function paintDownToCommon(
  repository: GitRepository,
  one: CommitRecord,
  others: readonly CommitRecord[],
  signal: AbortSignal | undefined,
): Promise<Painting> {
  const marks = new Map<number | string, number>();
  const flags = (commit: CommitRecord) => marks.get(repository.commitKey(commit)) ?? 0;
  // Like git's prio_queue, a commit may be queued more than once (when it gains a side while queued).
  const queue = new CommitQueue<CommitRecord>();
  const enqueue = (commit: CommitRecord): void => queue.push(commit, commit);
  marks.set(repository.commitKey(one), FROM_LEFT);
  enqueue(one);
  for (const other of others) {
    marks.set(repository.commitKey(other), flags(other) | FROM_RIGHT);
    enqueue(other);
  }
  const common: CommitRecord[] = [];
  let shallowBoundary: string | undefined;
  for (let step = 1; queue.some((commit) => (flags(commit) & STALE) === 0); step++) {
    if (step % 256 === 0) signal?.throwIfAborted();
    const commit = queue.pop() as CommitRecord;
    let sides = flags(commit) & (BOTH | STALE);
    if (sides === BOTH) {
      if ((flags(commit) & FOUND) === 0) {
        marks.set(repository.commitKey(commit), flags(commit) | FOUND);
        insertByDate(common, commit);
      }
      sides |= STALE;
    }
    if (repository.isShallow(commit.oid)) {
      shallowBoundary ??= commit.oid;
      continue;
    }
    for (const parent of await repository.parentsOf(commit)) {
      const had = flags(parent);
      if ((had & sides) === sides) continue;
      marks.set(repository.commitKey(parent), had | sides);
      enqueue(parent);
    }
  }
  return { common: common.filter((commit) => (flags(commit) & STALE) === 0), marks, shallowBoundary };
}

/** git's `commit_list_insert_by_date`: newest first, after those of the same time. */
function insertByDate(list: CommitRecord[], commit: CommitRecord): void {
  let at = list.length;
  while (at > 0 && (list[at - 1] as CommitRecord).time < commit.time) at--;
  list.splice(at, 0, commit);
}

/**
 * git's `remove_redundant` (without a commit-graph's generation numbers): each candidate is painted
 * against the others still standing; one the others reach, or that reaches one of them, goes.
 * The survivors keep their order.
 */
async function removeRedundant(
  repository: GitRepository,
  candidates: readonly CommitRecord[],
  signal: AbortSignal | undefined,
): Promise<CommitRecord[]> {
  const redundant = candidates.map(() => false);
  for (const [index, candidate] of candidates.entries()) {
    if (redundant[index]) continue;
    const others = candidates.map((other, at) => ({ other, at })).filter(({ at }) => at !== index && !redundant[at]);
    const painting = await paintDownToCommon(
      repository,
      candidate,
      others.map(({ other }) => other),
      signal,
    );
    const flags = (commit: CommitRecord) => painting.marks.get(repository.commitKey(commit)) ?? 0;
    if ((flags(candidate) & FROM_RIGHT) !== 0) redundant[index] = true;
    for (const { other, at } of others) if ((flags(other) & FROM_LEFT) !== 0) redundant[at] = true;
  }
  return candidates.filter((_, index) => !redundant[index]);
}

/**
 * Every best common ancestor of two commits, in the order `git merge-base --all` prints them
 * (newest first; `git diff A...B` uses the first): git's `get_merge_bases`, a paint down to the
 * common commits, then the removal of any that is an ancestor of another.
 * @throws ToolError `no_merge_base` when the two share no history; `shallow_clone` when a shallow
 *   boundary cut the walk before a common commit was found.
 */
export async function mergeBases(
  repository: GitRepository,
  left: CommitRecord,
  right: CommitRecord,
  label: string,
  signal?: AbortSignal,
): Promise<CommitRecord[]> {
  if (left.oid === right.oid) return [left];
  const { common, shallowBoundary } = await paintDownToCommon(repository, left, [right], signal);
  if (common.length > 1) {
    const kept = await removeRedundant(repository, common, signal);
    const ordered: CommitRecord[] = [];
    for (const commit of kept) insertByDate(ordered, commit);
    return ordered;
  }
  if (common.length === 1) return common;
  if (shallowBoundary !== undefined) throw shallowCloneError(shallowBoundary, `the merge base of ${label} cannot be found`);
  throw gitError(
    "no_merge_base",
    `${label}: the two sides share no history (no merge base), so there is no fork point to diff from.`,
    "Compare the two revisions directly: from and to, or a range with two dots (A..B).",
  );
}
