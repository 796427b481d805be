import type { BigIntStats, Dirent } from "node:fs";
import * as fs from "node:fs";
import path from "node:path";
import { DIRECTORY_FLAGS, fsPath, lstatSync, readdirSync, realpathSync } from "./byte-paths.js";
import { headHoldsGit } from "./git-head.js";
import { type IndexBudget, type IndexGitlinks, indexBudget, readIndexGitlinksWithin } from "./git-index-gitlinks.js";
import { foldGitName, isDotGitName, isGitNameSpelling, isHeadName } from "./git-names.js";
import { gitFileReadings, pointerFileReadings } from "./pointer-readings.js";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";
import { gatherAside, type QuarantinedState, SEQUENCER_QUARANTINE } from "./sequencer-quarantine.js";
import { readFileTextPrefix, readSmallFileText } from "./small-file-text.js";
import { isInsideDirectory } from "./workspace-root.js";

/**
 * Files directly in a git directory that git reads to decide what to run or where to look:
 * `config` (hooks path, fsmonitor, filters, includes), `config.worktree`, `commondir` and
 * `gitdir` (where the real repository is).
 */
export const GIT_CONTROL_FILES: readonly string[] = Object.freeze(["config", "config.worktree", "commondir", "gitdir"]);

/**
 * Directories of a git directory that git executes or follows: `hooks`, `info` (attributes,
 * excludes, grafts) and `objects/info` (`alternates`, which makes git read another object store).
 */
export const GIT_CONTROL_DIRECTORIES: readonly string[] = Object.freeze(["hooks", "info", path.join("objects", "info")]);

/**
 * The sequencer state of a git directory: an interrupted rebase's (`rebase-merge`, with its todo
 * list), `am`'s or the apply backend's (`rebase-apply`), a cherry-pick's or revert's
 * (`sequencer`). An `exec` line of a todo list runs, outside any sandbox, when the user types
 * `git rebase --continue`; the file tools refuse these directories for the same reason.
 */
export const GIT_SEQUENCER_DIRECTORIES: readonly string[] = Object.freeze(["rebase-merge", "rebase-apply", "sequencer"]);

/** Directories the workspace walk for nested repositories does not enter. */
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".hg", ".svn"]);

/** Bounds of the walk for nested repositories, so a huge workspace cannot stall every spawn. */
export const GIT_SCAN_LIMITS = Object.freeze({ maxDepth: 6, maxDirectories: 20_000 });

/** The bwrap arguments that protect a workspace's git state, and what to check after the command. */
export interface GitProtection {
  /** bwrap arguments (binds), in mount order. */
  readonly args: string[];
  /** Control files that did not exist at spawn: a command could create them; they are removed after it exits. */
  readonly absentControlFiles: string[];
  /**
   * Sequencer state (`rebase-merge`, …) that did not exist at spawn: what the command leaves
   * there is moved aside after it exits (never deleted: it may hold autostashed changes).
   */
  readonly absentSequencerState: string[];
  /** Every git directory protected (held after the command, to find the worktrees it added). */
  readonly gitDirectories: string[];
  /** Set-user-id and set-group-id files found by the walk, bound read-only (see {@link gitProtection}). */
  readonly setIdFiles: string[];
  /**
   * Regular files with more than one hard link found by the walk (at most {@link MAX_LINKED_FILES}),
   * with their identity: a name of a `readOnlyPaths` entry's file outside the entry is bound
   * read-only (see read-only-entry-links.ts).
   */
  readonly linkedFiles: LinkedFile[];
  /**
   * Every working tree found (a directory holding a `.git`) and its git directory, whose index's
   * gitlinks are looked at after the command (see gitlink-quarantine.ts).
   */
  readonly checkouts: GitCheckout[];
  /** The `.git` entries protected at spawn (host path to `dev:ino`): the only ones a gitlink may lead to afterwards. */
  readonly protectedDotGits: Map<string, string>;
  /**
   * Look-alikes of git's names in protected git directories at spawn (`HOOKS`, `Config`,
   * `rebase-merge.`; see {@link gitDirectoryLookAlike}), bound read-only: after the command, a
   * look-alike not among them was the command's and is moved aside (control-file-removal.ts).
   */
  readonly lookAlikes: string[];
  /**
   * The `objects/info` directories (in any spelling of either name: `OBJECTS/info`,
   * `objects/INFO`) protected at spawn, as {@link objectInfoKey}s: after the command any other
   * (one made under a look-alike `objects`, or under an `objects` the command put in the
   * original's place) is moved aside, since host git on a folding file system reads its
   * `alternates` (control-file-removal.ts).
   */
  readonly objectInfos: string[];
  /** What the spawn gathered aside past the bound of entries bound read-only one by one (see {@link MAX_QUARANTINES}). */
  readonly gathered: QuarantinedState[];
}

/** A regular file with several hard links, by one of its names, and its `dev:ino`. */
export interface LinkedFile {
  readonly path: string;
  readonly identity: string;
}

/** A working tree and the git directory holding its index. */
export interface GitCheckout {
  readonly root: string;
  readonly gitDirectory: string;
}

