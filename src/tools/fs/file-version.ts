import { hash } from "node:crypto";

/**
 * The version token of a file's content: a short content hash. Every read and write returns it;
 * a write or edit with a stale `expected_version` is refused, so no update is lost.
 * @public
 */
export function fileVersion(content: Uint8Array | string): string {
  // One-shot: no Hash object per file (a 500-file patch reports 500 versions; each Hash is a
  // native object that the collector finalises later).
  return `v_${hash("sha256", content, "hex").slice(0, 16)}`;
}

/**
 * The version token meaning "the file does not exist".
 *
 * @public
 */
export const ABSENT_FILE_VERSION = "v_absent";
