import type { GitRepository } from "../repository.js";
import { Pacer } from "../yield-to-event-loop.js";
import type { FileChange } from "./tree-diff.js";

/**
 * How a path changed, as `git diff --name-status` says: added, deleted, modified, renamed (from
 * `previousPath`), or its type changed (`T`: a file became a symlink or a submodule, or back).
 *
 * @public
 */
export type ChangeStatus = "A" | "D" | "M" | "R" | "T";

/** A {@link FileChange} with its status and, for a rename, where it came from. */
export interface ResolvedChange extends FileChange {
  /** The status letter, as in `git diff --name-status`. */
  readonly status: ChangeStatus;
  /** For a rename: the old path (`path` is the new one). */
  readonly previousPath?: string;
  /** For a rename: the similarity, 0-100, estimated like git's (100 for an exact rename). */
  readonly similarity?: number;
}

/** git's `MAX_SCORE`: similarity scores run from 0 to this. */
const MAX_SCORE = 60_000;
/** git's default `-M50%`. */
export const MINIMUM_SCORE = MAX_SCORE / 2;
/** git's basename pass asks for more: half way between the minimum and identical. */
const MINIMUM_BASENAME_SCORE = MINIMUM_SCORE + MAX_SCORE / 4;
/**
 * git's default `diff.renameLimit` (since git 2.33): inexact detection runs only while
 * sources x destinations <= 1000 x 1000, after exact and basename pairs are taken out.
 */
export const RENAME_LIMIT = 1000;
/** git keeps the four best sources per destination in its score matrix. */
export const CANDIDATES_PER_DESTINATION = 4;
/** Blobs above this size are not compared for inexact renames (memory bound; git has none). */
export const MAX_COMPARED_BYTES = 64 * 1024 * 1024;
/** git's `HASHBASE` for content chunks (diffcore-delta). */
const HASHBASE = 107_927;

/** The mode of a submodule entry (a commit id in a tree): renamed only exactly (git's similarity of a non-file is 0). */
export const GITLINK = "160000";

/** The file type bits of a git mode (`S_IFMT`): regular file, symlink, gitlink or tree. */
const fileType = (mode: string) => Number.parseInt(mode, 8) & 0o170000;

/**
 * Whether a path present on both sides changed its type (git's `DIFF_PAIR_TYPE_CHANGED`): a
 * regular file became a symlink or a submodule, or back. An executable bit alone is no type change.
 */
export function isTypeChange(oldMode: string | undefined, newMode: string | undefined): boolean {
  return oldMode !== undefined && newMode !== undefined && fileType(oldMode) !== fileType(newMode);
}

function statusOf(change: FileChange): ChangeStatus {
  if (change.oldOid === undefined) return "A";
  if (change.newOid === undefined) return "D";
  return isTypeChange(change.oldMode, change.newMode) ? "T" : "M";
}

/** A regular file, executable or not (not a symlink or a submodule). */
export const isRegular = (mode: string | undefined) => mode === "100644" || mode === "100755";

/** git's binary guess for rename scoring: a NUL in the first 8000 bytes. */
function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/**
 * Reused scratch for chunk hashing: a count per bucket and the list of buckets touched, so that
 * hashing a blob allocates nothing but its result (a `Map` per blob, thousands of them in a wide
 * copy search, was most of that search's garbage).
 */
const scratch = { counts: new Uint32Array(0), touched: new Uint32Array(0) };

/**
 * Chunk counts of a blob exactly as git's `diffcore-delta` computes them: a chunk ends at a
 * newline or after 64 bytes, is hashed into one of 107,927 buckets (collisions merge, as in git),
 * CR before LF is skipped in text, and a last chunk without a newline is not counted. Returned as
 * git's spanhash holds them in effect: (bucket, bytes) pairs, sorted by bucket, side by side in
 * one array.
 */