/**
 * Makes every piece of git state that git executes or follows read-only inside the sandbox, for
 * the workspace's repository and every nested repository (submodule checkouts, vendored repos)
 * present when the command starts:
 *
 * - each git directory is bound onto itself, so it cannot be renamed or replaced;
 * - its `config`, `config.worktree`, `commondir`, `gitdir` files are bound read-only (a mount
 *   point can be neither written, renamed nor removed);
 * - its `hooks`, `info` and `objects/info` directories are bound read-only (a missing one
 *   becomes an empty read-only tmpfs, which leaves an empty directory on the host);
 * - its sequencer state (`rebase-merge`, `rebase-apply`, `sequencer`) is bound read-only when
 *   present and, when absent, listed in `absentSequencerState` (a todo list's `exec` lines run
 *   unsandboxed on the user's `git rebase --continue`), to be moved aside after the command;
 * - `modules/*` (submodule git directories) and `worktrees/*` get the same, recursively;
 * - a `.git` file (a pointer to the real git directory) is bound read-only, and the directory it
 *   points to is protected too when it is inside the workspace.
 *
 * A control file that does not exist cannot be bound, so it is listed in `absentControlFiles`;
 * `holdControlFileDirectories` (control-file-removal.ts) removes any of them the command
 * created, after every sandboxed process has ended (the pid namespace guarantees that), through
 * a handle on its git directory.
 *
 * @throws SandboxUnavailableError when a protected entry is a symbolic link, which a mount cannot pin.
 */
export function gitProtection(workspace: string): GitProtection {
  const protection: GitProtection = {
    args: [],
    absentControlFiles: [],
    absentSequencerState: [],
    gitDirectories: [],
    setIdFiles: [],
    linkedFiles: [],
    checkouts: [],
    protectedDotGits: new Map(),
    lookAlikes: [],
    objectInfos: [],
    gathered: [],
  };
  const visited = new Set<string>();
  const headed: [directory: string, head: string][] = [];
  const scans = new ScanCache(workspace);
  let directories = 0;
  const walk = (directory: string, depth: number) => {
    if (++directories > GIT_SCAN_LIMITS.maxDirectories) return;
    const scan = scans.scan(directory);
    if (scan === undefined) return;
    // A git directory of any name (a bare `repo.git`): the same protection as a `.git` directory,
    // and its HEAD pinned too, since HEAD is how it is recognised (a command that could move it
    // away would have the next command overlook the repository and write its config).
    const head = scans.gitHead(directory, scan);
    if (head !== undefined) headed.push([directory, head]);
    // Every spelling of `.git` (see foldGitName): on a case- or normalisation-folding file system
    // `.GIT` is the `.git` host git opens; elsewhere it is protected all the same.
    for (const name of scan.dotGits) protectDotGit(workspace, path.join(directory, name), protection, visited);
    // Every regular file's mode is looked at, also in a reused listing: a bit set on an existing
    // file (`chmod u+s`, by the host) changes only the file's change time, not its directory's.
    protectSetIdFiles(directory, scan, protection);
    if (depth >= GIT_SCAN_LIMITS.maxDepth) return;
    for (const child of scan.subdirectoryPaths) walk(child, depth + 1);
  };
  walk(workspace, 0);
  scans.keep();
  protectGitlinkCheckouts(workspace, protection, visited);
  // After the walk, so the targets of `.git` files (protected by the pointer, which cannot change)
  // keep a writable HEAD for checkouts.
  for (const [directory, name] of headed) {
    if (visited.has(directory)) continue;
    const head = path.join(directory, name);
    // A mount would follow the link: git accepts a symlink HEAD (`refs/...`) but never writes one now.
    if (lstatSync(head, { throwIfNoEntry: false })?.isSymbolicLink()) throw symlinkHead(head);
    protectGitDirectory(workspace, directory, protection, visited);
    protection.args.push("--ro-bind", head, head);
  }
  return { ...protection, args: pinsFirst(protection.args) };
}

/**
 * `args` with every writable `--bind` (a git directory bound onto itself, to pin it) first,
 * parents before what they hold, then the read-only mounts in their order. A mount of a directory
 * is made from the host's tree, without the sandbox's mounts below it: a git directory pinned
 * after a read-only mount inside it covered that mount with the writable host directory. So a
 * command that wrote a `HEAD` as git writes it at a work tree's root (the workspace's too) had the
 * next command pin that root as a git directory over its `.git`'s protection: `.git/config` was
 * writable.
 */
function pinsFirst(args: readonly string[]): string[] {
  const pins: string[] = [];
  const rest: string[] = [];
  for (let index = 0; index < args.length; ) {
    const option = args[index];
    const length = option === "--tmpfs" ? 4 : 3;
    const mount = args.slice(index, index + length);
    (option === "--bind" ? pins : rest).push(...mount);
    index += length;
  }
  const pinned: string[][] = [];
  for (let index = 0; index < pins.length; index += 3) pinned.push(pins.slice(index, index + 3));
  // Fewer components first: a parent's pin before its children's (a stable sort keeps the rest's order).
  pinned.sort((a, b) => depth(a[2] ?? "") - depth(b[2] ?? ""));
  return [...pinned.flat(), ...rest];
}

const depth = (target: string) => target.split(path.sep).length;

/** What the walk needs of one directory's listing. */
interface DirectoryScan {
  /** The directory's identity and change times when it was listed (`undefined`: not cacheable). */
  readonly stamp: Stamp | undefined;
  /** Entries that are directories (not symlinks), in listing order, except the skipped ones. */
  readonly subdirectories: readonly string[];
  /**
   * Their full paths, made once with the listing: the same strings are the keys the next scan
   * and the walk after the command look listings up by (a string keeps its hash), so neither
   * joins nor hashes a path again per directory per spawn.
   */
  readonly subdirectoryPaths: readonly string[];
  /** Its entries named `.git` in any spelling (`isDotGitName`: `.GIT`, `.git.`, `git~1`, ...). */
  readonly dotGits: readonly string[];
  /**
   * Its entries named `HEAD` in any spelling (`isHeadName`) that are regular files or symlinks
   * (git accepts a symlink to `refs/...`).
   */
  readonly heads: readonly string[];
  /** Regular files when it was listed (their modes are looked at afresh at every scan). */
  readonly files: readonly string[];
  /**
   * Those files' full paths as `node:fs` takes them (see `fsPath`), made once with the listing:
   * the per-file `lstat` of every scan is most of a big workspace's cost, and joining and
   * checking each path again at every spawn was a third of it.
   */
  readonly fileTargets: readonly (string | Buffer)[];
  /** Whether the only `HEAD` holds what git writes, and the file's stamp when it was read. */
  headCheck?: { readonly stamp: Stamp | undefined; readonly git: boolean };
}

