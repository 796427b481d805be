import path from "node:path";
import { escapingDecoder, hasEscapedByte, lossyText } from "../sandbox/byte-paths.js";
import type { ProcessSandbox } from "../sandbox/process-sandbox.js";
import { defaultMaxMemoryBytes } from "../sandbox/resource-limits.js";
import { findTrustedExecutable } from "../sandbox/trusted-executable.js";
import { clipLineText, GREP_MAX_LINE_CHARS } from "./grep-line-text.js";
import { watchForBlockedRipgrep } from "./grep-ripgrep-watch.js";
import { UNSEARCHED_LIST_CUT_REASON } from "./grep-unsearched-footer.js";
import { lstatOrUndefined } from "./lstat-or-undefined.js";

/** What grep asks either engine for. */
export interface GrepQuery {
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly fixedStrings: boolean;
  readonly glob: string | undefined;
  readonly context: number;
  readonly limit: number;
  readonly filesOnly: boolean;
  /**
   * `false`: ripgrep reads no ignore file (`--no-ignore`), since one of them is unsafe to open
   * (see `findUnsafeIgnoreFile`). @defaultValue true
   */
  readonly ignoreFiles?: boolean;
  /**
   * The ignore files between the workspace root and the searched directory, relative to the root
   * (see `parentIgnoreFiles`), given with `--ignore-file`: ripgrep reads no parent directory's
   * ignore file itself.
   */
  readonly parentIgnores?: readonly string[];
}

/** One printed line: a match (`path:n:text`) or a context line (`path-n-text`). */
export interface GrepLine {
  readonly absolute: string;
  readonly number: number;
  readonly text: string;
  readonly match: boolean;
}

/**
 * An engine's answer: lines (or file names for `filesOnly`), whether the limit cut it, and the
 * files that could not be searched (and why), so that a missing match is never silent.
 */
export interface GrepAnswer {
  readonly lines: GrepLine[];
  readonly files: string[];
  readonly cut: boolean;
  readonly unsearched?: readonly { readonly absolute: string; readonly reason: string }[];
  /**
   * ripgrep's other error messages, each whole (an ignore file it could not parse, which it then
   * did not apply): at most RIPGREP_MESSAGES_KEPT, each at most RIPGREP_MESSAGE_CHARS, a last
   * entry counting those left out. Dropped before: the answer looked like one with every ignore
   * file applied.
   */
  readonly messages?: readonly string[];
}

/** Thrown when ripgrep cannot answer this query (its regex syntax differs, or it cannot start). */
export class RipgrepUnusableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "RipgrepUnusableError";
  }
}

/** Directories neither engine enters (their names anywhere below the start). */
export const GREP_SKIPPED_DIRECTORIES: readonly string[] = [".git", "node_modules", ".hg", ".svn"];

/**
 * ripgrep's arguments for a query: NUL-separated paths and numbered lines (or file names), hidden files
 * searched, `.gitignore`/`.ignore` honoured even outside a git repository, no user config or
 * global ignore file (so the host's settings never change a model's answer), deterministic order.
 */
export function ripgrepArguments(query: GrepQuery, target: string | undefined): string[] {
  // --no-ignore-parent: ripgrep reads no ignore file above the search root (it would read every
  // directory up to `/`); those between the workspace root and the search root are given with --ignore-file.
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-parent", "--sort", "path"];
  if (query.ignoreFiles === false) args.push("--no-ignore");
  else for (const file of query.parentIgnores ?? []) args.push("--ignore-file", file);
  // The model's glob goes first: of ripgrep's globs the last that matches decides, so after the
  // skipped directories' a glob such as `*` (matching the name `node_modules`) searched them.
  if (query.glob !== undefined) args.push("--glob", query.glob);
  for (const name of GREP_SKIPPED_DIRECTORIES) args.push("--glob", `!${name}`);
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.fixedStrings) args.push("--fixed-strings");
  if (query.filesOnly) args.push("--files-with-matches", "--null");
  else {
    // Plain lines, the path ended by NUL: "path\0number:text" (a match) or "path\0number-text"
    // (context). Cheaper to print and to read than --json; any byte but NUL may be in a path.
    args.push("--line-number", "--with-filename", "--no-heading", "--null", "--color", "never", "--no-context-separator");
    if (query.context > 0) args.push("--context", String(query.context));
  }
  args.push("--regexp", query.pattern, "--");
  if (target !== undefined) args.push(target);
  return args;
}