function signature(content: Buffer): Uint32Array {
  if (scratch.counts.length === 0) [scratch.counts, scratch.touched] = [new Uint32Array(HASHBASE), new Uint32Array(HASHBASE)];
  const { counts, touched } = scratch;
  let buckets = 0;
  const text = !isBinary(content);
  let accum1 = 0;
  let accum2 = 0;
  let n = 0;
  const size = content.length;
  for (let index = 0; index < size; index++) {
    const c = content[index] as number;
    if (text && c === 0x0d && index + 1 < size && content[index + 1] === 0x0a) continue;
    const old1 = accum1;
    accum1 = (((accum1 << 7) ^ (accum2 >>> 25)) + c) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    if (++n < 64 && c !== 0x0a) continue;
    const hash = ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
    if (counts[hash] === 0) touched[buckets++] = hash;
    counts[hash] = (counts[hash] as number) + n;
    n = 0;
    accum1 = 0;
    accum2 = 0;
  }
  const order = touched.subarray(0, buckets).sort();
  const pairs = new Uint32Array(buckets * 2);
  for (let index = 0; index < buckets; index++) {
    const hash = order[index] as number;
    pairs[index * 2] = hash;
    pairs[index * 2 + 1] = counts[hash] as number;
    counts[hash] = 0;
  }
  return pairs;
}

/** git's `count_changes` on two signatures: the bytes of chunks the two have in common (per bucket, the smaller count). */
function sharedBytes(source: Uint32Array, target: Uint32Array): number {
  let copied = 0;
  let [x, y] = [0, 0];
  while (x < source.length && y < target.length) {
    const [a, b] = [source[x] as number, target[y] as number];
    if (a === b) {
      copied += Math.min(source[x + 1] as number, target[y + 1] as number);
      x += 2;
      y += 2;
    } else if (a < b) x += 2;
    else y += 2;
  }
  return copied;
}

/** One side of a candidate pair: a path, its blob and mode, and its chunk counts once measured. */
export interface Side {
  readonly change: FileChange;
  readonly path: string;
  readonly oid: string;
  readonly mode: string;
  used: boolean;
  /** Its signature ((bucket, bytes) pairs sorted by bucket), once measured. */
  chunks?: Uint32Array | undefined;
  size?: number | undefined;
}

/**
 * The side's size, from the object header (its content is not read for this), or `undefined`
 * when it is too large to compare. git reads sizes first too (`check_size_only`), so a pair the
 * sizes rule out costs no content.
 */
async function sizeOf(repository: GitRepository, side: Side): Promise<number | undefined> {
  side.size ??= await repository.blobSize(side.oid);
  return side.size > MAX_COMPARED_BYTES ? undefined : side.size;
}

async function measure(repository: GitRepository, side: Side): Promise<void> {
  side.chunks ??= signature(await repository.blob(side.oid));
}

/**
 * git's size rule in `estimate_similarity`: two files whose sizes differ by more than the
 * minimum score allows (`max_size * (MAX_SCORE - minimum_score) < delta_size * MAX_SCORE`, at
 * 50% one under half the other's size) cannot reach it, so they are not compared. An empty
 * destination is never similar.
 */
export function sizesCanMatch(sourceSize: number, targetSize: number): boolean {
  const larger = Math.max(sourceSize, targetSize);
  const delta = larger - Math.min(sourceSize, targetSize);
  return targetSize > 0 && larger * (MAX_SCORE - MINIMUM_SCORE) >= delta * MAX_SCORE;
}

/**
 * git's `estimate_similarity`: 0..60000, 0 when the sizes alone rule the pair out (told from the
 * object headers, before any content is read) or a side is over {@link MAX_COMPARED_BYTES}.
 */
