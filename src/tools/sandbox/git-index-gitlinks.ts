import path from "node:path";
import { readSmallFileBytes } from "./small-file-text.js";

/**
 * What the host reads of indexes for their gitlinks, on its own thread: `maxIndexBytes` per index
 * (git's index for a million files is about 100 MiB; a larger one is treated as unreadable),
 * `maxBytes` and `maxIndexes` across all indexes read in one pass (the protection at a spawn, or
 * the repairs after a command). A command can make any number of repositories, each with an index
 * it shapes: without a total, 40 indexes of 127 MiB had every later command read 10 GiB (32 s of
 * host CPU). An unchanged index is not read again (its gitlinks are kept), so the total is spent
 * on indexes that changed since the last pass. An index not read because the pass's budget is
 * spent is treated as unreadable (moved aside after the command: host git then enters no gitlink).
 */
export const INDEX_READ_LIMITS = Object.freeze({
  maxIndexBytes: 128 * 1024 * 1024,
  maxBytes: 128 * 1024 * 1024,
  maxIndexes: 1_000,
});

/** What one pass may still read: bytes and index files (a shared index counts as one). */
export interface IndexBudget {
  bytes: number;
  indexes: number;
}

/** A fresh budget for one pass, from {@link INDEX_READ_LIMITS}. */
export function indexBudget(): IndexBudget {
  return { bytes: INDEX_READ_LIMITS.maxBytes, indexes: INDEX_READ_LIMITS.maxIndexes };
}

/** The file mode git records for a gitlink (a submodule's commit). */
const GITLINK_MODE = 0o160000;

/** The file types an index entry may have: regular file, symbolic link, gitlink, sparse directory. */
const ENTRY_TYPES = new Set([0o100000, 0o120000, GITLINK_MODE, 0o040000]);

/**
 * The gitlinks of a git directory's index: the paths, relative to its working tree, at which host
 * git enters another repository (`git status`, `git diff` and `git commit` run git in each one
 * whose `.git` exists, with that repository's own config: its `core.fsmonitor` runs). `absent`: no
 * index; `unreadable`: an index that is not a regular file, too large, or not one this parser
 * understands (git may still read it: the caller must not take it as "no gitlinks").
 */
export type IndexGitlinks = readonly string[] | "absent" | "unreadable";

/**
 * Reads `gitDirectory/index` (and, for a split index, the shared index its `link` extension names)
 * without following a link or blocking, and lists its gitlinks, charging `budget`; an index the
 * budget does not cover is `"unreadable"`.
 */
export function readIndexGitlinks(gitDirectory: string, budget: IndexBudget = indexBudget()): IndexGitlinks {
  const gitlinks = readIndexGitlinksWithin(gitDirectory, budget);
  return gitlinks === "over budget" ? "unreadable" : gitlinks;
}

/**
 * As {@link readIndexGitlinks}, telling an index refused for the spent budget (`"over budget"`:
 * not a property of the file, so not to be remembered for it) from one refused for itself.
 */
export function readIndexGitlinksWithin(gitDirectory: string, budget: IndexBudget): IndexGitlinks | "over budget" {
  const bytes = readCharged(path.join(gitDirectory, "index"), budget);
  if (typeof bytes === "string") return bytes;
  const parsed = parseIndex(bytes);
  if (parsed === undefined) return "unreadable";
  if (parsed.shared === undefined) return parsed.gitlinks;
  // A split index (core.splitIndex): most entries live in the shared index; a gitlink of either
  // is listed (one the split part deletes as well: more than git enters, never less).
  const shared = readCharged(path.join(gitDirectory, `sharedindex.${parsed.shared}`), budget);
  if (shared === "over budget") return shared;
  if (typeof shared === "string") return "unreadable";
  const sharedParsed = parseIndex(shared);
  if (sharedParsed === undefined || sharedParsed.shared !== undefined) return "unreadable";
  return [...new Set([...parsed.gitlinks, ...sharedParsed.gitlinks])];
}

/**
 * An index file's bytes, charged to `budget`: `"over budget"` when no index file or not its
 * size is left (the size is known from the open descriptor before anything is read).
 */
function readCharged(file: string, budget: IndexBudget): Buffer | "absent" | "unreadable" | "over budget" {
  if (budget.indexes <= 0) return "over budget";
  budget.indexes--;
  const allowed = Math.min(INDEX_READ_LIMITS.maxIndexBytes, budget.bytes);
  const bytes = readSmallFileBytes(file, allowed, (size) => size <= INDEX_READ_LIMITS.maxIndexBytes && size > allowed);
  if (bytes === "refused") return "over budget";
  if (typeof bytes !== "string") budget.bytes -= bytes.length;
  return bytes;
}

/** An index's gitlink paths and the shared index it names (split index), if any. */
interface ParsedIndex {
  readonly gitlinks: string[];
  readonly shared: string | undefined;
}

