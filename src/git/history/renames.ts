import type { GitRepository } from "../repository.js";
import type { FileChange } from "./tree-diff.js";

/** How a path changed: added, deleted, modified, or renamed (from `previousPath`). */
export type ChangeStatus = "A" | "D" | "M" | "R";

/** A {@link FileChange} with its status and, for a rename, where it came from. */
export interface ResolvedChange extends FileChange {
  /** The status letter, as in `git diff --name-status`. */
  readonly status: ChangeStatus;
  /** For a rename: the old path (`path` is the new one). */
  readonly previousPath?: string;
  /** For a rename: the similarity, 0-100, estimated like git's (100 for an exact rename). */
  readonly similarity?: number;
}

/** git's default `-M50%`. */
const MINIMUM_SIMILARITY = 50;
/** Like git's `diff.renameLimit`: above this many candidates on a side, only exact renames are paired. */
const RENAME_LIMIT = 400;
/** Blobs above this size are not compared for inexact renames. */
const MAX_COMPARED_BYTES = 4 * 1024 * 1024;

const GITLINK = "160000";

function statusOf(change: FileChange): ChangeStatus {
  if (change.oldOid === undefined) return "A";
  if (change.newOid === undefined) return "D";
  return "M";
}

/**
 * Chunks of a blob with their byte counts, the way git's `diffcore-delta` hashes content: a
 * chunk ends at a newline or after 64 bytes.
 */
function signature(content: Buffer): Map<string, number> {
  const chunks = new Map<string, number>();
  let start = 0;
  for (let index = 0; index < content.length; index++) {
    if (content[index] === 0x0a || index - start === 63 || index === content.length - 1) {
      const key = content.toString("latin1", start, index + 1);
      chunks.set(key, (chunks.get(key) ?? 0) + index + 1 - start);
      start = index + 1;
    }
  }
  return chunks;
}

interface Candidate {
  readonly change: FileChange;
  readonly size: number;
  readonly chunks: Map<string, number>;
}

function similarity(source: Candidate, target: Candidate): number {
  const larger = Math.max(source.size, target.size);
  if (larger === 0) return 100;
  // git skips pairs whose sizes alone rule out the minimum score.
  if (larger - Math.min(source.size, target.size) > larger * (1 - MINIMUM_SIMILARITY / 100)) return 0;
  let copied = 0;
  const [small, big] = source.chunks.size <= target.chunks.size ? [source, target] : [target, source];
  for (const [chunk, bytes] of small.chunks) copied += Math.min(bytes, big.chunks.get(chunk) ?? 0);
  return Math.floor((copied * 100) / larger);
}

async function candidates(repository: GitRepository, changes: readonly FileChange[], side: "old" | "new") {
  const list: Candidate[] = [];
  for (const change of changes) {
    const oid = side === "old" ? change.oldOid : change.newOid;
    const mode = side === "old" ? change.oldMode : change.newMode;
    if (oid === undefined || mode === GITLINK) continue;
    const content = await repository.blob(oid);
    if (content.length <= MAX_COMPARED_BYTES) list.push({ change, size: content.length, chunks: signature(content) });
  }
  return list;
}

function renamed(source: FileChange, target: FileChange, score: number): ResolvedChange {
  return {
    path: target.path,
    previousPath: source.path,
    status: "R",
    similarity: score,
    ...(source.oldOid === undefined ? {} : { oldOid: source.oldOid }),
    ...(source.oldMode === undefined ? {} : { oldMode: source.oldMode }),
    ...(target.newOid === undefined ? {} : { newOid: target.newOid }),
    ...(target.newMode === undefined ? {} : { newMode: target.newMode }),
  };
}

function pairExact(deleted: FileChange[], added: FileChange[], pairs: Map<FileChange, ResolvedChange>): void {
  const byOid = new Map<string, FileChange[]>();
  for (const change of deleted)
    if (change.oldOid !== undefined) byOid.set(change.oldOid, [...(byOid.get(change.oldOid) ?? []), change]);
  for (const target of added) {
    const source = target.newOid === undefined ? undefined : byOid.get(target.newOid)?.shift();
    if (source === undefined) continue;
    pairs.set(target, renamed(source, target, 100));
    pairs.set(source, renamed(source, target, 100));
  }
}

async function pairInexact(
  repository: GitRepository,
  deleted: FileChange[],
  added: FileChange[],
  pairs: Map<FileChange, ResolvedChange>,
) {
  const sources = await candidates(
    repository,
    deleted.filter((change) => !pairs.has(change)),
    "old",
  );
  const targets = await candidates(
    repository,
    added.filter((change) => !pairs.has(change)),
    "new",
  );
  const scored: { source: Candidate; target: Candidate; score: number }[] = [];
  for (const target of targets) {
    for (const source of sources) {
      const score = similarity(source, target);
      if (score >= MINIMUM_SIMILARITY) scored.push({ source, target, score });
    }
  }
  scored.sort((x, y) => y.score - x.score || (x.target.change.path < y.target.change.path ? -1 : 1));
  for (const { source, target, score } of scored) {
    if (pairs.has(source.change) || pairs.has(target.change)) continue;
    pairs.set(target.change, renamed(source.change, target.change, score));
    pairs.set(source.change, renamed(source.change, target.change, score));
  }
}

/**
 * Pairs deleted and added paths into renames as `git diff -M` does by default: identical blobs
 * first, then the most similar pairs of at least 50%. Copies (`-C`) are not detected.
 */
export async function detectRenames(repository: GitRepository, changes: readonly FileChange[]): Promise<ResolvedChange[]> {
  const deleted = changes.filter((change) => change.newOid === undefined && change.oldMode !== GITLINK);
  const added = changes.filter((change) => change.oldOid === undefined && change.newMode !== GITLINK);
  const pairs = new Map<FileChange, ResolvedChange>();
  if (deleted.length > 0 && added.length > 0) {
    pairExact(deleted, added, pairs);
    const left = deleted.length - pairs.size / 2;
    const right = added.length - pairs.size / 2;
    if (left > 0 && right > 0 && left <= RENAME_LIMIT && right <= RENAME_LIMIT)
      await pairInexact(repository, deleted, added, pairs);
  }
  const resolved: ResolvedChange[] = [];
  for (const change of changes) {
    const pair = pairs.get(change);
    if (pair === undefined) resolved.push({ ...change, status: statusOf(change) });
    else if (change.oldOid === undefined) resolved.push(pair);
  }
  return resolved;
}