export async function estimate(repository: GitRepository, source: Side, target: Side): Promise<number> {
  if (!isRegular(source.mode) || !isRegular(target.mode)) return 0;
  const targetSize = await sizeOf(repository, target);
  const sourceSize = targetSize === undefined ? undefined : await sizeOf(repository, source);
  if (sourceSize === undefined || targetSize === undefined || !sizesCanMatch(sourceSize, targetSize)) return 0;
  await measure(repository, source);
  await measure(repository, target);
  const copied = sharedBytes(source.chunks as Uint32Array, target.chunks as Uint32Array);
  return Math.floor((copied * MAX_SCORE) / Math.max(sourceSize, targetSize));
}

/** The last path component. */
export function basename(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}

function renamed(source: FileChange, target: FileChange, score: number): ResolvedChange {
  return {
    path: target.path,
    previousPath: source.path,
    status: "R",
    similarity: Math.floor((score * 100) / MAX_SCORE),
    ...(source.oldOid === undefined ? {} : { oldOid: source.oldOid }),
    ...(source.oldMode === undefined ? {} : { oldMode: source.oldMode }),
    ...(target.newOid === undefined ? {} : { newOid: target.newOid }),
    ...(target.newMode === undefined ? {} : { newMode: target.newMode }),
  };
}

class Pairing {
  readonly pairs = new Map<FileChange, ResolvedChange>();

  pair(source: Side, target: Side, score: number): void {
    source.used = true;
    this.pairs.set(target.change, renamed(source.change, target.change, score));
    this.pairs.set(source.change, renamed(source.change, target.change, score));
  }

  isPaired(side: Side): boolean {
    return this.pairs.has(side.change);
  }
}

/**
 * git's `find_identical_files` looks at this many identical sources for one destination, at most
 * ("Too many identical alternatives? Pick one"): past them, the best seen so far stands, even when
 * one further on shares the destination's basename or was deleted.
 */
export const IDENTICAL_ALTERNATIVES = 100;

/**
 * The best unused identical source for `target` among the first {@link IDENTICAL_ALTERNATIVES}
 * unused ones (by path): one with the same basename first, else the first.
 */
function identicalSource(candidates: readonly Side[], target: Side): Side | undefined {
  let best: Side | undefined;
  let left = IDENTICAL_ALTERNATIVES;
  for (const source of candidates) {
    if (source.used) continue;
    if ((!isRegular(source.mode) || !isRegular(target.mode)) && source.mode !== target.mode) continue;
    if (basename(source.path) === basename(target.path)) return source;
    best ??= source;
    if (--left === 0) break;
  }
  return best;
}

/** git's `find_exact_renames`: per destination (by path), an unused identical source. */
function pairExact(sources: readonly Side[], targets: readonly Side[], pairing: Pairing): void {
  const byOid = new Map<string, Side[]>();
  for (const source of sources) {
    const list = byOid.get(source.oid);
    if (list === undefined) byOid.set(source.oid, [source]);
    else list.push(source);
  }
  for (const target of targets) {
    const best = identicalSource(byOid.get(target.oid) ?? [], target);
    if (best !== undefined) pairing.pair(best, target, MAX_SCORE);
  }
}

/** git's `find_basename_matches`: a basename unique among the remaining sources and destinations pairs when similar enough. */
async function pairBasenames(
  repository: GitRepository,
  sources: Side[],
  targets: Side[],
  pairing: Pairing,
  pacer: Pacer | undefined,
) {
  const unique = (sides: readonly Side[]) => {
    const found = new Map<string, Side | null>();
    for (const side of sides) {
      const name = basename(side.path);
      found.set(name, found.has(name) ? null : side);
    }
    return found;
  };
  const sourceNames = unique(sources);
  const targetNames = unique(targets);
  for (const source of sources) {
    const name = basename(source.path);
    const target = targetNames.get(name);
    if (sourceNames.get(name) !== source || target === undefined || target === null || pairing.isPaired(target)) continue;
    const score = await estimate(repository, source, target);
    await pacer?.step();
    if (score >= MINIMUM_BASENAME_SCORE) pairing.pair(source, target, score);
  }
}

