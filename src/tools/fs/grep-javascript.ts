import { type FileHandle, lstat, stat } from "node:fs/promises";
import path from "node:path";
import { RipgrepBinaryScan, ripgrepBinaryCutoff } from "./grep-binary-cutoff.js";
import { ContextLines, splitLines } from "./grep-context-lines.js";
import { GREP_CHUNK_BYTES, LineTooLongError, readLinePieces } from "./grep-file-chunks.js";
import { GrepGlobOverride } from "./grep-glob-override.js";
import {
  type GitAwareIgnoreFile,
  ignoreFilesAbove,
  ignoreFilesIn,
  isIgnoredAsRipgrep,
  outsideRepository,
  type ReadIgnoreFile,
  toSlash,
} from "./grep-ignore-rules.js";
import { clipLineText } from "./grep-line-text.js";
import { GREP_SKIPPED_DIRECTORIES, type GrepAnswer, type GrepLine, type GrepQuery, UNREACHABLE_REASON } from "./grep-ripgrep.js";
import type { LineMatcher } from "./grep-worker.js";
import { looksBinary } from "./text-content.js";
import { listDirectory } from "./walk-directory.js";

/** Files matched per message to the worker. */
const BATCH = 64;

/**
 * The JavaScript engine: the same walk as ripgrep (depth first, names in byte order, hidden files
 * included, `.gitignore`/`.ignore` honoured, symbolic links met in the walk not followed while a
 * link given as the path is, the same skipped directories), files read through the run's file
 * scope, and lines matched in a worker thread by `matcher`. Files up to {@link GREP_CHUNK_BYTES}
 * are read whole and matched in batches; a larger one is read and matched a piece of whole lines
 * at a time, so any size is searched in bounded
 * memory (as ripgrep searches it). A file that cannot be searched is named in `unsearched`.
 */
