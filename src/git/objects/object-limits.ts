import { CatalogError } from "../../errors/catalog-error.js";
import { countOf } from "../../errors/count-of.js";

/**
 * The largest object the git tools build: a pack entry, a loose object or a delta's result that
 * claims more is refused (`too_large`) before anything is allocated. A repository is untrusted
 * input: a size header is a number the author chose, and without a bound one 30-byte entry asks
 * for terabytes (Node throws a RangeError past 4 GiB, and commits to gigabytes below it). The
 * tools read text for diffs and blame; git's own `core.bigFileThreshold` (512 MiB) marks files
 * above it as binary and never deltas them.
 */
export const MAX_OBJECT_BYTES = 1024 * 1024 * 1024;

/**
 * zlib's deflate never compresses better than about 1032:1 (a run of one byte); a size header that
 * claims more than this many bytes from `compressedBytes` of data lies, whatever the data is.
 */
export function maxInflatedBytes(compressedBytes: number): number {
  return compressedBytes * 1032 + 64;
}

/**
 * The most bytes the delta chains of one object read may build, links of bases read nested
 * (another pack's, for a ref delta) counted with their caller's. Each link is bounded by
 * {@link MAX_OBJECT_BYTES}, but a copy instruction costs a few bytes and copies up to 16 MiB of its
 * base, so without this a chain of small deltas that each copy a whole large base (a 64 KiB zlib
 * bomb of 64 MiB) rebuilds it at every link: 160 links, 70 KiB of pack, built 10 GiB for a
 * 205-byte file, synchronously on the host's thread, where the call's abort cannot stop it.
 * Twice the largest object: git's default chains (`pack.depth` 50) of a file up to 40 MiB pass.
 */
export const MAX_CHAIN_BYTES = 2 * MAX_OBJECT_BYTES;

/**
 * Delta bases reached through other packs or loose objects (a ref delta whose base is not in its
 * own pack) nest one object read in another; past this depth the chain is refused. Git itself
 * looks a ref delta's base up in the same pack only, and `git repack --depth` stops at 4095.
 */
export const MAX_NESTED_BASES = 64;

/** A damaged or hostile repository file: the readers refuse it rather than read on. */
export function corruptObject(detail: string): CatalogError {
  return new CatalogError("corrupt_object", detail);
}

/**
 * What an error names: the text, or a function that makes it only when an error is thrown (a pack
 * read checks every object, and building the text for each cost more than the check).
 */
export type ObjectDescription = string | (() => string);

/** The text of an {@link ObjectDescription}. */
export function describe(what: ObjectDescription): string {
  return typeof what === "string" ? what : what();
}

/**
 * Refuses an object whose header claims `size` bytes when that is over {@link MAX_OBJECT_BYTES}
 * (`too_large`) or more than `compressedBytes` of zlib data can hold (`corrupt_object`).
 * @throws CatalogError `too_large` or `corrupt_object`
 */
export function checkClaimedSize(what: ObjectDescription, size: number, compressedBytes: number): void {
  if (size > maxInflatedBytes(compressedBytes)) {
    throw corruptObject(
      `${describe(what)} claims ${countOf(size, "byte")}, more than its ${countOf(compressedBytes, "compressed byte")} can hold.`,
    );
  }
  if (size > MAX_OBJECT_BYTES) {
    throw new CatalogError(
      "too_large",
      `${describe(what)} is ${countOf(size, "byte")}; the git tools read objects up to ${MAX_OBJECT_BYTES} bytes.`,
    );
  }
}
