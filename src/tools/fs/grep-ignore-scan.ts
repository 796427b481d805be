import { type Dir, type Dirent, opendirSync, realpathSync, type Stats, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { specialFileKind } from "../../errors/special-file-kind.js";
import { isInsideDirectory } from "../sandbox/workspace-root.js";
import type { GrepGlobOverride } from "./grep-glob-override.js";
import {
  type GitAwareIgnoreFile,
  ignoreFilesAbove,
  ignoreFilesIn,
  isIgnoredAsRipgrep,
  isIgnoredGivenAbove,
  outsideRepository,
  type ReadIgnoreFile,
  toSlash,
} from "./grep-ignore-rules.js";
import { directoriesAboveStart, PARENT_IGNORE_FILE_NAMES } from "./grep-parent-ignores.js";
import { GREP_SKIPPED_DIRECTORIES } from "./grep-ripgrep.js";
import { lstatOrUndefined } from "./lstat-or-undefined.js";
import { StepPacer } from "./sync-slices.js";

/** The per-directory ignore files ripgrep reads with grep's arguments (`.git/info/exclude` apart). */
export const RIPGREP_IGNORE_FILE_NAMES: readonly string[] = [".rgignore", ".ignore", ".gitignore"];

/** The largest ignore file ripgrep is left to read; the JavaScript engine applies none larger either. */
export const MAX_RIPGREP_IGNORE_FILE_BYTES = 1024 * 1024;

/** An ignore file ripgrep must not be left to open, and why. */
export interface UnsafeIgnoreFile {
  readonly absolute: string;
  readonly reason: string;
}

/**
 * The ignore files under `start` that ripgrep would open and must not: ripgrep opens every
 * `.rgignore`, `.ignore`, `.gitignore` and `.git/info/exclude` of the directories it enters with a
 * plain blocking open and reads it whole, so one that is a named pipe blocked it until grep's
 * timeout, one linked to `/dev/zero` grew it without bound (it runs without a memory cgroup), and
 * one linked out of the workspace (a confined run) decided which workspace files were searched by
 * a file the JavaScript engine refuses to read. Found: a file that is not a regular file or a
 * directory (followed through links), one over {@link MAX_RIPGREP_IGNORE_FILE_BYTES}, and with
 * `confineTo` one whose real path is outside it. The walk enters what ripgrep enters: links not
 * followed, grep's skipped directories not entered, and, given `readIgnore`, no directory the
 * ignore files exclude (applied as it goes with the JavaScript engine's matcher, each file read by
 * grep's non-blocking reader once found safe): 20,000 directories under a gitignored `.venv/`
 * cost 0.4-0.8 s of the host's CPU per grep, and a named pipe in there, which ripgrep never opens,
 * made the JavaScript engine answer. Where that matcher and ripgrep's differ, ripgrep may enter a
 * directory the look skipped: its watch (`watchForBlockedRipgrep`) bounds what an ignore file met
 * there can do, as for one swapped in after the look. It stops at the first find. With `root`
 * (the workspace root), the ignore files of the directories from it down to `start`'s parent
 * (ripgrep is given them with `--ignore-file`) and of every directory above it up to `/` are
 * checked first: ripgrep 13 opens and reads those of every directory above the search root even
 * with `--no-ignore-parent` (it then does not apply them), so a named pipe `.gitignore` above the
 * workspace blocked it until grep's timeout.
 *
 * Synchronous listings paced by {@link StepPacer} (the event loop is yielded every few ms): one
 * thread-pool round trip per directory cost as much as ripgrep's whole search of a small tree
 * (10 ms for 30 directories); through the thread pool only when the disk makes steps slow.
 */
export async function findUnsafeIgnoreFile(
  start: string,
  options: {
    readonly confineTo?: string | undefined;
    readonly signal: AbortSignal;
    readonly root?: string;
    /** Told of each `.git` (a file or a directory) found below `start`: a nested repository's top. */
    readonly onRepository?: (directory: string) => void;
    /**
     * Told once of the first entry that ripgrep given the ignore files above `start` with
     * `--ignore-file` (ranked below all of the tree's) and ripgrep run at `root` (by kind first)
     * judge differently; the walk goes on. Needs `readIgnore`.
     */
    readonly onRankDifference?: (relative: string) => void;
    /**
     * Reads an ignore file found safe (grep's non-blocking, confined reader): with it the walk
     * applies the ignore rules as it goes and enters only what ripgrep enters. Without it every
     * directory but grep's skipped ones is entered.
     */
    readonly readIgnore?: ReadIgnoreFile;
    /**
     * grep's `glob`, as ripgrep's `--glob` decides before the ignore files: a directory it
     * whitelists (`*` matches every name) is entered though gitignored, one it excludes is not.
     * Without it the look skipped a gitignored directory ripgrep then entered with `-g '*'`, and
     * a named pipe ignore file there blocked ripgrep (bounded only by the watch, on Linux).
     */
    readonly glob?: GrepGlobOverride | undefined;
  },
): Promise<UnsafeIgnoreFile | undefined> {
  const root = options.root ?? start;
  const above = options.root === undefined ? undefined : unsafeParentIgnoreFile(options.root, start, options.confineTo);
  if (above !== undefined) return above;
  const { readIgnore } = options;
  const inherited = readIgnore === undefined ? [] : await ignoreFilesAbove(root, start, readIgnore);
  const pending: PendingDirectory[] = [{ directory: start, ignores: inherited }];
  const ranks = new RankComparison(root, inherited, readIgnore === undefined ? undefined : options.onRankDifference);
  const pacer = new StepPacer();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    options.signal.throwIfAborted();
    const { directory } = next;
    const subdirectories: string[] = [];
    const files: string[] = [];
    const ignoreNames: string[] = [];
    let repository = false;
    const unsafe = await eachEntry(directory, pacer, (entry) => {
      // No path is built for the other entries (most of them): a join per entry was half the walk's cost.
      // A directory of such a name (`.ignore/`) is entered, as ripgrep enters it.
      if (RIPGREP_IGNORE_FILE_NAMES.includes(entry.name) && !entry.isDirectory()) {
        ignoreNames.push(entry.name);
        return checkIgnoreFile(path.join(directory, entry.name), entry, options.confineTo);
      }
      if (entry.name === ".git") {
        repository = true;
        options.onRepository?.(directory);
        // With --no-require-git, ripgrep reads `.git/info/exclude` of every directory it enters.
        return checkIgnoreFile(path.join(directory, EXCLUDE), undefined, options.confineTo);
      }
      if (entry.isDirectory() && !GREP_SKIPPED_DIRECTORIES.includes(entry.name)) subdirectories.push(entry.name);
      else if (ranks.active && !entry.isDirectory()) files.push(entry.name);
      return undefined;
    });
    if (unsafe !== undefined) return unsafe;
    if (subdirectories.length === 0 && !ranks.active) continue;
    let ignores = next.ignores;
    if (readIgnore !== undefined) {
      // Read in ripgrep's precedence order, the exclude file first.
      const names = PARENT_IGNORE_FILE_NAMES.filter((name) => (name === EXCLUDE ? repository : ignoreNames.includes(name)));
      let own: GitAwareIgnoreFile[] = [];
      if (names.length > 0) {
        own = await ignoreFilesIn(root, directory, readIgnore, names);
        pacer.resumed();
      }
      ignores = [...(repository ? outsideRepository(ignores) : ignores), ...own];
    }
    ranks.compare(ignores, directory, files, subdirectories);
    // Reversed onto the stack: entered in listing order (the order does not change the answer).
    for (const name of subdirectories.reverse()) {
      const absolute = path.join(directory, name);
      if (entersDirectory(root, absolute, ignores, options.glob)) pending.push({ directory: absolute, ignores });
    }
  }
  return undefined;
}