/**
 * Runs ripgrep in `sandbox` (the run's own process sandbox, so it sees what `bash` would) with
 * `root` as its working directory. First in parallel, unsorted (ripgrep's `--sort path` searches
 * on one thread), reading up to {@link PARALLEL_BUDGET} times the limit, then sorted here into
 * `--sort path` order (path components in byte order, then line number). When even that budget
 * overflows, the answer is the first `limit` in path order, so ripgrep runs again sorted and is
 * stopped at the limit.
 */
export async function searchWithRipgrep(
  sandbox: ProcessSandbox,
  executable: string,
  root: string,
  target: string | undefined,
  query: GrepQuery,
  signal: AbortSignal,
): Promise<GrepAnswer> {
  const budget = Math.max(query.limit * PARALLEL_BUDGET, 2000);
  const parallel = await runRipgrep(sandbox, executable, root, target, query, signal, { sorted: false, limit: budget });
  if (!parallel.cut) return inPathOrder(parallel, query.limit);
  return runRipgrep(sandbox, executable, root, target, query, signal, { sorted: true, limit: query.limit });
}

/** How many times the limit the parallel run may read before the sorted run is used instead. */
const PARALLEL_BUDGET = 8;

async function runRipgrep(
  sandbox: ProcessSandbox,
  executable: string,
  root: string,
  target: string | undefined,
  query: GrepQuery,
  signal: AbortSignal,
  run: { readonly sorted: boolean; readonly limit: number },
): Promise<GrepAnswer> {
  const stop = new AbortController();
  const args = ripgrepArguments(query, target);
  const child = sandbox.spawn({
    ...withDataLimit(sandbox, executable, run.sorted ? args : withoutSort(args)),
    cwd: root,
    signal: AbortSignal.any([signal, stop.signal]),
    // ripgrep with arguments this module builds skips the per-command cgroup that bash's commands
    // get (10-15 ms a call); its memory is bounded by RLIMIT_DATA instead (withDataLimit).
    limits: false,
  });
  // An ignore file swapped for a named pipe after grep looked at them blocked ripgrep until the
  // search timeout: it is stopped within RIPGREP_WATCH_MS instead, and the JavaScript engine answers.
  let blocked: string | undefined;
  const unwatch = watchForBlockedRipgrep(child.pid, executable, (why) => {
    blocked = why;
    stop.abort();
  });
  // Its error lines are the only list of what it could not read: kept up to a bound, and a cut
  // list says so (a tree of many unreadable directories answered with some of them silently).
  let stderr = "";
  let stderrCut = false;
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < RIPGREP_ERRORS_KEPT) stderr += chunk;
    else stderrCut = true;
  });
  const toAbsolute = (text: string) => path.resolve(root, text);
  const { answer, cut } = await (query.filesOnly
    ? readFileNames(child.stdout, run.limit, toAbsolute)
    : readNumberedLines(child.stdout, run.limit, toAbsolute)
  ).catch(async (error: unknown) => {
    // Output it cannot read (an ambiguous name): ripgrep is stopped before the answer is given up.
    stop.abort();
    child.stdout.resume();
    await child.exited;
    unwatch();
    throw error;
  });
  if (cut) {
    stop.abort();
    child.stdout.resume();
  }
  const exit = await child.exited;
  unwatch();
  if (signal.aborted) throw signal.reason;
  if (blocked !== undefined) {
    throw new RipgrepUnusableError(
      `ripgrep was stopped: ${blocked} (an ignore file swapped after grep looked at them, or one it did not look at)`,
    );
  }
  if (cut) return { ...answer, cut: true };
  if (exit.error !== undefined || exit.exitCode === 127 || exit.exitCode === 126) {
    throw new RipgrepUnusableError(`ripgrep could not start: ${exit.error?.message ?? stderr.trim()}`);
  }
  if (stderr.length > RIPGREP_ERRORS_KEPT) {
    // the bound fell inside a line: only whole lines are read, and the list counts as cut
    stderr = stderr.slice(0, stderr.lastIndexOf("\n", RIPGREP_ERRORS_KEPT) + 1);
    stderrCut = true;
  }
  // Its lines about files it could not read (no --no-messages: they name what was not searched) apart.
  const { unsearched: fileErrors, otherErrors } = ripgrepUnsearched(stderr, toAbsolute);
  if (stderrCut) fileErrors.push({ absolute: root, reason: UNSEARCHED_LIST_CUT_REASON });
  // A bad pattern: not a file error nor an ignore file's "line N:" (a glob ripgrep could not parse).
  const patternErrors = otherErrors
    .split("\n")
    .filter((line) => !IGNORE_FILE_ERROR.test(line))
    .join("\n");
  if (exit.exitCode === 2 && /regex|parse error|look-around|backreference/i.test(patternErrors)) {
    throw new RipgrepUnusableError(`ripgrep does not accept this pattern: ${oneLine(otherErrors)}`);
  }
  if (exit.exitCode !== 0 && exit.exitCode !== 1 && exit.exitCode !== 2) {
    throw new RipgrepUnusableError(`ripgrep ended with ${String(exit.exitCode ?? exit.signal)}: ${oneLine(stderr)}`);
  }
  const messages = boundedMessages(otherErrors);
  if (fileErrors.length === 0 && messages.length === 0) return answer;
  return {
    ...answer,
    ...(fileErrors.length === 0 ? {} : { unsearched: [...(answer.unsearched ?? []), ...fileErrors] }),
    ...(messages.length === 0 ? {} : { messages }),
  };
}

