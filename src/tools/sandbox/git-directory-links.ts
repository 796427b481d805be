import { createHash } from "node:crypto";
import { type BigIntStats, type Dirent, fstatSync } from "node:fs";
import path from "node:path";
import { lstatSync, readdirSync, realpathSync, renameSync } from "./byte-paths.js";
import { withChildDirectory } from "./child-directory.js";
import { GIT_CONTROL_DIRECTORIES, GIT_CONTROL_FILES, GIT_SEQUENCER_DIRECTORIES, nowNs } from "./git-protection.js";
import { linkRouteInside, pathRelinkedOut, routeStaysInside } from "./link-route.js";
import { looseDirectoryUnchanged, rememberLooseDirectory } from "./loose-object-directories.js";
import { nestedAlternatesLeave } from "./nested-alternates.js";
import { alternatesReadings } from "./pointer-readings.js";
import { type QuarantinedState, SEQUENCER_QUARANTINE } from "./sequencer-quarantine.js";
import { readSmallFileText } from "./small-file-text.js";
import { workTreeInside, workTreeRelinked } from "./work-tree-value.js";
import { isInsideDirectory } from "./workspace-root.js";

/**
 * The link walk's bounds in one git directory: the most directories listed (the workspace walk's
 * own bound, GIT_SCAN_LIMITS.maxDirectories) and how deep it goes (each directory is opened from
 * the git directory down, component by component). Every entry of a listed directory is looked at
 * (its type comes with the listing); a directory left unlisted past either bound is moved aside
 * (`unlisted`). (Tests lower the bound, so that a flood past it is cheap to make.)
 */
export const gitDirectoryLinkLimits = { maxDirectories: 20_000, maxDepth: 32 };

/** Git's own directories, listed before any other. */
const GIT_OWN_DIRECTORIES = new Set([
  "refs",
  "logs",
  "objects",
  "info",
  "worktrees",
  "hooks",
  "branches",
  "objects/pack",
  "objects/info",
  "logs/refs",
  "logs/refs/heads",
  "logs/refs/remotes",
  "logs/refs/tags",
  "refs/heads",
  "refs/tags",
  "refs/remotes",
]);

/** The most bytes of `objects/info/alternates` read to be judged; a longer one is moved aside. */
const MAX_ALTERNATES_BYTES = 64 * 1024;

/**
 * `objects/<two hex digits>`: loose objects, named by their hash. Listed with git's own
 * directories (before any other of their level): git reads a loose object by name, follows a
 * link there and does not check the content against the name.
 */
const LOOSE_OBJECT_DIRECTORY = /^objects\/[0-9a-f]{2}$/i;

/** A loose-object directory's name inside `objects/`. */
const LOOSE_OBJECT_NAME = /^[0-9a-f]{2}$/i;

/** Git directories of their own inside one: each is looked at as a git directory by its own pass. */
const OWN_GIT_DIRECTORIES = new Set(["modules"]);

/** An entry of a git directory host git would follow out of the workspace, as a path relative to the git directory. */
export interface OutwardEntry {
  /** The path relative to the git directory (`COMMIT_EDITMSG`, `logs/HEAD`, `objects/info/alternates`). */
  readonly relative: string;
  /**
   * Why: a link leading out (or nowhere), an alternates file naming an object store outside, or a
   * directory past the walk's bounds (not looked at, so it may hold such links), or a link,
   * wherever it leads, at a place the next spawn binds read-only or pins (`unpinnable`, see
   * {@link pinnedPlace}).
   */
  readonly kind: "link" | "alternates" | "unlisted" | "unpinnable";
}

