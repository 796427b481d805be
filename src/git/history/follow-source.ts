import type { CommitRecord } from "../objects/parse-objects.js";
import type { GitRepository } from "../repository.js";
import { yieldToEventLoop } from "../yield-to-event-loop.js";
import { baseTree, commitChanges } from "./commit-changes.js";
import {
  basename,
  CANDIDATES_PER_DESTINATION,
  compareScores,
  estimate,
  IDENTICAL_ALTERNATIVES,
  isRegular,
  MAX_COMPARED_BYTES,
  MINIMUM_SCORE,
  RENAME_LIMIT,
  type Score,
  type Side,
} from "./renames.js";
import { diffTrees } from "./tree-diff.js";

/** Where a file added by a commit came from, as `git log --follow` finds it. */
export interface FollowedSource {
  /** `R`: the source was deleted by the commit (a rename); `C`: it stayed (a copy). */
  readonly status: "R" | "C";
  /** The source's path in the commit's first parent. */
  readonly previousPath: string;
  /** The source's blob and mode there. */
  readonly oldOid: string;
  readonly oldMode: string;
}

/** A source candidate: a file of the parent, and whether the commit deleted it (a rename, not a copy). */
interface Source extends Side {
  readonly deleted: boolean;
}

/**
 * git's `find_identical_files`: an unused (deleted) source first, then a shared basename, then the
 * first by path, among the first {@link IDENTICAL_ALTERNATIVES} identical sources only (past them
 * git picks from those it saw: a deleted file further on is not found, and the answer is a copy).
 */
function identical(sources: readonly Source[], target: Side): Source | undefined {
  let best: Source | undefined;
  let bestScore = -1;
  let left = IDENTICAL_ALTERNATIVES;
  for (const source of sources) {
    if (source.oid !== target.oid) continue;
    if ((!isRegular(source.mode) || !isRegular(target.mode)) && source.mode !== target.mode) continue;
    const score = Number(source.deleted) + Number(basename(source.path) === basename(target.path));
    if (score > bestScore) [best, bestScore] = [source, score];
    if (score === 2 || --left === 0) break;
  }
  return best;
}

/** Candidates compared between two yields to the event loop (most cost one object header). */
const CANDIDATES_PER_YIELD = 64;
/** Content read between two yields: one large candidate's chunk hashing is itself long. */
const BYTES_PER_YIELD = 4 * 1024 * 1024;
/**
 * Blob content the copy search of one commit reads, at most (plus one blob of at most
 * {@link MAX_COMPARED_BYTES}). git has no such bound (only `diff.renameLimit` on the number of
 * candidates); sizes rule most candidates out before their content is read, so only many large
 * files of nearly the target's size reach it. Past it, the candidates left are not compared:
 * the best source found so far stands.
 */
export const FOLLOW_COMPARED_BYTES = 256 * 1024 * 1024;

/**
 * git's inexact pass for one destination: the four best sources (git's score matrix row), sorted;
 * a deleted source at 50% or more first (a rename), else any source (a copy). No basename pass:
 * git skips it when it looks for copies. Sizes come from object headers, so a candidate the size
 * rule excludes costs no content; the search yields to the event loop and stops on `signal`.
 */