/** A file's identity and change times, in nanoseconds. */
interface Stamp {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/**
 * Changes this recent (by their change time) are not trusted to be seen: a file system may keep
 * times in coarse steps (a clock tick, a second, two on FAT), so an entry made just after a
 * listing can leave the same times. Git calls such entries "racily clean". (Tests shorten it on a
 * file system with fine times, so that they need not wait.)
 */
export const gitScanTiming = { racyMarginNs: 2_500_000_000n };

/** Workspaces whose scans are kept (the most recently scanned ones). */
const CACHED_WORKSPACES = 16;

const scanCaches = new Map<string, Map<string, DirectoryScan>>();

/** How many directory listings the scans (and the walks after commands) of this process read and reused (tests check the cache works). */
export const gitScanCounts = { listed: 0, reused: 0, walkListed: 0, walkReused: 0 };

function stampOf(target: string): { readonly stamp: Stamp; readonly directory: boolean; readonly file: boolean } | undefined {
  try {
    const stats = lstatSync(target, { bigint: true, throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    return {
      stamp: { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs },
      directory: stats.isDirectory(),
      file: stats.isFile(),
    };
  } catch {
    return undefined;
  }
}

function sameStamp(a: Stamp | undefined, b: Stamp | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}

/**
 * A stamp that can vouch for an unchanged entry later: its last change is not racily recent
 * (`gitScanTiming.racyMarginNs` before `listedAtNs`, the clock when it was listed); shared with
 * the link walk's memory of loose-object directories.
 */
export function settled<Times extends Pick<Stamp, "mtimeNs" | "ctimeNs">>(stamp: Times, listedAtNs: bigint): Times | undefined {
  const margin = gitScanTiming.racyMarginNs;
  return stamp.ctimeNs < listedAtNs - margin && stamp.mtimeNs < listedAtNs - margin ? stamp : undefined;
}

/** The clock now, in nanoseconds (as file times are kept). */
export const nowNs = () => BigInt(Date.now()) * 1_000_000n;

/**
 * The listings of one workspace's directories from the previous spawn, reused where a directory
 * is provably unchanged: same device, inode, size, modification and change time. Adding,
 * removing or renaming an entry changes its directory's times, and a command cannot set a change
 * time back (`utimes` sets it to now), so a new `.git` or a new directory is always seen. A
 * listing whose times were racily recent when it was taken is never reused; nor is a `HEAD`
 * file's verdict, which depends on its content, unless the file's own stamp is unchanged. What
 * `.git` files point at and what git directories hold is looked at afresh at every spawn.
 */
class ScanCache {
  private readonly previous: Map<string, DirectoryScan>;
  private readonly next = new Map<string, DirectoryScan>();

  constructor(private readonly workspace: string) {
    this.previous = scanCaches.get(workspace) ?? new Map();
  }

  /** The directory's listing (reused when unchanged), or `undefined` when it cannot be listed. */
  scan(directory: string): DirectoryScan | undefined {
    const current = stampOf(directory);
    const known = this.previous.get(directory);
    if (current?.directory === true && known !== undefined && sameStamp(known.stamp, current.stamp)) {
      this.next.set(directory, known);
      gitScanCounts.reused++;
      return known;
    }
    const listedAt = nowNs();
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return undefined;
    }
    gitScanCounts.listed++;
    const files = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    const subdirectories = entries
      .filter((entry) => entry.isDirectory() && !isDotGitName(entry.name) && !SKIPPED_DIRECTORIES.has(entry.name))
      .map((entry) => entry.name);
    const scan: DirectoryScan = {
      // Only a directory seen as such before the listing may vouch for it later.
      stamp: current?.directory === true ? settled(current.stamp, listedAt) : undefined,
      subdirectories,
      subdirectoryPaths: subdirectories.map((name) => path.join(directory, name)),
      ...gitEntries(entries),
      files,
      fileTargets: files.map((name) => fsPath(path.join(directory, name))),
    };
    this.next.set(directory, scan);
    return scan;
  }

  /**
   * The name of the directory's `HEAD` (in any spelling) that holds what git writes, or
   * `undefined`; the verdict on a directory's only `HEAD` is reused while the file is unchanged.
   */
  gitHead(directory: string, scan: DirectoryScan): string | undefined {
    const [only, ...others] = scan.heads;
    if (only === undefined) return undefined;
    // More than one spelling (`HEAD` and `head` where the file system tells them apart): each read.
    if (others.length > 0) return scan.heads.find((name) => headHoldsGit(path.join(directory, name)));
    const head = path.join(directory, only);
    const before = stampOf(head);
    if (scan.headCheck !== undefined && before?.file === true && sameStamp(scan.headCheck.stamp, before.stamp)) {
      return scan.headCheck.git ? only : undefined;
    }
    const readAt = nowNs();
    const git = headHoldsGit(head);
    scan.headCheck = { stamp: before?.file === true ? settled(before.stamp, readAt) : undefined, git };
    return git ? only : undefined;
  }

  /** Keeps this spawn's listings for the next one (only the directories visited now). */
  keep(): void {
    scanCaches.delete(this.workspace);
    scanCaches.set(this.workspace, this.next);
    while (scanCaches.size > CACHED_WORKSPACES) scanCaches.delete(scanCaches.keys().next().value as string);
  }
}

/** What the walk after a command needs of a directory's listing (see new-git-directories.ts). */
export interface WalkListing {
  /** Entries that are directories (not symlinks), except `.git` (in any spelling) and the skipped ones. */
  readonly subdirectories: readonly string[];
  /** Their full paths (`path.join` of the directory and each name), in the same order. */
  readonly subdirectoryPaths: readonly string[];
  /** Its entries named `.git` in any spelling (of any kind; see `isDotGitName`). */
  readonly dotGits: readonly string[];
  /** Its entries named `HEAD` in any spelling that are regular files or symlinks (see `isHeadName`). */
  readonly heads: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * The entries of a listing that name `.git` or `HEAD` in any spelling a file system may fold to
 * them (`foldGitName`): on a case- or normalisation-folding file system (APFS, ext4 or tmpfs with
 * `casefold`, vfat, exFAT, NTFS, CIFS) host git opening `.git` or `HEAD` gets a `.GIT` or `head`
 * a command made. Where the file system tells them apart they are protected too (a look-alike
 * no repository needs). Shared with the walk after each command (new-git-directories.ts).
 */
export function gitEntries(entries: readonly Dirent[]): Pick<WalkListing, "dotGits" | "heads"> {
  let dotGits = NONE;
  let heads = NONE;
  for (const entry of entries) {
    const name = entry.name;
    if (isDotGitName(name)) dotGits = [...dotGits, name];
    else if (isHeadName(name) && (entry.isFile() || entry.isSymbolicLink())) heads = [...heads, name];
  }
  return { dotGits, heads };
}

/**
 * The listing of `directory` that the last spawn's scan of `workspace` kept, when `stats` (the
 * directory's `lstat` or `fstat` now, bigint) shows it provably unchanged since (see
 * {@link ScanCache}): the walk after a command then need not list it again. A directory
 * renamed or moved keeps its times but is at another path, and a directory at a cached path
 * that is another one differs in identity, so neither is reused; a change below a directory
 * changes only its own parent's times, so the walk still visits every directory and only skips
 * reading unchanged ones.
 */
export function reusableListing(workspace: string, directory: string, stats: BigIntStats): WalkListing | undefined {
  const known = scanCaches.get(workspace)?.get(directory);
  if (known === undefined || !stats.isDirectory()) return undefined;
  if (!sameStamp(known.stamp, stats)) return undefined;
  gitScanCounts.walkReused++;
  return known;
}

const SET_ID_BITS = 0o6000;

/** The most set-id files one spawn binds read-only (each is a mount). */
export const MAX_SET_ID_FILES = 256;

/** Options of the per-file `lstat` (one object for every call). */
const NO_THROW = Object.freeze({ throwIfNoEntry: false });

/**
 * The most files with several hard links one spawn records (a few MB of names): a workspace with
 * more (pnpm's store links are in `node_modules`, which the walk skips) has the rest unrecorded.
 */
export const MAX_LINKED_FILES = 65_536;

/**
 * {@link protectSetIdFile} for every regular file of `scan`, through the listing's ready-made
 * paths; a file with several hard links is recorded in `linkedFiles` from the same `lstat`.
 */
function protectSetIdFiles(directory: string, scan: DirectoryScan, protection: GitProtection): void {
  const targets = scan.fileTargets;
  for (let index = 0; index < targets.length; index++) {
    const stats = fs.lstatSync(targets[index] as string | Buffer, NO_THROW);
    if (stats?.isFile() !== true) continue;
    if (stats.nlink > 1 && protection.linkedFiles.length < MAX_LINKED_FILES) {
      const file = path.join(directory, scan.files[index] as string);
      protection.linkedFiles.push({ path: file, identity: `${stats.dev}:${stats.ino}` });
    }
    if ((stats.mode & SET_ID_BITS) === 0) continue;
    protectSetIdFile(path.join(directory, scan.files[index] as string), protection);
  }
}

/**
 * Binds a set-id file the host put in the workspace read-only. The kernel clears set-id bits on
 * `write()` and truncation but not on a write through a shared mapping (`mmap(MAP_SHARED,
 * PROT_WRITE)`), and the sandbox user is the file's owner outside: without this a command
 * rewrote a set-user-id-root program and it kept its bit. A read-only mount refuses the
 * read-write open a writable mapping needs (`EROFS`), cannot be removed or renamed over, and a
 * hard link to it would cross mounts (`EXDEV`). Called for every regular file of every listing
 * at every scan (one `lstat` each), reused listings too: a file that gained a bit since its
 * directory was listed is bound, one that lost it or became something else is skipped.
 */
function protectSetIdFile(file: string, protection: GitProtection): void {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (stats?.isFile() !== true || (stats.mode & SET_ID_BITS) === 0) return;
  if (protection.setIdFiles.length >= MAX_SET_ID_FILES) {
    throw new SandboxUnavailableError(
      `The workspace holds more than ${MAX_SET_ID_FILES} set-user-id or set-group-id files (${file} and others): the sandbox keeps each read-only, since a command could rewrite one through a shared mapping and keep its bit. Clear the bits (chmod u-s,g-s) or move the files out of the workspace.`,
      { data: { path: file, reason: "too_many_set_id_files" } },
    );
  }
  protection.setIdFiles.push(file);
  protection.args.push("--ro-bind", file, file);
}

function protectDotGit(workspace: string, dotGit: string, protection: GitProtection, visited: Set<string>): void {
  const stats = lstatSync(dotGit, { throwIfNoEntry: false, bigint: true });
  if (stats === undefined) return;
  if (stats.isSymbolicLink()) throw unprotectable(dotGit);
  if (protection.protectedDotGits.has(dotGit)) return;
  const root = path.dirname(dotGit);
  if (stats.isDirectory()) {
    protection.protectedDotGits.set(dotGit, `${stats.dev}:${stats.ino}`);
    protection.checkouts.push({ root, gitDirectory: dotGit });
    protectGitDirectory(workspace, dotGit, protection, visited);
    return;
  }
  if (!stats.isFile()) return;
  protection.protectedDotGits.set(dotGit, `${stats.dev}:${stats.ino}`);
  protection.args.push("--ro-bind", dotGit, dotGit);
  // Its real path, as git opens it and as visited compares: `gitdir: ../lnk/.git` with `lnk` a
  // link to the workspace root, taken as spelled, was bound at a path through a link the mount
  // check never finds, and every later command was refused (round 43).
  const spelled = gitdirTarget(dotGit);
  const target = spelled === undefined ? undefined : (realPathOrUndefined(spelled) ?? spelled);
  if (target !== undefined) protection.checkouts.push({ root, gitDirectory: target });
  if (target !== undefined && isInsideDirectory(workspace, target)) {
    const targetStats = lstatSync(target, { throwIfNoEntry: false });
    if (targetStats?.isSymbolicLink()) throw unprotectable(target);
    if (targetStats?.isDirectory()) protectGitDirectory(workspace, target, protection, visited);
  }
}

/**
 * The most gitlinks followed and path components the kernel resolves for them at one spawn (every
 * checkout's together; each directory is looked up once, by its full path), and the most
 * directories opened for one index after the command (one by one through handles): the index is
 * the command's to write, so one of thousands of gitlinks 1,000 levels down a chain of
 * directories it made cannot stall the host's thread. A gitlink past them is not protected at
 * spawn; a `.git` there is moved aside after the command, and past `maxLookups` the index itself.
 */
export const GITLINK_LIMITS = Object.freeze({ maxGitlinks: 10_000, maxLookups: 5_000, maxComponentsResolved: 200_000 });

/**
 * Protects the checkouts host git enters through gitlinks, wherever they are: `git status` in a
 * repository runs git in each gitlink's directory that holds a `.git` (with that repository's own
 * config), also below the walk's depth or in `node_modules`, which the walk skips. A gitlink below
 * a link is not entered by git, nor by this. Checkouts found so are looked at for their own gitlinks.
 */
function protectGitlinkCheckouts(workspace: string, protection: GitProtection, visited: Set<string>): void {
  const budget = { gitlinks: GITLINK_LIMITS.maxGitlinks, lookups: GITLINK_LIMITS.maxComponentsResolved };
  const verified = new Set<string>();
  // One budget for every index this spawn reads: an index past it protects nothing here (as an
  // unreadable one), and is moved aside after the command, so host git enters none of its gitlinks.
  const reads = indexBudget();
  for (let index = 0; index < protection.checkouts.length; index++) {
    const checkout = protection.checkouts[index] as GitCheckout;
    if (!isInsideDirectory(workspace, checkout.root)) continue;
    const gitlinks = cachedGitlinks(checkout.gitDirectory, reads);
    if (typeof gitlinks === "string") continue;
    for (const gitlink of gitlinks) {
      if (--budget.gitlinks < 0) return;
      const dotGit = path.join(checkout.root, gitlink, ".git");
      if (protection.protectedDotGits.has(dotGit)) continue;
      const reachable = directoriesWithoutLinks(checkout.root, gitlink, verified, budget);
      if (reachable === "over budget") return;
      if (reachable) protectDotGit(workspace, dotGit, protection, visited);
    }
  }
}

/**
 * True when each component of `relative` below `root` is a directory, not a link (`verified`
 * remembers directories already looked at, `budget.lookups` bounds the path components resolved); false also for a
 * path the kernel cannot look up (`ENAMETOOLONG`), which git cannot enter either.
 */
function directoriesWithoutLinks(
  root: string,
  relative: string,
  verified: Set<string>,
  budget: { lookups: number },
): boolean | "over budget" {
  let current = root;
  let depth = 0;
  for (const part of relative.split("/")) {
    current = path.join(current, part);
    depth++;
    // Each step costs its depth: the path is built (and hashed) again, and the kernel resolves
    // every component of it for a lookup.
    budget.lookups -= depth;
    if (budget.lookups < 0) return "over budget";
    if (verified.has(current)) continue;
    try {
      if (lstatSync(current, { throwIfNoEntry: false })?.isDirectory() !== true) return false;
    } catch {
      return false;
    }
    verified.add(current);
  }
  return true;
}

const gitlinkCache = new Map<string, { readonly stamp: Stamp; readonly gitlinks: IndexGitlinks }>();

/** Indexes whose gitlinks are kept (the most recently read ones). */
const CACHED_INDEXES = 64;

/**
 * The gitlinks of a git directory's index, reused while the index file is provably unchanged
 * (same identity, size and times, not racily recent): git rewrites the index by renaming a new
 * file over it, and the parse costs about 10 ms per 100,000 entries. A read is charged to
 * `budget` (a reuse is not); an index the spent budget leaves unread is `"unreadable"`, and that
 * answer is not kept (the next pass, with its own budget, may read it).
 */
export function cachedGitlinks(gitDirectory: string, budget: IndexBudget): IndexGitlinks {
  const indexFile = path.join(gitDirectory, "index");
  const before = stampOf(indexFile);
  const known = gitlinkCache.get(indexFile);
  if (before?.file === true && known !== undefined && sameStamp(known.stamp, before.stamp)) return known.gitlinks;
  const readAt = nowNs();
  const gitlinks = readIndexGitlinksWithin(gitDirectory, budget);
  if (gitlinks === "over budget") return "unreadable";
  gitlinkCache.delete(indexFile);
  const stamp = before?.file === true ? settled(before.stamp, readAt) : undefined;
  if (stamp !== undefined) gitlinkCache.set(indexFile, { stamp, gitlinks });
  while (gitlinkCache.size > CACHED_INDEXES) gitlinkCache.delete(gitlinkCache.keys().next().value as string);
  return gitlinks;
}

function protectGitDirectory(workspace: string, gitDirectory: string, protection: GitProtection, visited: Set<string>): void {
  if (visited.has(gitDirectory)) return;
  visited.add(gitDirectory);
  protection.gitDirectories.push(gitDirectory);
  protection.args.push("--bind", gitDirectory, gitDirectory);
  for (const name of GIT_CONTROL_DIRECTORIES) {
    const directory = path.join(gitDirectory, name);
    const stats = lstatSync(directory, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink()) throw unprotectable(directory);
    if (stats === undefined) {
      // objects/info needs objects/ to exist on the host to be created as an empty mount point.
      if (lstatSync(path.dirname(directory), { throwIfNoEntry: false })?.isDirectory() !== true) continue;
      protection.args.push("--tmpfs", directory, "--remount-ro", directory);
    } else if (stats.isDirectory()) protection.args.push("--ro-bind", directory, directory);
    else throw unprotectable(directory);
  }
  for (const name of GIT_CONTROL_FILES) protectEntry(path.join(gitDirectory, name), protection.absentControlFiles, protection);
  // An operation interrupted at spawn keeps its sequencer state read-only (the user's todo list
  // is not rewritten); state present after the command that was not at spawn is moved aside (not
  // deleted: it may hold the user's autostashed changes, or be a rebase the user started on the
  // host meanwhile), so a rebase the command starts works within it but does not outlive it stopped.
  for (const name of GIT_SEQUENCER_DIRECTORIES)
    protectEntry(path.join(gitDirectory, name), protection.absentSequencerState, protection);
  const entries = listingOrNone(gitDirectory);
  // Look-alikes first: those past the bound are gathered into one new quarantine.
  const gathered = protectLookAlikes(gitDirectory, entries, protection);
  protectQuarantines(gitDirectory, gathered ? listingOrNone(gitDirectory) : entries, protection);
  for (const group of ["modules", "worktrees"]) {
    const parent = path.join(gitDirectory, group);
    for (const child of subdirectories(parent)) protectGitDirectory(workspace, child, protection, visited);
  }
  const commondir = path.join(gitDirectory, "commondir");
  const common = readPointer(commondir, (text) => pointerFileReadings(text)[0]);
  if (common !== undefined) {
    // Its real path, as git opens it (`..` after a link from the link's target) and as visited
    // compares: `lnk/.git` with `lnk` a link to the workspace root, resolved as spelled, named a
    // new path at each level (`lnk/lnk/.git`, ...) until ELOOP failed every later command (round 43).
    const resolved = realPathOrUndefined(path.resolve(gitDirectory, common));
    if (
      resolved !== undefined &&
      isInsideDirectory(workspace, resolved) &&
      lstatSync(resolved, { throwIfNoEntry: false })?.isDirectory() === true
    ) {
      protectGitDirectory(workspace, resolved, protection, visited);
    }
  }
}

/**
 * Binds read-only what earlier commands' ends moved aside in `gitDirectory` (`atc-quarantine-*`,
 * the prefix in any spelling (see foldGitName): sequencer state, the `config`, `hooks`,
 * `commondir` of a git directory a command created, look-alikes of git's names):
 * the result told the user to read it and `mv` it back, so a later command must not rewrite it in
 * between (a todo list's `exec` line, a config's `core.fsmonitor`), nor replace or remove it (a
 * mount point cannot be renamed). An entry of that name that is neither a directory nor a
 * regular file (a link) is left alone: bwrap would follow a link, and the host never names a
 * link it moved as a file to review.
 *
 * Each is a mount: past {@link MAX_QUARANTINES} (a command can make thousands of look-alikes,
 * each moved aside after it, or of such names) the ones past the first, in name order, are
 * gathered into one new quarantine directory (one rename each), which is bound instead: every
 * later spawn of the run keeps working (it refused with `too_many_quarantines` before), and what
 * was moved stays read-only.
 */
function protectQuarantines(gitDirectory: string, entries: readonly Dirent[], protection: GitProtection): void {
  let quarantines = entries
    .filter((entry) => (entry.isDirectory() || entry.isFile()) && isQuarantineName(entry.name))
    .map((entry) => entry.name)
    .sort();
  if (quarantines.length > MAX_QUARANTINES) {
    const extra = quarantines.slice(MAX_QUARANTINES - 1);
    const gathered = gatherInto(gitDirectory, extra, "gathered", protection);
    quarantines = [...quarantines.slice(0, MAX_QUARANTINES - 1), path.basename(gathered.to)];
  }
  for (const name of quarantines) {
    const quarantine = path.join(gitDirectory, name);
    protection.args.push("--ro-bind", quarantine, quarantine);
  }
}

const QUARANTINE_PREFIX = `${SEQUENCER_QUARANTINE}-`;

/** True when `name` starts with `atc-quarantine-` in any spelling (see foldGitName). */
export function isQuarantineName(name: string): boolean {
  const start = name.slice(0, QUARANTINE_PREFIX.length);
  if (start.toLowerCase() === QUARANTINE_PREFIX) return true;
  return /[^\x20-\x7e]/.test(name) && foldGitName(name).startsWith(QUARANTINE_PREFIX);
}

/**
 * Gathers `entries` of `gitDirectory` aside into one new quarantine (see `gatherAside`) through a
 * handle on the directory checked to be the one scanned; a failure refuses the spawn as the bound
 * did before (`too_many_quarantines`).
 */
function gatherInto(
  gitDirectory: string,
  entries: readonly string[],
  label: string,
  protection: GitProtection,
): QuarantinedState {
  const refuse = (cause?: unknown) =>
    new SandboxUnavailableError(
      `${gitDirectory} holds more than ${MAX_QUARANTINES} entries the sandbox keeps read-only one by one (look-alikes of git's names, or state moved aside after commands, such as ${entries[0]}), and they could not be gathered into one directory. Remove the ones not needed.`,
      { data: { path: gitDirectory, reason: "too_many_quarantines" }, ...(cause === undefined ? {} : { cause }) },
    );
  let descriptor: number;
  try {
    descriptor = fs.openSync(fsPath(gitDirectory), DIRECTORY_FLAGS);
  } catch (error) {
    throw refuse(error);
  }
  try {
    // At the very path scanned (no link in a parent swapped in by a parallel command).
    if (fs.readlinkSync(`/proc/self/fd/${descriptor}`) !== gitDirectory) throw refuse();
    const state = gatherAside(
      { descriptor, shown: gitDirectory, at: (name) => `/proc/self/fd/${descriptor}/${name}` },
      entries,
      label,
      new Date(),
    );
    protection.gathered.push(state);
    return state;
  } catch (error) {
    throw error instanceof SandboxUnavailableError ? error : refuse(error);
  } finally {
    fs.closeSync(descriptor);
  }
}

function listingOrNone(directory: string): Dirent[] {
  try {
    return readdirSync(directory, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * The names directly in a git directory that git executes, follows or continues from: its control
 * files and directories and its sequencer state.
 */
const GIT_DIRECTORY_NAMES: ReadonlySet<string> = new Set([...GIT_CONTROL_FILES, "hooks", "info", ...GIT_SEQUENCER_DIRECTORIES]);

/**
 * The git name (`hooks`, `config`, `rebase-merge`, ...) `name`, an entry directly in a git
 * directory, is a look-alike of (another spelling a file system may fold to it: `HOOKS`,
 * `Config`, `config.worktree.`, `config::$DATA`, `hoo\u212as`; see foldGitName), or `undefined`
 * for the name itself and any other name. Where the file system folds it (APFS, casefold ext4,
 * NTFS...), host git reading `hooks/pre-commit` opens the look-alike; where it does not, no
 * repository needs such a name, so it is kept read-only or moved aside all the same.
 */
export function gitDirectoryLookAlike(name: string): string | undefined {
  if (GIT_DIRECTORY_NAMES.has(name)) return undefined;
  const folded = foldGitName(name);
  return GIT_DIRECTORY_NAMES.has(folded) ? folded : undefined;
}

/**
 * Binds read-only the look-alikes of git's names (see {@link gitDirectoryLookAlike}) present in
 * `gitDirectory` at spawn, and those of `objects/info` (`OBJECTS/info`, `objects/INFO`: where the
 * file system folds names, host git reads `alternates` there), and lists them in
 * `protection.lookAlikes` (what is there after the command and not listed was the command's).
 * Every `objects/info` in any spelling is recorded in `protection.objectInfos`. A link is not
 * bound (bwrap would follow it): where the file system folds its name, the exact name's check saw
 * that very link and refused it.
 *
 * Each is a mount, as the quarantines are: past {@link MAX_QUARANTINES} (in name order) they are
 * gathered into one new quarantine directory (bound read-only with the quarantines) rather than
 * refusing the spawn, which let one command deny every later one of the run. True when some were.
 */
function protectLookAlikes(gitDirectory: string, entries: readonly Dirent[], protection: GitProtection): boolean {
  const found = entries
    .filter((entry) => gitDirectoryLookAlike(entry.name) !== undefined && (entry.isDirectory() || entry.isFile()))
    .map((entry) => entry.name);
  found.push(...objectInfoLookAlikes(gitDirectory, entries, protection));
  found.sort();
  const kept = found.slice(0, MAX_QUARANTINES);
  const extra = found.slice(MAX_QUARANTINES);
  if (extra.length > 0) gatherInto(gitDirectory, extra, "look-alikes", protection);
  for (const name of kept) {
    const lookAlike = path.join(gitDirectory, name);
    protection.lookAlikes.push(lookAlike);
    protection.args.push("--ro-bind", lookAlike, lookAlike);
  }
  return extra.length > 0;
}

/**
 * The `objects/info` look-alikes in `gitDirectory` (`OBJECTS/info`, `objects/INFO.`: relative
 * paths) that are directories or files, and the key of every `objects/info` in any spelling,
 * the exact one too, into `protection.objectInfos`: the exact `objects/info` is bound by name
 * (a tmpfs where it is missing, which then makes it on the host), so it is recorded by the
 * identity of the `objects` it is in.
 */
function objectInfoLookAlikes(gitDirectory: string, entries: readonly Dirent[], protection: GitProtection): string[] {
  const found: string[] = [];
  let exactListed = false;
  for (const objects of entries) {
    if (!objects.isDirectory() || !isGitNameSpelling(objects.name, "objects")) continue;
    const listed = infoEntries(path.join(gitDirectory, objects.name));
    if (listed === undefined) continue;
    if (objects.name === "objects") {
      exactListed = true;
      protection.objectInfos.push(objectInfoKey(gitDirectory, listed.identity, "info"));
    }
    for (const info of listed.infos) {
      protection.objectInfos.push(objectInfoKey(gitDirectory, listed.identity, info.name));
      if (objects.name === "objects" && info.name === "info") continue;
      if (info.bindable) found.push(path.join(objects.name, info.name));
    }
  }
  // Where the listing names it otherwise (a folding file system's `OBJECTS`), the exact name's lookup.
  const exact = exactListed ? undefined : stampOf(path.join(gitDirectory, "objects"));
  if (exact?.directory === true) protection.objectInfos.push(objectInfoKey(gitDirectory, identityKey(exact.stamp), "info"));
  return found;
}

const identityKey = (stamp: Stamp) => `${stamp.dev}:${stamp.ino}`;

/** An object directory's entries named `info` in any spelling, and whether each is a directory or regular file. */
interface InfoEntries {
  readonly identity: string;
  readonly infos: readonly { readonly name: string; readonly bindable: boolean }[];
}

/**
 * The listings of object directories kept between spawns, reused while the directory is provably
 * unchanged (as {@link ScanCache}'s): an `objects` holds up to 258 entries (the fan-out, `pack`,
 * `info`), and listing each git directory's at every spawn cost a quarter more of the spawn's
 * scan on 100 repositories.
 */
const infoListings = new Map<string, { readonly stamp: Stamp; readonly entries: InfoEntries }>();

/** Object directories whose listings are kept (the most recently listed ones). */
const CACHED_INFO_LISTINGS = 1024;

function infoEntries(directory: string): InfoEntries | undefined {
  const current = stampOf(directory);
  if (current?.directory !== true) return undefined;
  const known = infoListings.get(directory);
  if (known !== undefined && sameStamp(known.stamp, current.stamp)) return known.entries;
  const listedAt = nowNs();
  const entries: InfoEntries = {
    identity: identityKey(current.stamp),
    infos: listingOrNone(directory)
      .filter((entry) => isGitNameSpelling(entry.name, "info"))
      .map((entry) => ({ name: entry.name, bindable: entry.isDirectory() || entry.isFile() })),
  };
  infoListings.delete(directory);
  const stamp = settled(current.stamp, listedAt);
  if (stamp !== undefined) infoListings.set(directory, { stamp, entries });
  while (infoListings.size > CACHED_INFO_LISTINGS) infoListings.delete(infoListings.keys().next().value as string);
  return entries;
}

/**
 * How an `objects/info` protected at spawn is known after the command: its git directory (the
 * host path at spawn), the identity of the `objects` directory it is in (in any spelling; a
 * command may put another directory at that name) and its own name.
 */
export function objectInfoKey(gitDirectory: string, objectsIdentity: string, infoName: string): string {
  return `${gitDirectory}\u0000${objectsIdentity}\u0000${infoName}`;
}

/** The most moved-aside entries (sequencer state, config, hooks) one git directory may hold (each is bound read-only at spawn). */
export const MAX_QUARANTINES = 64;

/** Binds `entry` read-only, or lists it in `absent` (dealt with after the command if it made it). */
function protectEntry(entry: string, absent: string[], protection: GitProtection): void {
  const stats = lstatSync(entry, { throwIfNoEntry: false });
  if (stats?.isSymbolicLink()) throw unprotectable(entry);
  if (stats === undefined) absent.push(entry);
  else protection.args.push("--ro-bind", entry, entry);
}

/** Sub-directories of `parent`, recursively for nested submodules (`modules/a/modules/b`). */
function subdirectories(parent: string): string[] {
  const found: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(parent, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    const full = path.join(parent, entry.name);
    if (entry.isSymbolicLink()) throw unprotectable(full);
    if (!entry.isDirectory()) continue;
    // A submodule name may contain slashes (modules/libs/a): a directory without HEAD is a level.
    if (lstatSync(path.join(full, "HEAD"), { throwIfNoEntry: false }) !== undefined) found.push(full);
    else found.push(...subdirectories(full));
  }
  return found;
}

/**
 * The git directory a `.git` file names, in git's reading (`gitdir: ` and the rest, white space
 * kept but for trailing line breaks: `gitdir: ../x ` is `x `; round 45), else the trimmed one.
 */
function gitdirTarget(dotGitFile: string): string | undefined {
  return readPointer(dotGitFile, (text) => gitFileReadings(text)[0]);
}

/** The longest pointer file (`.git`, `commondir`) read: a path, far below it in any real repository. */
const MAX_POINTER_BYTES = 64 * 1024;

function readPointer(file: string, parse: (text: string) => string | undefined): string | undefined {
  const text = readFileTextPrefix(file, MAX_POINTER_BYTES);
  if (text === undefined) return undefined;
  const value = parse(text);
  if (value === undefined || value === "") return undefined;
  return path.resolve(path.dirname(file), value);
}

function symlinkHead(head: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `${head} is a symbolic link git accepts as HEAD (a git directory), so the sandbox cannot keep it read-only and a ` +
      "sandboxed command could move it away to have the repository overlooked. Replace it with a file holding `ref: ` and the link's target.",
    { data: { path: head } },
  );
}

function unprotectable(linkPath: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `${linkPath} is a symbolic link, so the sandbox cannot keep it read-only and a sandboxed command could ` +
      "redirect it to plant git hooks. Replace it with the directory or file it points to.",
    { data: { path: linkPath } },
  );
}

/** The real path of `target`, or undefined when it cannot be resolved (missing, a loop). */
function realPathOrUndefined(target: string): string | undefined {
  try {
    return realpathSync(target);
  } catch {
    return undefined;
  }
}