/**
 * The entries of the git directory behind `descriptor` through which host git would read or
 * write outside the workspace (real path `root`): every symbolic link whose route, resolved now,
 * leaves the workspace at any step or ends at nothing ({@link linkRouteInside}: judged without
 * looking at anything outside, so what is moved tells nothing of the host's files), and (with `alternates`) an
 * `objects/info/alternates` naming an object store outside it.
 *
 * Git opens its files by name and follows a link at any of them: `git commit` writes the message
 * into `COMMIT_EDITMSG` (truncating), every ref update appends a line to `logs/HEAD` and
 * `logs/refs/...`, `git fetch` writes `FETCH_HEAD`, and a link at a loose ref, `packed-refs`,
 * `refs/`, `objects/` or `objects/pack` has git read (and `git commit` move) another
 * repository's refs and objects. A command can replace any of these with a link to a host file
 * (a path it cannot read or write itself), and the user's next `git commit` there overwrites or
 * appends to that file; a link to a host repository's ref together with alternates naming its
 * objects has the user's `git reset --hard` check the host repository out into the workspace.
 * `git init`, `git clone` and git's own writes make no links (they write a new file and rename
 * it over the old name), so a link leading inside the workspace is left: it is judged again after
 * each command, as what it leads to may be relinked.
 *
 * Loose objects (`objects/xx/<rest of the hash>`) are listed too: a link there to a host
 * repository's object, named by an id the command knows, has the user's `git reset --hard`
 * check it out and `git gc` pack it (at most 256 such directories, one `readdir` each, with
 * the entries' types, so a link costs nothing more to find; one found holding no link and no
 * directory is not read again while its inode and times stay the same, loose-object-directories.ts).
 * `modules/` holds git directories
 * of their own, looked at by their own pass; earlier quarantines (`atc-quarantine-*`) are skipped.
 * At most `gitDirectoryLinkLimits.maxDirectories` directories are listed; those past it are moved aside.
 */
export function outwardGitEntries(descriptor: number, root: string, alternates: boolean): OutwardEntry[] {
  const found: OutwardEntry[] = [];
  linkedEntries(descriptor, root, found);
  if (alternates && !alternatesInside(descriptor, root)) found.push({ relative: "objects/info/alternates", kind: "alternates" });
  return found;
}

/**
 * Git's own directories first (`refs`, `logs`, `objects` and the loose-object directories,
 * `info`, `worktrees`, ...), then everything below git's own top-level directories, then the
 * rest, each breadth first: a flood of directories git never reads (at the top of the git
 * directory, say) cannot use up the bound before the ones it does read are looked at. A directory
 * the bound (or the depth) leaves unlisted may hold links, so it is an entry to move aside
 * (`unlisted`): a command that spent the bound on 20,001 directories at the top of `.git` had a
 * reflog linked to a host file three levels down left, and the user's commit wrote the host file.
 */
function linkedEntries(descriptor: number, root: string, found: OutwardEntry[]): void {
  let budget = gitDirectoryLinkLimits.maxDirectories;
  // Three tiers, each a queue read from its `next`: git's own directories, the rest of git's trees, the rest.
  const tiers: { readonly queue: PendingDirectory[]; next: number }[] = [
    { queue: [{ relative: "", depth: 0 }], next: 0 },
    { queue: [], next: 0 },
    { queue: [], next: 0 },
  ];
  for (;;) {
    const tier = tiers.find(({ queue, next }) => next < queue.length);
    if (tier === undefined) return;
    const { relative, depth } = tier.queue[tier.next++] as PendingDirectory;
    if (--budget < 0) {
      found.push({ relative, kind: "unlisted" });
      continue;
    }
    withPath(descriptor, relative === "" ? [] : relative.split("/"), (directory) => {
      const listed = listedEntries(directory, relative, root);
      // One push each: a directory may hold more entries than a call takes arguments.
      for (const link of listed.links) found.push(link);
      for (const child of listed.directories) {
        if (depth + 1 >= gitDirectoryLinkLimits.maxDepth) found.push({ relative: child, kind: "unlisted" });
        else tiers[tierOf(child)]?.queue.push({ relative: child, depth: depth + 1 });
      }
    });
  }
}

/** A directory the link walk has yet to list: its path relative to the git directory, and how deep it is. */
interface PendingDirectory {
  readonly relative: string;
  readonly depth: number;
}

/** Git's top-level directories, whose whole trees git reads (refs, reflogs, objects). */
const GIT_OWN_TREES = new Set(["refs", "logs", "objects", "info", "worktrees"]);

/** 0 for git's own directories, 1 for others in git's own trees, 2 for the rest. */
function tierOf(relative: string): number {
  if (gitOwnDirectory(relative)) return 0;
  return GIT_OWN_TREES.has(relative.split("/")[0] as string) ? 1 : 2;
}