/**
 * Parses git's index format (`DIRC`, versions 2-4, SHA-1 or SHA-256 object names: the length
 * that makes the whole file parse is taken). `undefined` when it does not parse, or a gitlink's
 * path is not valid UTF-8 or leaves its working tree.
 */
export function parseIndex(index: Buffer): ParsedIndex | undefined {
  if (index.length < 12 || index.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = index.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  for (const hashBytes of [20, 32]) {
    const parsed = parseWithHash(index, version, index.readUInt32BE(8), hashBytes);
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

function parseWithHash(index: Buffer, version: number, count: number, hashBytes: number): ParsedIndex | undefined {
  const end = index.length - hashBytes;
  const gitlinks: string[] = [];
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let entry = 0; entry < count; entry++) {
    // ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), the object name, flags.
    const flagsAt = offset + 40 + hashBytes;
    if (flagsAt + 2 > end) return undefined;
    const mode = index.readUInt32BE(offset + 24);
    if (!ENTRY_TYPES.has(mode & 0o170000)) return undefined;
    const flags = index.readUInt16BE(flagsAt);
    const extended = (flags & 0x4000) !== 0;
    if (extended && version < 3) return undefined;
    const read = readName(index, version, offset, flagsAt + (extended ? 4 : 2), previous, end);
    if (read === undefined || (flags & 0xfff) !== Math.min(read.name.length, 0xfff)) return undefined;
    ({ next: offset } = read);
    previous = read.name;
    if ((mode & 0o170000) === GITLINK_MODE) {
      const gitlink = gitlinkPath(read.name);
      if (gitlink === undefined) return undefined;
      gitlinks.push(gitlink);
    }
  }
  const shared = sharedIndexName(index, offset, end, hashBytes);
  return shared === false ? undefined : { gitlinks, shared };
}

/** An entry's name and where the next entry starts; `undefined` when it runs past `end`. */
function readName(
  index: Buffer,
  version: number,
  entryAt: number,
  nameAt: number,
  previous: Buffer,
  end: number,
): { readonly name: Buffer; readonly next: number } | undefined {
  if (version !== 4) {
    const nul = index.indexOf(0, nameAt);
    if (nul < 0 || nul >= end) return undefined;
    // Entries are padded with NULs to a multiple of 8 bytes (at least one NUL).
    const next = entryAt + ((nul - entryAt + 8) & ~7);
    return next > end ? undefined : { name: index.subarray(nameAt, nul), next };
  }
  // The name is the previous one less N bytes (git's offset varint), then a NUL-ended suffix.
  let at = nameAt;
  let byte = index[at++] ?? 0;
  let strip = byte & 0x7f;
  while ((byte & 0x80) !== 0 && strip <= previous.length && at < end) {
    byte = index[at++] ?? 0;
    strip = ((strip + 1) << 7) | (byte & 0x7f);
  }
  if (strip > previous.length || at >= end) return undefined;
  const nul = index.indexOf(0, at);
  if (nul < 0 || nul >= end) return undefined;
  return { name: Buffer.concat([previous.subarray(0, previous.length - strip), index.subarray(at, nul)]), next: nul + 1 };
}

/** A gitlink's name as a relative path; `undefined` when not valid UTF-8 or leaving its working tree. */
function gitlinkPath(name: Buffer): string | undefined {
  const text = name.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(name)) return undefined;
  const parts = text.split("/");
  return parts.some((part) => part === "" || part === "." || part === "..") ? undefined : text;
}

/** `link` (split index) and `sdir` (sparse directories): the extensions git requires and knows. */
const LINK_EXTENSION = 0x6c696e6b;
const SPARSE_DIRECTORIES_EXTENSION = 0x73646972;

/** Git skips an extension it does not know only when its signature starts with `A`-`Z`. */
function optionalExtension(firstByte: number): boolean {
  return firstByte >= 0x41 && firstByte <= 0x5a;
}

/**
 * Walks the extensions from `offset` to `end`: the shared index a `link` extension names (split
 * index), `undefined` without one, `false` when they do not fill the space exactly.
 */
function sharedIndexName(index: Buffer, start: number, end: number, hashBytes: number): string | undefined | false {
  let shared: string | undefined;
  let offset = start;
  while (offset < end) {
    if (offset + 8 > end) return false;
    const size = index.readUInt32BE(offset + 4);
    if (offset + 8 + size > end) return false;
    const signature = index.readUInt32BE(offset);
    if (signature === LINK_EXTENSION) {
      if (size < hashBytes) return false;
      shared = index.toString("hex", offset + 8, offset + 8 + hashBytes);
    } else if (signature !== SPARSE_DIRECTORIES_EXTENSION && !optionalExtension(index[offset] ?? 0)) {
      // Git refuses an index with an extension it must understand and does not ("index uses ....
      // extension, which we do not understand"), so it enters none of its gitlinks. Stopping here
      // also ends the walk that a command's index of zeros made step 8 bytes at a time through
      // hundreds of MiB (an "extension" of signature 0 and size 0), on the host's thread.
      return false;
    }
    offset += 8 + size;
  }
  return shared;
}