/** A candidate pair in git's score matrix. */
export interface Score {
  readonly source: number;
  readonly target: number;
  readonly score: number;
  readonly sameName: boolean;
}

/** git's `score_compare`: higher score first, then a shared basename. */
export function compareScores(x: Score, y: Score): number {
  return x.score === y.score ? Number(y.sameName) - Number(x.sameName) : y.score - x.score;
}

/** git's inexact pass: the four best sources per destination, then the best pairs overall, greedily. */
async function pairInexact(
  repository: GitRepository,
  sources: Side[],
  targets: Side[],
  pairing: Pairing,
  pacer: Pacer | undefined,
) {
  const matrix: Score[] = [];
  for (const [targetIndex, target] of targets.entries()) {
    const best: Score[] = [];
    for (const [sourceIndex, source] of sources.entries()) {
      const candidate: Score = {
        source: sourceIndex,
        target: targetIndex,
        score: await estimate(repository, source, target),
        sameName: basename(source.path) === basename(target.path),
      };
      await pacer?.step();
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
    matrix.push(...best);
  }
  // Array.prototype.sort is stable, like the merge sort glibc's qsort uses here.
  matrix.sort(compareScores);
  for (const entry of matrix) {
    if (entry.score < MINIMUM_SCORE) break;
    const [source, target] = [sources[entry.source] as Side, targets[entry.target] as Side];
    if (pairing.isPaired(target) || source.used) continue;
    pairing.pair(source, target, entry.score);
  }
}

/**
 * Pairs deleted and added paths into renames as `git diff -M` does by default (git 2.33+):
 * identical blobs first (a source with the same basename preferred), then files whose basename
 * is unique on both sides and at least 75% similar, then, while sources x destinations stay
 * within {@link RENAME_LIMIT} squared, the most similar pairs of at least 50% (four best sources
 * kept per destination, as git does). Similarity is git's own chunk-hash estimate. Copies (`-C`)
 * are not detected. With `signal`, the comparisons yield to the event loop (every 8 ms of work)
 * and stop when it is aborted: a range with thousands of added and deleted files compares up to
 * a million pairs.
 */
export async function detectRenames(
  repository: GitRepository,
  changes: readonly FileChange[],
  signal?: AbortSignal,
): Promise<ResolvedChange[]> {
  const pacer = signal === undefined ? undefined : new Pacer(signal);
  const sources: Side[] = [];
  const targets: Side[] = [];
  for (const change of changes) {
    // Submodule entries too, as in git: only an exact pair (same commit) can join them, since the
    // similarity of anything but two regular files is 0; they count in the basename and limit passes.
    if (change.newOid === undefined && change.oldOid !== undefined)
      sources.push({ change, path: change.path, oid: change.oldOid, mode: change.oldMode ?? "100644", used: false });
    if (change.oldOid === undefined && change.newOid !== undefined)
      targets.push({ change, path: change.path, oid: change.newOid, mode: change.newMode ?? "100644", used: false });
  }
  const pairing = new Pairing();
  if (sources.length > 0 && targets.length > 0) {
    pairExact(sources, targets, pairing);
    let left = sources.filter((side) => !side.used);
    let right = targets.filter((side) => !pairing.isPaired(side));
    if (left.length > 0 && right.length > 0) {
      await pairBasenames(repository, left, right, pairing, pacer);
      left = left.filter((side) => !side.used);
      right = right.filter((side) => !pairing.isPaired(side));
      if (left.length > 0 && right.length > 0 && left.length * right.length <= RENAME_LIMIT * RENAME_LIMIT)
        await pairInexact(repository, left, right, pairing, pacer);
    }
  }
  const resolved: ResolvedChange[] = [];
  for (const change of changes) {
    const pair = pairing.pairs.get(change);
    if (pair === undefined) resolved.push({ ...change, status: statusOf(change) });
    else if (change.oldOid === undefined) resolved.push(pair);
  }
  return resolved;
}