function gitOwnDirectory(relative: string): boolean {
  return GIT_OWN_DIRECTORIES.has(relative) || LOOSE_OBJECT_DIRECTORY.test(relative);
}

/**
 * One directory's links leading out (or nowhere) and the sub-directories to look in next (relative
 * paths). A loose-object directory found clean before and unchanged since is not listed again
 * (loose-object-directories.ts: one `lstat` instead of a `readdir` of its objects).
 */
function listedEntries(directory: number, relative: string, root: string): { links: OutwardEntry[]; directories: string[] } {
  const links: OutwardEntry[] = [];
  const directories: string[] = [];
  const loose = LOOSE_OBJECT_DIRECTORY.test(relative);
  let before: BigIntStats | undefined;
  let listedAtNs = 0n;
  let entries: Dirent[];
  try {
    if (loose) {
      // Times first, then the listing: a change while it is read shows as a later time.
      listedAtNs = nowNs();
      before = fstatSync(directory, { bigint: true });
    }
    entries = readdirSync(`/proc/self/fd/${directory}`, { withFileTypes: true });
  } catch {
    return { links, directories };
  }
  let real: string | undefined;
  let holdsLinkOrDirectory = false;
  for (const entry of entries) {
    const name = entry.name;
    if (relative === "" && (name.startsWith(SEQUENCER_QUARANTINE) || OWN_GIT_DIRECTORIES.has(name))) continue;
    const child = relative === "" ? name : `${relative}/${name}`;
    if (entry.isSymbolicLink()) {
      holdsLinkOrDirectory = true;
      real ??= realDirectory(directory);
      if (real === undefined || linkRouteInside(real, name, root) === undefined) links.push({ relative: child, kind: "link" });
      else if (pinnedPlace(directory, relative, name)) links.push({ relative: child, kind: "unpinnable" });
    } else if (entry.isDirectory()) {
      holdsLinkOrDirectory = true;
      if (relative === "objects" && LOOSE_OBJECT_NAME.test(name) && looseUnchanged(directory, name)) continue;
      directories.push(child);
    }
  }
  if (before !== undefined) rememberLooseDirectory(before, listedAtNs, !holdsLinkOrDirectory);
  return { links, directories };
}

/** Names at the top of a git directory the spawn binds read-only (or lists as absent, to remove or move aside after). */
const PINNED_NAMES: ReadonlySet<string> = new Set([
  ...GIT_CONTROL_FILES,
  ...GIT_CONTROL_DIRECTORIES.filter((name) => !name.includes("/")),
  ...GIT_SEQUENCER_DIRECTORIES,
]);

/**
 * True when a link `name` in the directory behind `directory` (`relative` to the git directory)
 * stands where the next spawn binds read-only or pins (git-protection.ts): a control file or
 * directory (`config`, `hooks`, `info`, `objects/info`, `commondir`, `rebase-merge`, ...), or
 * `objects` leading to an `info`, of the git directory or of a worktree git directory in it, or any entry among `worktrees/` down to a
 * worktree git directory (a level without `HEAD`, as the spawn lists them). A mount follows a link,
 * so the spawn refuses every command of the workspace while one stands there: a command that left
 * `.git/worktrees/x` a link to a workspace directory stopped every later command (round 43).
 * Moved aside also when it leads inside (one leading out is moved as any such link, `link`).
 */
function pinnedPlace(directory: number, relative: string, name: string): boolean {
  const parts = relative === "" ? [] : relative.split("/");
  const inWorktrees = parts[0] === "worktrees";
  const gitDirectory = relative === "" || (inWorktrees && parts.length >= 2 && holdsHead(directory));
  if (gitDirectory && PINNED_NAMES.has(name)) return true;
  // `objects` when an `info` is reached through it: the spawn binds `objects/info` by path, through
  // the link, and the mount check then refuses it (without one, the spawn binds nothing there).
  if (gitDirectory && name === "objects" && reachesInfo(directory)) return true;
  if ((relative === "objects" || (inWorktrees && parts.at(-1) === "objects")) && name === "info") return true;
  return inWorktrees && !gitDirectory && (parts.length === 1 || !holdsHead(directory));
}