/**
 * How ripgrep is started: through a trusted `sh` that sets `RLIMIT_DATA` (`ulimit -d`, KiB) to
 * the sandbox's per-command memory limit (half the machine when none is enforced), then `exec`s
 * it (same process). ripgrep is not bounded by itself: it holds a whole line in memory, growing
 * its buffer to the longest line it meets, so a file of one 300 MB line the model wrote took its
 * resident memory to 426 MB without a match and 719 MB with one, with no limit at all (it skips
 * the cgroup). Past the limit its allocation fails, it ends, and the JavaScript engine (which
 * reads lines in bounded chunks) answers. Without an `sh` the host trusts, ripgrep runs as before.
 * `RLIMIT_DATA` counts heap and private writable mappings (Linux 4.7 and later), not the files
 * ripgrep maps to read them.
 */
function withDataLimit(
  sandbox: ProcessSandbox,
  executable: string,
  args: readonly string[],
): { readonly command: string; readonly args: string[] } {
  const shell = trustedShell();
  if (shell === undefined) return { command: executable, args: [...args] };
  const bytes = sandbox.resourceLimits?.maxMemoryBytes ?? defaultMaxMemoryBytes();
  const kibibytes = Math.max(1, Math.floor(bytes / 1024));
  // A hard limit already lower than this one cannot be raised: it bounds ripgrep, so go on.
  return {
    command: shell,
    args: ["-c", 'ulimit -d "$1" 2>/dev/null; shift; exec "$@"', "rg", String(kibibytes), executable, ...args],
  };
}

let shellFound: { readonly path: string | undefined } | undefined;

/**
 * The host's `sh` for the data limit, looked up once: only the system's own `/bin/sh` or
 * `/usr/bin/sh` (root-owned, not writable by others), never a `PATH` entry. A `PATH` directory
 * inside a workspace (`/srv/proj/.venv/bin`) could hold an `sh` a sandboxed command wrote, which a
 * host running as root sees as root's: the host ran it as root for every later grep.
 */
function trustedShell(): string | undefined {
  if (shellFound === undefined) {
    const found = SYSTEM_SHELLS.map((candidate) => findTrustedExecutable(candidate)).find((result) => result.ok);
    shellFound = { path: found?.ok === true ? found.path : undefined };
  }
  return shellFound.path;
}

const SYSTEM_SHELLS = ["/bin/sh", "/usr/bin/sh"] as const;

/** ripgrep's message for a line of an ignore file it could not parse (`./.ignore: line 1: error parsing glob ...`). */
const IGNORE_FILE_ERROR = /^(?:rg: )?.+: line \d+: /;

/** How many of ripgrep's other messages an answer carries, and how long each may be. */
const RIPGREP_MESSAGES_KEPT = 20;
const RIPGREP_MESSAGE_CHARS = 500;

/**
 * ripgrep's notice when every file was filtered out (and its advice to run `--debug`): not an
 * error, and nothing the model can act on; the answer's "No matches" says the same, as the
 * JavaScript engine's does.
 */
