import type { GitRepository } from "../repository.js";
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