/** True when `objects/info` behind `directory` is there, followed through an `objects` link (as the spawn's `lstat` of the path does). */
function reachesInfo(directory: number): boolean {
  try {
    return lstatSync(`/proc/self/fd/${directory}/objects/info`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** True when the directory behind `directory` holds a `HEAD` (of any type): a git directory to the spawn's listing of `worktrees/` and `modules/`. */
function holdsHead(directory: number): boolean {
  try {
    return lstatSync(`/proc/self/fd/${directory}/HEAD`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** True when `objects/<name>` (behind `objects`, `directory`) was found clean and is unchanged since. */
function looseUnchanged(directory: number, name: string): boolean {
  try {
    const stats = lstatSync(`/proc/self/fd/${directory}/${name}`, { bigint: true, throwIfNoEntry: false });
    return stats !== undefined && looseDirectoryUnchanged(stats);
  } catch {
    return false;
  }
}

/** The real path of the directory behind `descriptor` (inside the workspace: it was opened from there, no link followed). */
function realDirectory(descriptor: number): string | undefined {
  try {
    return realpathSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}

/**
 * True when the git directory has no `objects/info/alternates`, or one whose every entry names a
 * directory inside the workspace (as git resolves it: relative to `objects/`, through the links
 * on the way as they are now). An entry git would unquote (`"..."`) is not judged (false).
 */
function alternatesInside(descriptor: number, root: string): boolean {
  const file = `/proc/self/fd/${descriptor}/objects/info/alternates`;
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return true;
  if (!stats.isFile()) return false;
  const text = readSmallFileText(file, MAX_ALTERNATES_BYTES);
  if (text === undefined) return false;
  let objects: string;
  try {
    objects = realpathSync(`/proc/self/fd/${descriptor}/objects`);
  } catch {
    return false;
  }
  if (!isInsideDirectory(root, objects)) return false;
  // Each entry as written (git resolves it from `objects/` through the links on the way, `..`
  // after a link from its target: round 43), never normalized first, and in every reading: git
  // takes the whole line, a trailing space or carriage return included (round 45).
  // And no store it names may lead out through its own alternates, which git reads too (round 45).
  return (
    alternatesReadings(text).every(
      (line) => !line.startsWith('"') && workTreeInside(line, objects, root) && routeStaysInside(objects, line, root),
    ) && !nestedAlternatesLeave(text, objects, root)
  );
}

/**
 * True when an entry of the protected git directory's own `objects/info/alternates` (the host's,
 * read-only to the command) names a place inside the workspace that now is, or lies behind, a
 * link out of it: a command replaced the object store it names with a link to a host
 * repository's objects, and host git reads them (with a ref the command set to a host commit
 * whose id it knows, the user's `git reset --hard` checks the host's files out). An entry naming
 * an outside place as written, or quoted, is the host's own setup and not judged (as
 * `core.worktree`, workTreeRelinked).
 */
export function alternatesRelinked(descriptor: number, root: string): boolean {
  const file = `/proc/self/fd/${descriptor}/objects/info/alternates`;
  if (lstatSync(file, { throwIfNoEntry: false })?.isFile() !== true) return false;
  const text = readSmallFileText(file, MAX_ALTERNATES_BYTES);
  let objects: string;
  try {
    objects = realpathSync(`/proc/self/fd/${descriptor}/objects`);
  } catch {
    return false;
  }
  // In every reading: git takes the whole line, a trailing space included (round 45).
  // Or a store inside that it names now leads out through its own alternates, which git reads
  // too and the command may write (round 45).
  return (
    alternatesReadings(text ?? "").some(
      (line) => !line.startsWith('"') && (workTreeRelinked(line, objects, root) || pathRelinkedOut(objects, line, root)),
    ) || nestedAlternatesLeave(text ?? "", objects, root)
  );
}

/**
 * Moves each outward entry aside to the top of its git directory (`atc-quarantine-link-<path>-<time>`,
 * where git reads nothing), one rename through handles opened without following a link, and
 * returns what it moved (`from`, `to` under `shown`).
 */
export function moveOutwardEntries(
  descriptor: number,
  shown: string,
  entries: readonly OutwardEntry[],
  now: Date,
): QuarantinedState[] {
  const moved: QuarantinedState[] = [];
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  for (const entry of entries) {
    const parts = entry.relative.split("/");
    const name = parts.pop() as string;
    withPath(descriptor, parts, (parent) => {
      const from = `/proc/self/fd/${parent}/${name}`;
      if (lstatSync(from, { throwIfNoEntry: false }) === undefined) return;
      const base = quarantineName(entry, stamp);
      for (let attempt = 1; attempt <= 100; attempt++) {
        const target = attempt === 1 ? base : `${base}-${attempt}`;
        if (lstatSync(`/proc/self/fd/${descriptor}/${target}`, { throwIfNoEntry: false }) !== undefined) continue;
        const to = `/proc/self/fd/${descriptor}/${target}`;
        renameSync(from, to);
        const outwardEntry =
          entry.kind === "link" || entry.kind === "unpinnable" ? movedLinkKind(from, to, entry.kind) : entry.kind;
        if (outwardEntry !== undefined)
          moved.push({ from: path.join(shown, entry.relative), to: path.join(shown, target), outwardEntry });
        return;
      }
      throw new Error(`Cannot move ${path.join(shown, entry.relative)} aside: every quarantine name is taken.`);
    });
  }
  return moved;
}

/** The longest name a Linux file system takes (`NAME_MAX`), in bytes. */
const NAME_MAX = 255;
/** Bytes kept for the `-<attempt>` suffix of a taken name. */
const ATTEMPT_SUFFIX = 4;

/**
 * `atc-quarantine-<kind>-<path with / as ->-<time>`, shortened to a file name's 255 bytes where the
 * path is long: the path's start, a digest of the whole path (two long paths with the same start
 * get two names) and the time. A command chooses the path (a ref or directory 32 levels deep, a
 * branch named with 200 characters), and a name past the limit failed the rename, so the link
 * stayed where host git would follow it.
 */
function quarantineName(entry: OutwardEntry, stamp: string): string {
  const flat = entry.relative.replaceAll("/", "-");
  const whole = `${SEQUENCER_QUARANTINE}-${entry.kind}-${flat}-${stamp}`;
  if (Buffer.byteLength(whole) <= NAME_MAX - ATTEMPT_SUFFIX) return whole;
  const head = `${SEQUENCER_QUARANTINE}-${entry.kind}-`;
  const tail = `-${createHash("sha256").update(entry.relative).digest("hex").slice(0, 16)}-${stamp}`;
  let room = NAME_MAX - ATTEMPT_SUFFIX - Buffer.byteLength(head) - Buffer.byteLength(tail);
  let start = "";
  for (const character of flat) {
    room -= Buffer.byteLength(character);
    if (room < 0) break;
    start += character;
  }
  return `${head}${start}${tail}`;
}

/**
 * What a rename of a link the walk found moved: a command of the same workspace still running can
 * swap another entry in between the listing and the rename (as the round 21 mount races do), and
 * a rename moves whatever stands at the name. Anything but a link is put back where the name is
 * free again (`undefined`: nothing of the command's was moved); when the racing command put
 * something there meanwhile it stays moved aside, and the note says so (`replaced`) rather than
 * calling it a link.
 */
function movedLinkKind(from: string, to: string, kind: "link" | "unpinnable"): "link" | "unpinnable" | "replaced" | undefined {
  if (lstatSync(to, { throwIfNoEntry: false })?.isSymbolicLink() !== false) return kind;
  if (lstatSync(from, { throwIfNoEntry: false }) !== undefined) return "replaced";
  try {
    renameSync(to, from);
    return undefined;
  } catch {
    return "replaced";
  }
}

/** Runs `use` with the directory at `parts` under `descriptor` opened component by component (no link followed). */
function withPath(descriptor: number, parts: readonly string[], use: (directory: number) => void): void {
  if (parts.length === 0) {
    use(descriptor);
    return;
  }
  withChildDirectory(descriptor, parts[0] as string, (next) => withPath(next, parts.slice(1), use));
}
