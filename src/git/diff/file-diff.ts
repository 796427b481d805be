import type { GitRepository } from "../repository.js";
import { lineChangeCounts } from "./line-counts.js";
import { countChanges, diffLines, type LineDiff } from "./line-diff.js";
import { isBinary, splitLines } from "./text.js";

/** What changed in one file between two blobs. */
export interface FileDiff {
  /** Either side is binary (or too large to diff): no line counts, no hunks. */
  readonly binary: boolean;
  /** Lines added (0 when binary). */
  readonly added: number;
  /** Lines removed (0 when binary). */
  readonly removed: number;
  /** The line flags, for text files. */
  readonly lines: LineDiff | undefined;
}

/** Blobs above this are treated like binary files: diffing them would flood the answer anyway. */
const MAX_DIFF_BYTES = 16 * 1024 * 1024;
const GITLINK = "160000";

/** The side of a change to diff: a blob id and mode, or nothing (added or deleted). */
export interface DiffSide {
  /** The blob, or a submodule's commit. */
  readonly oid: string | undefined;
  /** Its mode. */
  readonly mode: string | undefined;
}

/** The lines of one side; `undefined` for binary content. Submodules read as git shows them. */
export async function sideLines(repository: GitRepository, side: DiffSide): Promise<string[] | undefined> {
  if (side.oid === undefined) return [];
  if (side.mode === GITLINK) return [`Subproject commit ${side.oid}`];
  const content = await repository.blob(side.oid);
  if (content.length > MAX_DIFF_BYTES || isBinary(content)) return undefined;
  return splitLines(content);
}

/** The diff of two sides of a file, cached by their ids (the same pair recurs across tools and calls). */
export async function fileDiff(repository: GitRepository, before: DiffSide, after: DiffSide): Promise<FileDiff> {
  const key = `${before.oid ?? "-"}:${after.oid ?? "-"}`;
  const cached = repository.caches.lineDiffs.get(key);
  if (cached !== undefined) return cached;
  const [oldLines, newLines] = await Promise.all([sideLines(repository, before), sideLines(repository, after)]);
  let result: FileDiff;
  if (oldLines === undefined || newLines === undefined) result = { binary: true, added: 0, removed: 0, lines: undefined };
  else {
    const lines =
      before.oid === after.oid
        ? { removed: new Uint8Array(oldLines.length), added: new Uint8Array(newLines.length) }
        : diffLines(oldLines, newLines);
    result = { binary: false, ...countChanges(lines), lines };
  }
  repository.caches.lineDiffs.set(key, result);
  return result;
}

/** The bytes of one side for line counts; `undefined` for binary content. Submodules read as git shows them. */
async function sideBytes(repository: GitRepository, side: DiffSide): Promise<Buffer | undefined> {
  if (side.oid === undefined) return Buffer.alloc(0);
  if (side.mode === GITLINK) return Buffer.from(`Subproject commit ${side.oid}\n`, "latin1");
  const content = await repository.blob(side.oid);
  return content.length > MAX_DIFF_BYTES || isBinary(content) ? undefined : content;
}

/** Line counts of a change whose lines are not needed (numstat): binary, added, removed. */
export type FileLineCounts = Omit<FileDiff, "lines">;

/**
 * {@link fileDiff}'s counts without its line flags, for answers that only count lines
 * (contributors, file history): the same numbers, computed from the bytes without decoding
 * them, and without a diff where the change is one run of inserted or deleted lines. A full
 * diff of the pair already cached is used as it is.
 */
export async function fileLineCounts(repository: GitRepository, before: DiffSide, after: DiffSide): Promise<FileLineCounts> {
  const key = `${before.oid ?? "-"}:${after.oid ?? "-"}`;
  const cached = repository.caches.lineDiffs.get(key) ?? repository.caches.lineDiffs.get(`n:${key}`);
  if (cached !== undefined) return cached;
  const [oldBytes, newBytes] = [await sideBytes(repository, before), await sideBytes(repository, after)];
  const result: FileDiff =
    oldBytes === undefined || newBytes === undefined
      ? { binary: true, added: 0, removed: 0, lines: undefined }
      : {
          binary: false,
          ...(before.oid === after.oid ? { added: 0, removed: 0 } : lineChangeCounts(oldBytes, newBytes)),
          lines: undefined,
        };
  repository.caches.lineDiffs.set(`n:${key}`, result);
  return result;
}

/**
 * Lines at the end of both buffers that git's `xdi_diff` leaves out of a diff without context
 * (blame's, numstat's): it drops common tail bytes in 1 KiB blocks, then gives back up to the
 * first newline, so a shared tail never takes part in sliding changes around.
 */
export function commonTailLines(before: Buffer, after: Buffer): number {
  const block = 1024;
  const smaller = Math.min(before.length, after.length);
  let trimmed = 0;
  while (
    block + trimmed <= smaller &&
    before.compare(
      after,
      after.length - trimmed - block,
      after.length - trimmed,
      before.length - trimmed - block,
      before.length - trimmed,
    ) === 0
  )
    trimmed += block;
  if (trimmed === 0) return 0;
  const tailStart = before.length - trimmed;
  let recovered = 0;
  while (recovered < trimmed) if (before[tailStart + recovered++] === 0x0a) break;
  const tail = before.subarray(tailStart + recovered);
  if (tail.length === 0) return 0;
  let lines = 0;
  for (const byte of tail) if (byte === 0x0a) lines++;
  return tail[tail.length - 1] === 0x0a ? lines : lines + 1;
}

/** The line diff `git blame` uses between two blobs: git's xdiff with the common tail trimmed first. */
export async function blameLineDiff(repository: GitRepository, oldOid: string, newOid: string): Promise<LineDiff | undefined> {
  const key = `blame:${oldOid}:${newOid}`;
  const cached = repository.caches.lineDiffs.get(key);
  if (cached !== undefined) return cached.lines;
  const [before, after] = [await repository.blob(oldOid), await repository.blob(newOid)];
  if (before.length > MAX_DIFF_BYTES || after.length > MAX_DIFF_BYTES || isBinary(before) || isBinary(after)) return undefined;
  const [oldLines, newLines] = [splitLines(before), splitLines(after)];
  const tail = commonTailLines(before, after);
  const inner = diffLines(oldLines.slice(0, oldLines.length - tail), newLines.slice(0, newLines.length - tail));
  const lines: LineDiff = { removed: new Uint8Array(oldLines.length), added: new Uint8Array(newLines.length) };
  lines.removed.set(inner.removed);
  lines.added.set(inner.added);
  repository.caches.lineDiffs.set(key, { binary: false, ...countChanges(lines), lines });
  return lines;
}
