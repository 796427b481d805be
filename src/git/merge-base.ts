import { gitError, shallowCloneError } from "./git-errors.js";
import type { CommitRecord } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";

const FROM_LEFT = 1;
const FROM_RIGHT = 2;
const BOTH = FROM_LEFT | FROM_RIGHT;
/** Reached from a merge base already found: no better base lies behind it. */
const STALE = 4;
const FOUND = 8;

/**
 * The best common ancestor of two commits, as `git merge-base` finds it (and `git diff A...B`
 * uses): both sides are walked newest commit first, each commit marked with the sides that reach
 * it; the first commits reached from both are the candidates, and a candidate reached from another
 * one is dropped. Of several, the newest is taken, as `git diff` takes the first it lists.
 * @throws ToolError `no_merge_base` when the two share no history; `shallow_clone` when a shallow
 *   boundary cut the walk before a common commit was found.
 */
export async function mergeBase(
  repository: GitRepository,
  left: CommitRecord,
  right: CommitRecord,
  label: string,
  signal?: AbortSignal,
): Promise<CommitRecord> {
  if (left.oid === right.oid) return left;
  const marks = new Map<number | string, number>();
  const queue: CommitRecord[] = [];
  const push = (commit: CommitRecord, sides: number): void => {
    const key = repository.commitKey(commit);
    const had = marks.get(key) ?? 0;
    if ((had & sides) === sides) return;
    marks.set(key, had | sides);
    // Newest first by committer time, as git's walk; a commit already queued is not queued twice.
    if (had !== 0 && queue.includes(commit)) return;
    let at = queue.length;
    while (at > 0 && (queue[at - 1] as CommitRecord).time < commit.time) at--;
    queue.splice(at, 0, commit);
  };
  push(left, FROM_LEFT);
  push(right, FROM_RIGHT);
  const found: CommitRecord[] = [];
  let shallowBoundary: string | undefined;
  for (let step = 1; queue.some((commit) => ((marks.get(repository.commitKey(commit)) ?? 0) & STALE) === 0); step++) {
    if (step % 256 === 0) signal?.throwIfAborted();
    const commit = queue.shift() as CommitRecord;
    const key = repository.commitKey(commit);
    let sides = (marks.get(key) ?? 0) & (BOTH | STALE);
    if ((sides & BOTH) === BOTH && (sides & STALE) === 0) {
      marks.set(key, (marks.get(key) ?? 0) | FOUND);
      found.push(commit);
      sides |= STALE;
    }
    if (repository.isShallow(commit.oid)) {
      shallowBoundary ??= commit.oid;
      continue;
    }
    for (const parent of await repository.parentsOf(commit)) push(parent, sides);
  }
  const bases = found.filter((commit) => ((marks.get(repository.commitKey(commit)) ?? 0) & STALE) === 0);
  const [newest] = bases.sort((a, b) => b.time - a.time);
  if (newest !== undefined) return newest;
  if (shallowBoundary !== undefined) throw shallowCloneError(shallowBoundary, `the merge base of ${label} cannot be found`);
  throw gitError(
    "no_merge_base",
    `${label}: the two sides share no history (no merge base), so there is no fork point to diff from.`,
    "Compare the two revisions directly: from and to, or a range with two dots (A..B).",
  );
}