const RIPGREP_NOTHING_SEARCHED =
  /^(?:No files were searched, which means ripgrep probably applied a filter you didn't expect\.|Running with --debug will show why files are being skipped\.)$/;

/** ripgrep's message lines (`rg: ` dropped), whole up to the bounds, the rest counted. */
function boundedMessages(otherErrors: string): string[] {
  const lines = otherErrors
    .split("\n")
    .map((line) => line.replace(/^rg: /, "").trimEnd())
    .filter((line) => line.trim() !== "" && !RIPGREP_NOTHING_SEARCHED.test(line.trim()));
  const kept = lines
    .slice(0, RIPGREP_MESSAGES_KEPT)
    .map((line) => (line.length > RIPGREP_MESSAGE_CHARS ? `${line.slice(0, RIPGREP_MESSAGE_CHARS)}… (cut)` : line));
  if (lines.length > RIPGREP_MESSAGES_KEPT) kept.push(`and ${lines.length - RIPGREP_MESSAGES_KEPT} more messages`);
  return kept;
}

/** A multi-line message on one line (the engine note is one line), at most 1,000 characters. */
function oneLine(text: string): string {
  const joined = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
  return joined.length > 1000 ? `${joined.slice(0, 1000)}… (cut)` : joined;
}

/** How much of ripgrep's error output is read for the list of what it could not read. */
const RIPGREP_ERRORS_KEPT = 64 * 1024;

/**
 * ripgrep's message for a file or directory it could not open or read: `./locked: Permission denied
 * (os error 13)`, with `--sort path` `./locked: IO error for operation on ./locked: Permission
 * denied (os error 13)` (ripgrep 13; later versions prefix `rg: `). The path may hold line breaks
 * (`s`): ripgrep prints it as it is.
 */
const FILE_ERROR_RECORD = /^(?:rg: )?(.+?): (?:IO error for operation on .+: )?([^:\n]+) \(os error \d+\)$/s;

/** The most lines one error message is taken to span (a name holding line breaks). */
const MAX_RECORD_LINES = 8;

/**
 * The files and directories ripgrep could not read, from its error messages
 * (`rg: sub/locked: Permission denied (os error 13)`; exit code 2), and its other error lines:
 * without them, a search of a directory holding an unreadable one answered "No matches" of files
 * it never read. A name may hold line breaks, so a message may span lines: the longest run of
 * unclaimed lines ending at a line that reads as a message and naming a path that exists is one
 * message; else the line alone. A file named `x⏎foo: Permission denied (os error 13)` made a
 * fake `[not searched: foo: ...]` line (and its own name was lost).
 */
function ripgrepUnsearched(
  stderr: string,
  toAbsolute: (text: string) => string,
): { unsearched: { absolute: string; reason: string }[]; otherErrors: string } {
  const found: { absolute: string; reason: string }[] = [];
  const lines = stderr.split("\n");
  const claimed = new Set<number>();
  let from = 0;
  for (let end = 0; end < lines.length; end++) {
    let taken: { first: number; absolute: string; reason: string } | undefined;
    for (let first = Math.max(from, end - MAX_RECORD_LINES + 1); first <= end && taken === undefined; first++) {
      const match = FILE_ERROR_RECORD.exec(lines.slice(first, end + 1).join("\n"));
      if (match === null) continue;
      const absolute = toAbsolute(match[1] as string);
      if (first < end && lstatOrUndefined(absolute) === undefined) continue;
      taken = { first, absolute, reason: (match[2] as string).toLowerCase() };
    }
    if (taken === undefined) continue;
    found.push({ absolute: taken.absolute, reason: taken.reason });
    for (let index = taken.first; index <= end; index++) claimed.add(index);
    from = end + 1;
  }
  const otherErrors = lines.filter((_, index) => !claimed.has(index)).join("\n");
  return { unsearched: found, otherErrors };
}

function withoutSort(args: readonly string[]): string[] {
  const at = args.indexOf("--sort");
  return at === -1 ? [...args] : [...args.slice(0, at), ...args.slice(at + 2)];
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** UTF-8 byte order of two strings: UTF-16 order, except where a surrogate pair is involved. */
function compareBytes(left: string, right: string): number {
  if (left === right) return 0;
  if (!SURROGATE.test(left) && !SURROGATE.test(right)) return left < right ? -1 : 1;
  return Buffer.compare(Buffer.from(left), Buffer.from(right));
}

/** Orders paths as `rg --sort path` does: component by component, each in byte order. */
export function comparePaths(left: string, right: string): number {
  const a = left.split("/");
  const b = right.split("/");
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const order = compareBytes(a[index] as string, b[index] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/**
 * A whole unsorted answer in `--sort path` order, cut after `limit` matching lines (as the sorted
 * run stops: the context lines before the next match are kept).
 */
function inPathOrder(answer: GrepAnswer, limit: number): GrepAnswer {
  const ranks = new Map<string, number>();
  const paths = [...new Set([...answer.files, ...answer.lines.map((line) => line.absolute)])].sort(comparePaths);
  for (const [rank, file] of paths.entries()) ranks.set(file, rank);
  const files = [...answer.files].sort(comparePaths);
  const lines = [...answer.lines].sort(
    (left, right) => (ranks.get(left.absolute) as number) - (ranks.get(right.absolute) as number) || left.number - right.number,
  );
  let matches = 0;
  let end = lines.length;
  for (const [index, line] of lines.entries()) {
    if (line.match && ++matches > limit) {
      end = index;
      break;
    }
  }
  return {
    files: files.slice(0, limit),
    lines: lines.slice(0, end),
    cut: files.length > limit || end < lines.length,
    ...(answer.unsearched === undefined ? {} : { unsearched: answer.unsearched }),
    ...(answer.messages === undefined ? {} : { messages: answer.messages }),
  };
}

/** Reads `--files-with-matches --null` output up to `limit` names. */
async function readFileNames(
  stdout: NodeJS.ReadableStream,
  limit: number,
  toAbsolute: (text: string) => string,
): Promise<{ answer: GrepAnswer; cut: boolean }> {
  const unreachable = unreachableFiles(toAbsolute);
  const answer: GrepAnswer = { lines: [], files: [], cut: false, unsearched: unreachable.notes };
  let pending = "";
  const decoder = escapingDecoder();
  for await (const chunk of stdout) {
    pending += decoder.write(chunk as Buffer);
    const parts = pending.split("\0");
    pending = parts.pop() ?? "";
    for (const part of parts) {
      if (answer.files.length >= limit) return { answer, cut: true };
      if (!unreachable.note(part)) answer.files.push(toAbsolute(part));
    }
  }
  return { answer, cut: false };
}

/**
 * The files ripgrep printed whose names are not valid UTF-8 (an escaped byte in the path as
 * decoded): the file tools take paths as text, so none names such a file, and its lossy name is
 * its U+FFFD twin's (another file, or none). Each is named once as not reachable, as `ls` and
 * `glob` name it and as the JavaScript engine does; its lines are left out.
 */
function unreachableFiles(toAbsolute: (text: string) => string): {
  readonly notes: { absolute: string; reason: string }[];
  note(printed: string): boolean;
} {
  const notes: { absolute: string; reason: string }[] = [];
  const seen = new Set<string>();
  return {
    notes,
    note(printed) {
      if (!hasEscapedByte(printed)) return false;
      if (!seen.has(printed)) {
        seen.add(printed);
        notes.push({ absolute: toAbsolute(lossyText(printed)), reason: UNREACHABLE_REASON });
      }
      return true;
    },
  };
}

/** Why a file whose name is not valid UTF-8 is not searched, in both engines' words. */
export const UNREACHABLE_REASON =
  "not reachable by name: its name is not valid UTF-8; U+FFFD stands for the bytes, so that name is another file or none";

/**
 * One line of `--null --line-number` output: `path\0number:text` for a match, `path\0number-text`
 * for a context line; `undefined` for anything else (a note ripgrep prints about a binary file).
 */
export function parseNumberedLine(
  line: string,
): { readonly path: string; readonly number: number; readonly text: string; readonly match: boolean } | undefined {
  const nul = line.indexOf("\0");
  if (nul <= 0) return undefined;
  let at = nul + 1;
  let number = 0;
  while (at < line.length) {
    const code = line.charCodeAt(at);
    if (code < 48 || code > 57) break;
    number = number * 10 + (code - 48);
    at++;
  }
  const separator = line[at];
  if (at === nul + 1 || (separator !== ":" && separator !== "-")) return undefined;
  return { path: line.slice(0, nul), number, text: line.slice(at + 1), match: separator === ":" };
}

/**
 * Reads numbered lines (matches and context lines) up to `limit` matching lines. A line is searched
 * for its end only in the newest chunk and kept as pieces joined once (linear in its length), and
 * no more of it is kept than grep prints ({@link clipLineText}): a line of hundreds of MiB costs
 * neither quadratic time nor its size in memory.
 */
async function readNumberedLines(
  stdout: NodeJS.ReadableStream,
  limit: number,
  toAbsolute: (text: string) => string,
): Promise<{ answer: GrepAnswer; cut: boolean }> {
  const unreachable = unreachableFiles(toAbsolute);
  const answer: GrepAnswer = { lines: [], files: [], cut: false, unsearched: unreachable.notes };
  let matches = 0;
  // Paths repeat line after line: resolve each once.
  let lastPath = "";
  let lastAbsolute = "";
  // A path may hold line breaks (ripgrep ends it with NUL, its line with a line break). The only
  // lines without a NUL besides a path's first lines are ripgrep's binary-file notes: a note is
  // dropped, any other run of such lines is the start of the next path. Whether a file existed
  // decided it before: a note followed by a file `<note>⏎b` named b's match under that name.
  let held: string | undefined;
  let note: string | undefined;
  const take = (line: string, dropped: number): boolean => {
    if (!line.includes("\0")) {
      held = held === undefined ? line : `${held}\n${line}`;
      if (isBinaryNote(held, lastPath)) {
        note = held;
        held = undefined;
      } else if (held.length > MAX_HELD_PATH_CHARS) held = undefined;
      return false;
    }
    const whole = held === undefined ? line : `${held}\n${line}`;
    held = undefined;
    if (note !== undefined) refuseNoteNamedFile(note, whole, toAbsolute);
    note = undefined;
    const parsed = parseNumberedLine(whole);
    if (parsed === undefined) return false;
    if (unreachable.note(parsed.path)) return false;
    if (parsed.match && ++matches > limit) return true;
    if (parsed.path !== lastPath) {
      lastPath = parsed.path;
      lastAbsolute = toAbsolute(parsed.path);
    }
    const text = clipLineText(lossyText(parsed.text), dropped);
    answer.lines.push({ absolute: lastAbsolute, number: parsed.number, text, match: parsed.match });
    return false;
  };
  // The line not yet ended: its kept pieces, how many characters they hold, how many were dropped.
  let pieces: string[] = [];
  let kept = 0;
  let dropped = 0;
  const hold = (text: string) => {
    const room = KEPT_LINE_CHARS - kept;
    if (text.length <= room) {
      if (text !== "") pieces.push(text);
      kept += text.length;
    } else {
      if (room > 0) pieces.push(text.slice(0, room));
      kept += Math.max(room, 0);
      dropped += text.length - Math.max(room, 0);
    }
  };
  const end = (): boolean => {
    const line = pieces.join("");
    const more = dropped;
    pieces = [];
    kept = 0;
    dropped = 0;
    return take(line, more);
  };
  // As bytes: ripgrep prints a path as its bytes, and one that is not valid UTF-8, decoded by
  // Node, would read as its U+FFFD twin's (another file, or none).
  const decoder = escapingDecoder();
  for await (const chunk of stdout) {
    const text = decoder.write(chunk as Buffer);
    let start = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", start)) {
      hold(text.slice(start, at));
      start = at + 1;
      if (end()) return { answer, cut: true };
    }
    if (start < text.length) hold(text.slice(start));
  }
  if ((kept > 0 || dropped > 0) && end()) return { answer, cut: true };
  return { answer, cut: false };
}

/**
 * ripgrep's note about a binary file (no NUL after its path): `a.bin: WARNING: stopped searching
 * binary file after match (found "\0" byte around offset 303106)` after the lines of `a.bin`
 * (so its path is the last one printed), or `a.bin: binary file matches (found "\0" byte around
 * offset 0)` for a binary file named on its own.
 */
function isBinaryNote(text: string, lastPath: string): boolean {
  const match = BINARY_NOTE.exec(text);
  if (match === null) return false;
  return match[2] === "binary file matches" || match[1] === lastPath;
}

/**
 * Throws {@link RipgrepUnusableError} when the output line after a dropped binary-file note could
 * also be a record of a file whose name starts with that note: ripgrep's output cannot tell them
 * apart (the JavaScript engine answers).
 */
function refuseNoteNamedFile(note: string, line: string, toAbsolute: (text: string) => string): void {
  const other = parseNumberedLine(`${note}\n${line}`);
  if (other !== undefined && lstatOrUndefined(toAbsolute(other.path)) !== undefined) {
    throw new RipgrepUnusableError("ripgrep's output is ambiguous: a file name starts with its note about a binary file");
  }
}

const BINARY_NOTE =
  /^(.*): (WARNING: stopped searching binary file after match|binary file matches) \(found "\\0" byte around offset \d+\)$/s;

/** The longest run of lines without a NUL held as the start of a path (Linux paths are at most 4,096 bytes). */
const MAX_HELD_PATH_CHARS = 4096;

/** Characters of one output line kept: the printed text's limit plus room for the path and number before it. */
const KEPT_LINE_CHARS = GREP_MAX_LINE_CHARS + 8192;