/**
 * Whether ripgrep run at `root` enters `absolute`: its `--glob` decides first (a whitelisted
 * directory is entered though ignored, an excluded one is not), the ignore files where it says nothing.
 */
function entersDirectory(
  root: string,
  absolute: string,
  ignores: readonly GitAwareIgnoreFile[],
  glob: GrepGlobOverride | undefined,
): boolean {
  if (glob === undefined && ignores.length === 0) return true;
  const relative = toSlash(path.relative(root, absolute));
  const verdict = glob?.verdict(relative, true) ?? "none";
  return verdict === "include" || (verdict === "none" && !isIgnoredAsRipgrep(ignores, relative, true));
}

/**
 * Compares, entry by entry, what ripgrep run at `root` and ripgrep given the ignore files above
 * the search's start (`inherited`) with `--ignore-file` ignore; tells `report` of the first
 * entry they judge differently, then stops comparing.
 */
class RankComparison {
  private readonly givenAbove: ReadonlySet<GitAwareIgnoreFile>;
  /** Still comparing: something to compare with and nothing found yet. */
  active: boolean;

  constructor(
    private readonly root: string,
    inherited: readonly GitAwareIgnoreFile[],
    private readonly report: ((relative: string) => void) | undefined,
  ) {
    this.givenAbove = new Set(inherited);
    this.active = report !== undefined && inherited.length > 0;
  }

  /** Compares the entries of `directory` under `ignores` (the files that apply there). */
  compare(
    ignores: readonly GitAwareIgnoreFile[],
    directory: string,
    files: readonly string[],
    subdirectories: readonly string[],
  ) {
    if (!this.active || ignores.every((file) => this.givenAbove.has(file))) return;
    const differing = firstRankDifference(ignores, this.givenAbove, this.root, directory, files, subdirectories);
    if (differing === undefined) return;
    this.active = false;
    this.report?.(differing);
  }
}

/**
 * The first entry of `directory` (its files, then its sub-directories) that ripgrep run at `root`
 * and ripgrep given `givenAbove` with `--ignore-file` judge differently, relative to `root`.
 */