async function similar(
  repository: GitRepository,
  sources: readonly Source[],
  target: Side,
  signal: AbortSignal,
): Promise<Source | undefined> {
  const best: Score[] = [];
  let read = 0;
  let readSinceYield = 0;
  for (const [index, source] of sources.entries()) {
    if ((index + 1) % CANDIDATES_PER_YIELD === 0 || readSinceYield > BYTES_PER_YIELD) {
      await yieldToEventLoop(signal);
      readSinceYield = 0;
    }
    if (read > FOLLOW_COMPARED_BYTES) break;
    const unread = [source, target].filter((side) => side.chunks === undefined);
    const candidate: Score = {
      source: index,
      target: 0,
      score: await estimate(repository, source, target),
      sameName: basename(source.path) === basename(target.path),
    };
    for (const side of unread) {
      if (side.chunks === undefined) continue;
      read += side.size ?? 0;
      readSinceYield += side.size ?? 0;
    }
    // git's unused slots sink below every candidate, one scoring 0 (an empty file) too: the first
    // four fill them in order. An empty slot compared as a score of 0 kept such a candidate out, and
    // a later tie took its slot, not the place git gives it (copy-source-ties, seed 2002).
    if (best.length < CANDIDATES_PER_DESTINATION) {
      best.push(candidate);
      continue;
    }
    let worst = 0;
    for (let slot = 1; slot < best.length; slot++) {
      if (compareScores(best[slot] as Score, best[worst] as Score) > 0) worst = slot;
    }
    if (compareScores(best[worst] as Score, candidate) > 0) best[worst] = candidate;
  }
  const ranked = best.filter((entry) => entry.score >= MINIMUM_SCORE);
  ranked.sort(compareScores);
  const renamed = ranked.find((entry) => sources[entry.source]?.deleted === true);
  const chosen = renamed ?? ranked[0];
  return chosen === undefined ? undefined : sources[chosen.source];
}

/**
 * The file `path` was renamed or copied from in `commit`, which added it, found as `git log
 * --follow` finds it (`try_to_follow_renames`: rename detection with `--find-copies-harder`, the
 * path the only destination): every file of the first parent is a source, those the commit
 * deleted are preferred (a rename), then any other, changed or not (a copy), exact copies before
 * similar ones (50% or more, git's estimate; candidates compared within {@link FOLLOW_COMPARED_BYTES}). With
 * `replacedDirectory` (the file replaced a directory of its name) only that directory's files are
 * sources. `undefined` for a root commit, or when nothing is similar enough.
 */
export async function followedSource(
  repository: GitRepository,
  commit: CommitRecord,
  path: string,
  signal: AbortSignal,
  replacedDirectory = false,
): Promise<FollowedSource | undefined> {
  const base = await baseTree(repository, commit);
  if (base === undefined) return undefined;
  const changes = await commitChanges(repository, commit, "");
  const added = changes.find((change) => change.path === path && change.oldOid === undefined);
  // A submodule entry is followed too, to an exact source only (git's similarity of a non-file is 0).
  if (added?.newOid === undefined) return undefined;
  const target: Side = { change: added, path, oid: added.newOid, mode: added.newMode ?? "100644", used: false };
  const deleted = new Set(changes.filter((change) => change.newOid === undefined).map((change) => change.path));
  const changed = new Set(changes.filter((change) => change.oldOid !== undefined).map((change) => change.path));
  const sources: Source[] = [];
  for (const file of await diffTrees(repository, undefined, base, "")) {
    if (file.newOid === undefined) continue;
    // A file that replaced a directory of its name: git 2.39 finds its source only among that
    // directory's files (a rename or copy from anywhere else is not followed; checked against
    // `git log --follow`, property test seed 3001).
    if (replacedDirectory && !file.path.startsWith(`${path}/`)) continue;
    sources.push({
      change: file,
      path: file.path,
      oid: file.newOid,
      mode: file.newMode ?? "100644",
      used: false,
      deleted: deleted.has(file.path),
    });
  }
  let source = identical(sources, target);
  // git's rename limit (`too_many_rename_candidates`, one destination): past it, only the files
  // the commit changed or deleted are compared (`degraded_cc_to_c`); past it again, none.
  if (source === undefined) {
    const compared = sources.length <= RENAME_LIMIT * RENAME_LIMIT ? sources : sources.filter((side) => changed.has(side.path));
    if (compared.length <= RENAME_LIMIT * RENAME_LIMIT) source = await similar(repository, compared, target, signal);
  }
  if (source === undefined) return undefined;
  return { status: source.deleted ? "R" : "C", previousPath: source.path, oldOid: source.oid, oldMode: source.mode };
}