export async function searchWithJavaScript(options: {
  readonly root: string;
  readonly start: string;
  readonly startIsFile: boolean;
  readonly query: GrepQuery;
  readonly matcher: LineMatcher;
  readonly read: (absolute: string) => Promise<Buffer>;
  /** Opens a regular file for reading (a large file is read through it in pieces). */
  readonly open: (absolute: string) => Promise<FileHandle>;
  readonly signal: AbortSignal;
  /**
   * The workspace's real path when the run is confined to it (directories are opened verified).
   * `read` and `open` are then the confined scope's, which refuse a file with more than one hard
   * link: such a file met in the walk is named as refused from its `lstat`, not through a confined
   * open and a thrown violation each (a directory of 100,000 links).
   */
  readonly confineTo?: string | undefined;
}): Promise<GrepAnswer> {
  const { root, start, query, matcher, signal } = options;
  const glob = query.glob === undefined ? undefined : new GrepGlobOverride(query.glob);
  const answer: GrepAnswer = { lines: [], files: [], cut: false };
  let matches = 0;
  const emit = (line: GrepLine): boolean => {
    if (line.match && ++matches > query.limit) return true;
    // A line longer than grep prints is cut as the ripgrep engine cuts it.
    answer.lines.push({ ...line, text: clipLineText(line.text) });
    return false;
  };
  /** Takes one file's matches (in pieces); `true` when the limit is reached. */
  const take = (file: string) => {
    const printer = new ContextLines(file, query.context, emit);
    return (lines: readonly string[], firstNumber: number, matched: readonly number[]): boolean => {
      if (matched.length === 0) return false;
      if (!query.filesOnly) return printer.piece(lines, firstNumber, matched);
      if (answer.files.at(-1) === file) return false;
      if (answer.files.length >= query.limit) return true;
      answer.files.push(file);
      return false;
    };
  };
  const searchLarge = async (file: string): Promise<boolean> => {
    const handle = await options.open(file).catch((error: NodeJS.ErrnoException) => {
      // Never a silent gap: a file that cannot be opened is named, as one with a too long line is.
      unsearched.push({ absolute: file, reason: `could not be opened: ${error.code ?? error.message}` });
      return undefined;
    });
    if (handle === undefined) return false;
    try {
      const found = take(file);
      let firstNumber = 1;
      // In a directory, ripgrep stops at a NUL byte (binary file): only the lines before its
      // cutoff, worked out from the same reads.
      const binary = options.startIsFile ? undefined : new RipgrepBinaryScan();
      for await (const piece of readLinePieces(handle, GREP_CHUNK_BYTES, binary)) {
        const text = firstNumber === 1 ? withoutBom(piece) : piece;
        const [matched = []] = await matcher.match([text], signal);
        const lines = splitLines(text);
        if (found(lines, firstNumber, matched)) return true;
        // files_only: one match names the file; the rest of it need not be read.
        if (query.filesOnly && answer.files.at(-1) === file) return false;
        firstNumber += lines.length;
      }
      return false;
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      unsearched.push({ absolute: file, reason: error.message });
      return false;
    } finally {
      await handle.close();
    }
  };
  const unsearched: { absolute: string; reason: string }[] = [];
  let batch: string[] = [];
  const flush = async (): Promise<boolean> => {
    const files = batch;
    batch = [];
    const texts = (
      await Promise.all(files.map((file) => readText(options.read, file, !options.startIsFile, options.confineTo !== undefined)))
    ).map((text) => (typeof text === "string" ? withoutBom(text) : text));
    const found = await matcher.match(
      texts.map((text) => (typeof text === "string" ? text : "")),
      signal,
    );
    // In walk order: a large file is searched in its place, so the answer stays in path order.
    for (const [index, lineIndices] of found.entries()) {
      const file = files[index] as string;
      const text = texts[index];
      if (typeof text === "object") {
        // Never a silent gap: a file that cannot be read is named, not taken for one without matches.
        unsearched.push({ absolute: file, reason: `could not be read: ${text.unreadable}` });
        continue;
      }
      if (text === LARGE ? await searchLarge(file) : take(file)(splitLines(text ?? ""), 1, lineIndices)) return true;
    }
    return false;
  };
  const finish = (cut: boolean): GrepAnswer => ({ ...answer, cut, ...(unsearched.length > 0 ? { unsearched } : {}) });
  // A directory that cannot be listed is named like a file that cannot be read: never a silent gap.
  const onUnreadable = (directory: string, code: string) =>
    unsearched.push({ absolute: directory, reason: `directory could not be read: ${code}` });
  const readIgnore: ReadIgnoreFile = (file) => readIgnoreFile(options.open, file);
  // An entry whose name is not valid UTF-8 is listed with U+FFFD for its bytes, the name of another
  // file (one truly named so, beside it) or none: never read by that name, only named as ls and glob do.
  const onUndecodable: OnUndecodable = (absolute, directory) => {
    unsearched.push({
      absolute: directory ? `${absolute}${path.sep}` : absolute,
      reason: `${UNREACHABLE_REASON}${directory ? "; its entries were not searched" : ""}`,
    });
  };
  const walker = { onUnreadable, onUndecodable, readIgnore, glob };
  const files = options.startIsFile ? single(start) : walk(root, start, signal, options.confineTo, walker);
  for await (const file of files) {
    batch.push(file);
    if (batch.length >= BATCH && (await flush())) return finish(true);
  }
  if (batch.length > 0 && (await flush())) return finish(true);
  return finish(false);
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

/** The code of `read`'s refusal of a file with more than one name (`assertPlainFile` in src/tools/sandbox/file-kind.ts). */
const HARD_LINK_REFUSED = "hard_link_refused";

/** Marks a file too large to read whole: it is searched in pieces. */
const LARGE = Symbol("large");

/**
 * A file's text to search: a file found in a directory that holds a NUL byte is searched as ripgrep
 * searches it, up to {@link ripgrepBinaryCutoff} (nothing when that is its start).
 */
async function readText(
  read: (absolute: string) => Promise<Buffer>,
  file: string,
  inDirectory: boolean,
  refusesHardLinks: boolean,
): Promise<string | typeof LARGE | { readonly unreadable: string } | undefined> {
  // A link met in the walk is not followed (as ripgrep without -L); one named as the path is, as
  // `rg PATTERN link` follows it: lstat'ed, such a file was "No matches" where ripgrep searched it.
  // (Confined, the path was resolved inside the workspace already, and `read` refuses a link out.)
  const info = await (inDirectory ? lstat : stat)(file).catch(() => undefined);
  // A name that is not valid UTF-8 was listed with U+FFFD in place of its bytes: no file has that
  // name, and the one that has the bytes would be left out silently.
  if (info === undefined && file.includes("\uFFFD")) return { unreadable: "its name is not valid UTF-8" };
  if (info === undefined || !info.isFile()) return undefined;
  if (info.size > GREP_CHUNK_BYTES) return LARGE;
  // What `read` would answer (its own check on the opened descriptor still holds for a file linked
  // after this lstat). Only in the walk: a path given may be a link whose target `read` refuses otherwise.
  if (inDirectory && refusesHardLinks && info.nlink > 1) return { unreadable: HARD_LINK_REFUSED };
  const bytes = await read(file).catch((error: NodeJS.ErrnoException) => error);
  if (bytes instanceof Error) return { unreadable: bytes.code ?? bytes.message };
  if (inDirectory && bytes.includes(0)) {
    const cutoff = ripgrepBinaryCutoff(bytes) ?? bytes.length;
    return cutoff === 0 ? undefined : bytes.subarray(0, cutoff).toString("utf8");
  }
  if (looksBinary(bytes)) return undefined;
  return bytes.toString("utf8");
}

/** The largest ignore file applied (ripgrep has no limit; a real one is a few KiB). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * An ignore file's text, read like a searched file: through the run's file scope (`open`, a
 * non-blocking open checked on the descriptor, confined to the workspace when the run is), at
 * most {@link MAX_IGNORE_FILE_BYTES}. Read by path, a `.gitignore` a sandboxed command made a
 * link to a host file was read on the host (its lines deciding which workspace files are
 * searched), one made a named pipe blocked a thread of the host's pool for good (four stop every
 * file operation of the process), and one linked to `/dev/zero` read 2 GiB. Such a file is not
 * applied, as a missing one.
 */
export async function readIgnoreFile(open: (absolute: string) => Promise<FileHandle>, file: string): Promise<string | undefined> {
  // Most directories have none: one lstat, not a confined open walking every component.
  if ((await lstat(file).catch(() => undefined)) === undefined) return undefined;
  const handle = await open(file).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const { size } = await handle.stat();
    if (size > MAX_IGNORE_FILE_BYTES) return undefined;
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Depth-first, names in byte order (ripgrep's `--sort path`), honouring ignore files. */
/** Called for an entry whose name is not valid UTF-8 (its lossy path), which the walk neither yields nor enters. */
type OnUndecodable = (absolute: string, directory: boolean) => void;

/** What the walk reports to its caller, and how it reads ignore files. */
interface Walker {
  readonly onUnreadable: (directory: string, code: string) => void;
  readonly onUndecodable: OnUndecodable;
  readonly readIgnore: ReadIgnoreFile;
  /** grep's `glob`, applied before the ignore files, to directories too, as ripgrep applies `--glob`. */
  readonly glob: GrepGlobOverride | undefined;
}

async function* walk(
  root: string,
  start: string,
  signal: AbortSignal,
  confineTo: string | undefined,
  walker: Walker,
): AsyncGenerator<string> {
  const inherited = await ignoreFilesAbove(root, start, walker.readIgnore);
  yield* walkDirectory(root, start, inherited, signal, confineTo, walker);
}

async function* walkDirectory(
  root: string,
  directory: string,
  ignores: readonly GitAwareIgnoreFile[],
  signal: AbortSignal,
  confineTo: string | undefined,
  walker: Walker,
): AsyncGenerator<string> {
  const { onUnreadable, readIgnore } = walker;
  signal.throwIfAborted();
  const listing = await listDirectory(directory, confineTo, (code) => onUnreadable(directory, code));
  const inherited = listing.some((listed) => listed.name === ".git") ? outsideRepository(ignores) : ignores;
  const here = [...inherited, ...(await ignoreFilesIn(root, directory, readIgnore))];
  for (const listed of listing) {
    const entry = { name: listed.name, directory: listed.kind === "directory", file: listed.kind === "file" };
    const absolute = path.join(directory, entry.name);
    const relative = toSlash(path.relative(root, absolute));
    if (entry.directory && GREP_SKIPPED_DIRECTORIES.includes(entry.name)) continue;
    // ripgrep's --glob decides first; the ignore files only where it says nothing.
    const verdict = walker.glob?.verdict(relative, entry.directory) ?? "none";
    const skipped = verdict === "exclude" || (verdict === "none" && isIgnoredAsRipgrep(here, relative, entry.directory));
    if (listed.undecodable === true) {
      if (!skipped && (entry.file || entry.directory)) walker.onUndecodable(absolute, entry.directory);
      continue;
    }
    if (skipped) continue;
    if (entry.directory) yield* walkDirectory(root, absolute, here, signal, confineTo, walker);
    else if (entry.file) yield absolute;
  }
}

/**
 * A file's text without a leading UTF-8 byte-order mark: ripgrep drops it before searching, so
 * `^first` matched line 1 of such a file in ripgrep only, and the JavaScript engine printed it.
 */
function withoutBom(text: string): string {
  return text.startsWith("\ufeff") ? text.slice(1) : text;
}