function firstRankDifference(
  ignores: readonly GitAwareIgnoreFile[],
  givenAbove: ReadonlySet<GitAwareIgnoreFile>,
  root: string,
  directory: string,
  files: readonly string[],
  subdirectories: readonly string[],
): string | undefined {
  for (const [names, isDirectory] of [
    [files, false],
    [subdirectories, true],
  ] as const) {
    for (const name of names) {
      const relative = toSlash(path.relative(root, path.join(directory, name)));
      if (
        isIgnoredAsRipgrep(ignores, relative, isDirectory) !== isIgnoredGivenAbove(ignores, givenAbove, relative, isDirectory)
      ) {
        return relative;
      }
    }
  }
  return undefined;
}

/** A directory still to look at, with the ignore files that apply in it. */
interface PendingDirectory {
  readonly directory: string;
  readonly ignores: readonly GitAwareIgnoreFile[];
}

const EXCLUDE = path.join(".git", "info", "exclude");

/**
 * Hands each entry of `directory` to `visit` until it finds an unsafe file (nothing when the
 * directory cannot be listed: ripgrep cannot list it either and names it as not searched):
 * synchronous reads, `pacer` stepped every {@link LISTING_BATCH} entries (a directory of 100,000
 * entries read in one call held the event loop for half a second), through the thread pool once
 * `pacer` found the disk slow.
 */
async function eachEntry(
  directory: string,
  pacer: StepPacer,
  visit: (entry: Dirent) => UnsafeIgnoreFile | undefined,
): Promise<UnsafeIgnoreFile | undefined> {
  if (pacer.slow) {
    for (const entry of await readdir(directory, { withFileTypes: true }).catch(() => [])) {
      const found = visit(entry);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const listing = openOrUndefined(directory);
  if (listing === undefined) return undefined;
  try {
    for (let count = 1, entry = readOrNull(listing); entry !== null; count++, entry = readOrNull(listing)) {
      const found = visit(entry);
      if (found !== undefined) return found;
      if (count % LISTING_BATCH === 0) await pacer.stepped();
    }
  } finally {
    listing.closeSync();
  }
  await pacer.stepped();
  return undefined;
}

/**
 * The first unsafe ignore file of the directories from `root` down to `start`'s parent, or above
 * `root` (its real path, as ripgrep resolves the search root) up to `/`. Those above are outside
 * the workspace by definition: only what they are counts (a named pipe, a device, their size).
 */
function unsafeParentIgnoreFile(root: string, start: string, confineTo: string | undefined): UnsafeIgnoreFile | undefined {
  const check = (directory: string, within: string | undefined) => {
    for (const name of PARENT_IGNORE_FILE_NAMES) {
      const found = checkIgnoreFile(path.join(directory, name), undefined, within);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const directory of directoriesAboveStart(root, start)) {
    const found = check(directory, confineTo);
    if (found !== undefined) return found;
  }
  const real = realOrUndefined(root) ?? root;
  for (let directory = path.dirname(real); ; directory = path.dirname(directory)) {
    const found = check(directory, undefined);
    if (found !== undefined) return found;
    if (path.dirname(directory) === directory) return undefined;
  }
}

/**
 * Why ripgrep must not open `file` (undefined when it may, or when there is none). Metadata only
 * (`lstat`, `stat`, `realpath`): none of them blocks on a named pipe or reads a device.
 */
function checkIgnoreFile(file: string, entry: Dirent | undefined, confineTo: string | undefined): UnsafeIgnoreFile | undefined {
  if (entry?.isDirectory() === true) return undefined;
  // Not only ENOENT: ENOTDIR (a `.git` file), ELOOP, EACCES mean ripgrep's open fails at once.
  const own = lstatOrUndefined(file);
  if (own === undefined) return undefined;
  let target = own;
  if (own.isSymbolicLink()) {
    // A dangling link or a loop: ripgrep's open fails at once.
    const followed = statOrUndefined(file);
    if (followed === undefined) return undefined;
    target = followed;
  }
  // A link, or an exclude file under a `.git` that may itself be a link: its real place counts.
  if (confineTo !== undefined && (own.isSymbolicLink() || entry === undefined)) {
    const real = realOrUndefined(file);
    if (real === undefined || !isInsideDirectory(confineTo, real))
      return { absolute: file, reason: "a link out of the workspace" };
  }
  if (target.isDirectory()) return undefined;
  if (!target.isFile()) return { absolute: file, reason: describeKind(target) };
  if (target.size > MAX_RIPGREP_IGNORE_FILE_BYTES) {
    return { absolute: file, reason: `over ${MAX_RIPGREP_IGNORE_FILE_BYTES / 1024 / 1024} MiB` };
  }
  return undefined;
}

/** Entries read from a directory per step. */
const LISTING_BATCH = 256;

/** The next entry, or `null` at the end; an error mid-listing ends it (ripgrep names such a directory). */
function readOrNull(listing: Dir): Dirent | null {
  try {
    return listing.readSync();
  } catch {
    return null;
  }
}

function openOrUndefined(directory: string): Dir | undefined {
  try {
    return opendirSync(directory, { bufferSize: LISTING_BATCH });
  } catch {
    return undefined;
  }
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** Why a file that is not a regular one was not read, in the file tools' words. */
function describeKind(stats: Stats): string {
  const kind = specialFileKind(stats);
  return kind === undefined ? "not a regular file" : `a ${kind}`;
}
