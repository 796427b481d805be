import { type BigIntStats, closeSync, type Dirent, fstatSync, type Stats } from "node:fs";
import path from "node:path";
import { DIRECTORY_FLAGS, lossyText, lstatSync, openSync, readdirSync, readlinkSync, realpathSync } from "./byte-paths.js";
import { withChildDirectory } from "./child-directory.js";
import { configAssignments, configLine } from "./config-assignments.js";
import { alternatesRelinked, moveOutwardEntries, outwardGitEntries } from "./git-directory-links.js";
import { headHoldsGit } from "./git-head.js";
import { type IndexBudget, readIndexGitlinks } from "./git-index-gitlinks.js";
import { foldGitName, isDotGitName } from "./git-names.js";
import { GIT_SCAN_LIMITS, gitEntries, gitScanCounts, reusableListing, type WalkListing } from "./git-protection.js";
import { linkRouteInside, pathRelinkedOut, routeEnd, routeStaysInside } from "./link-route.js";
import { gitFileReadings, pointerFileReadings } from "./pointer-readings.js";
import { repositoryUrlKept, repositoryUrlRelinked } from "./remote-url-value.js";
import { type QuarantineDirectory, type QuarantinedState, quarantineEntry } from "./sequencer-quarantine.js";
import { readFileTextPrefix, readSmallFileText } from "./small-file-text.js";
import { workTreeInside, workTreeRelinked } from "./work-tree-value.js";
import { isInsideDirectory } from "./workspace-root.js";

/** Directories the walk does not enter (as the spawn's git scan). */
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".hg", ".svn"]);

/** The longest `config` of a new repository that is read to be judged; a longer one is moved aside. */
const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * Config keys of a repository the command created that are kept: what `git init`, `git clone`
 * (also `--recurse-submodules`), `git submodule add`/`update --init` and `git config user.*` write,
 * none of which makes git run a command or read another file (git-config(1)). `<name>` stands for
 * any subsection. Any other key has the whole file moved aside: a list of the keys that run
 * commands would never be complete (`core.fsmonitor`, `core.hooksPath`, `core.sshCommand`,
 * `core.pager`, `core.editor`, `core.askPass`, `sequence.editor`, `include.path`,
 * `includeIf.*`, `filter.*`, `diff.*.textconv`, `diff.*.command`, `merge.*.driver`, `alias.*`,
 * `credential.*`, `remote.*.uploadpack`/`receivepack`, `uploadpack.packObjectsHook`,
 * `url.*.insteadOf`, `gpg.program`, ...).
 */
const KEPT_CONFIG_KEYS = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "core.worktree",
  "extensions.objectformat",
  "remote.<name>.url",
  "remote.<name>.pushurl",
  "remote.<name>.fetch",
  "branch.<name>.remote",
  "branch.<name>.merge",
  "init.defaultbranch",
  "user.name",
  "user.email",
  "submodule.active",
  "submodule.<name>.url",
  "submodule.<name>.active",
  "submodule.<name>.update",
]);

/** Kept keys whose value can still run a command: `submodule.<name>.update = !command` runs it at `git submodule update`. */
const COMMAND_VALUES = new Set(["submodule.<name>.update"]);

/**
 * Kept keys whose value names a repository host git reads or writes at the user's `git fetch`,
 * `git push`, `git pull` or `git submodule update` (`branch.<name>.remote` is a URL when no remote
 * of that name is configured): kept only as a network URL or a path inside the workspace
 * (repositoryUrlKept).
 */
const REPOSITORY_URL_KEYS = new Set([
  "remote.<name>.url",
  "remote.<name>.pushurl",
  "submodule.<name>.url",
  "branch.<name>.remote",
]);

/**
 * Judges a kept key's value where the key alone says too little: `core.worktree` is kept only
 * naming a directory inside the workspace (see workTreeInside), a repository URL only as a network
 * URL or a path inside it (see repositoryUrlKept); any other value moves the config.
 */
type ValueCheck = (key: string, value: string | undefined) => boolean;

/** A {@link ValueCheck} for the git directory behind `descriptor` in the workspace at `root` (real path). */
function valueCheck(descriptor: number, root: string): ValueCheck {
  return (key, value) => {
    const judge = key === "core.worktree" ? workTreeInside : REPOSITORY_URL_KEYS.has(key) ? repositoryUrlKept : undefined;
    if (judge === undefined) return true;
    try {
      return judge(value, realpathSync(`/proc/self/fd/${descriptor}`), root);
    } catch {
      return false;
    }
  };
}

/** The real path of the directory behind a held handle (the workspace root, a git directory); `undefined` when it cannot be read. */
function rootPath(descriptor: number): string | undefined {
  try {
    return realpathSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}

/**
 * What git executes or follows in a git directory the command created: moved aside after it
 * (when present and not as `git init` or `git clone` leave it) with one rename each, through the
 * held handle (sequencer-quarantine.ts).
 */
export interface NewGitDirectoryRepairs {
  /** Hooks, config, config.worktree and commondir moved aside. */
  readonly moved: QuarantinedState[];
  /** Git directories found that were not there at spawn (host paths). */
  readonly found: string[];
}

/**
 * After a command: finds the git directories it created (a `.git` directory or a directory whose
 * `HEAD` is git's, in the workspace within the spawn scan's bounds, and submodule git directories
 * under `modules/` of the git directories protected at spawn) and moves aside what host git run
 * there would execute or follow: a `hooks` directory holding more than git's `*.sample` files,
 * a `config` or `config.worktree` with a key outside {@link KEPT_CONFIG_KEYS}, a `commondir`. Host git, or the user,
 * working in such a repository later would otherwise run the command's hooks or its
 * `core.fsmonitor`. Every directory is opened through its parent's handle without following a
 * link (`root` and `held` were opened at spawn), never by path: the command may have moved or
 * replaced workspace directories with links to host ones.
 *
 * @param root - the workspace root, held since spawn
 * @param known - every git directory protected at spawn (host paths)
 * @param held - the handles of those git directories
 */
export function repairNewGitDirectories(
  root: QuarantineDirectory & { readonly descriptor: number },
  known: ReadonlySet<string>,
  held: ReadonlyMap<string, { readonly descriptor: number }>,
  now: Date,
  movedThisExit: ReadonlySet<string> = new Set(),
  protectedDotGits?: ReadonlyMap<string, string>,
): NewGitDirectoryRepairs {
  const repairs: NewGitDirectoryRepairs = { moved: [], found: [] };
  // Known by identity too: a command may have moved a protected repository (`mv a a-away`).
  const identities = new Set([...held.values()].map((handle) => identity(handle.descriptor)));
  const realRoot = rootPath(root.descriptor);
  const context: WalkContext = {
    root,
    realRoot,
    known: (shown, descriptor) => known.has(shown) || identities.has(identity(descriptor)),
    movedThisExit,
    repairs,
    budget: { directories: GIT_SCAN_LIMITS.maxDirectories },
    repaired: new Set(),
    now,
    protectedPointers: protectedDotGits === undefined ? undefined : new Set(protectedDotGits.values()),
  };
  walk(root.descriptor, root.shown, 0, context);
  // New git directories inside protected ones: submodules' (`modules/`) and worktrees'
  // (`worktrees/<name>/`, whose `config.worktree` git reads in that worktree's checkout).
  for (const [gitDirectory, handle] of held) {
    repairRelinkedWorkTree(handle.descriptor, gitDirectory, context);
    repairRelinkedPointers(handle.descriptor, gitDirectory, context);
    // Links the command made in a protected git directory (its config and hooks are read-only,
    // the rest is the command's): `COMMIT_EDITMSG`, `logs/HEAD`, refs, loose objects. Its
    // `objects/info` is bound read-only or moved aside at spawn, so its alternates are the
    // host's: judged only for a store inside the workspace the command relinked out.
    if (realRoot !== undefined) {
      const outward = outwardGitEntries(handle.descriptor, realRoot, false);
      if (alternatesRelinked(handle.descriptor, realRoot))
        outward.push({ relative: "objects/info/alternates", kind: "alternates" });
      for (const state of moveOutwardEntries(handle.descriptor, gitDirectory, outward, now)) repairs.moved.push(state);
    }
    for (const group of ["modules", "worktrees"]) {
      withChildDirectory(handle.descriptor, group, (directory) =>
        newSubmoduleDirectories(directory, path.join(gitDirectory, group), context, {
          descriptor: handle.descriptor,
          shown: gitDirectory,
        }),
      );
    }
  }
  return repairs;
}

/**
 * Moves aside the config of a git directory protected at spawn whose `core.worktree`, or a
 * repository URL (remote, push, submodule URL, `branch.<name>.remote`), names a place inside the
 * workspace that now is (or lies behind) a link out of it (see workTreeRelinked,
 * repositoryUrlRelinked): the config was read-only, but what it names was the command's to
 * replace. Restored with the `mv` the result gives, once the link is gone.
 */
function repairRelinkedWorkTree(descriptor: number, shown: string, context: WalkContext): void {
  const root = context.realRoot;
  if (root === undefined) return;
  const directory: QuarantineDirectory = { descriptor, shown, at: (name) => `/proc/self/fd/${descriptor}/${name}` };
  const named = spellings(descriptor);
  for (const file of CONFIG_FILES) {
    for (const name of named(file)) {
      const text = readSmallFileText(directory.at(name), MAX_CONFIG_BYTES);
      if (text === undefined) continue;
      const gitDirectory = rootPath(descriptor);
      if (gitDirectory === undefined) continue;
      const relinked = configAssignments(text).find(
        ({ key, value }) =>
          (key === "core.worktree" && workTreeRelinked(value, gitDirectory, root)) ||
          (REPOSITORY_URL_KEYS.has(key) && repositoryUrlRelinked(value, gitDirectory, root)),
      );
      if (relinked === undefined) continue;
      const state = quarantineEntry(directory, name, context.now);
      if (state === undefined) continue;
      context.repairs.moved.push(
        relinked.key === "core.worktree" ? { ...state, relinkedWorkTree: true } : { ...state, relinkedRepository: relinked.key },
      );
    }
  }
}

/**
 * Moves aside the `commondir` or `gitdir` of a git directory protected at spawn (read-only to the
 * command) that names a place inside the workspace, as written, whose route now leaves it through
 * a link (pathRelinkedOut: also `..` after one): `commondir` naming `lnk/.git`, `lnk` a workspace
 * link to the workspace root when the worktree was made and relinked to a host repository by a
 * later command, had the user's git in that worktree read and commit into the host repository;
 * `gitdir` the same had `git worktree repair` write a `.git` file there (round 43). A value naming
 * an outside place as written is the host's own setup (a worktree the user made elsewhere) and is
 * not judged.
 */
function repairRelinkedPointers(descriptor: number, shown: string, context: WalkContext): void {
  const root = context.realRoot;
  const gitDirectory = rootPath(descriptor);
  if (root === undefined || gitDirectory === undefined) return;
  const directory: QuarantineDirectory = { descriptor, shown, at: (name) => `/proc/self/fd/${descriptor}/${name}` };
  const named = spellings(descriptor);
  for (const file of ["commondir", "gitdir"] as const) {
    for (const name of named(file)) {
      // Every reading of it (git's keeps a trailing space the trimmed one drops: round 45).
      const text = readFileTextPrefix(directory.at(name), MAX_POINTER_BYTES);
      const value = pointerFileReadings(text ?? "").find((reading) => pathRelinkedOut(gitDirectory, reading, root));
      if (value === undefined) continue;
      const state = quarantineEntry(directory, name, context.now);
      if (state !== undefined) context.repairs.moved.push({ ...state, pointer: notedPointer(file, value, "relinked") });
    }
  }
}

/** What the walk after a command carries along. */
interface WalkContext {
  readonly root: QuarantineDirectory & { readonly descriptor: number };
  /** Whether a git directory found after the command was protected at spawn (by its path then, or its identity). */
  readonly known: (shown: string, descriptor: number) => boolean;
  /** Repositories the gitlink quarantine moved aside in this exit (host paths): one move per repository. */
  readonly movedThisExit: ReadonlySet<string>;
  readonly repairs: NewGitDirectoryRepairs;
  readonly budget: { directories: number };
  /** Identities of the git directories repaired (one reached by a walk and by a pointer is repaired once). */
  readonly repaired: Set<string>;
  readonly now: Date;
  /**
   * The workspace root's real path, read once from its held handle (every sandboxed process has
   * ended, so it stays put while the walk runs); undefined when it cannot be read.
   */
  readonly realRoot: string | undefined;
  /** Identities (`dev:ino`) of the `.git` files protected at spawn; undefined: pointers naming an outside place are not judged. */
  readonly protectedPointers: ReadonlySet<string> | undefined;
}

function identity(descriptor: number): string {
  try {
    const stats = fstatSync(descriptor, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return "";
  }
}

function walk(descriptor: number, shown: string, depth: number, context: WalkContext): void {
  if (--context.budget.directories < 0) return;
  const listed = listingOf(descriptor, shown, context);
  // `HEAD` and `.git` in every spelling a file system may fold to them (`.GIT`, `head`: see
  // git-names.ts), each looked at by the name it has.
  const heads = listed.heads.filter((name) => headHoldsGit(`/proc/self/fd/${descriptor}/${name}`));
  if (heads.length > 0) {
    repairIfNew(descriptor, shown, context);
    // A `HEAD` link git accepts (`refs/...`) is one the spawn pins read-only here and refuses.
    for (const name of heads) moveUnpinnable(descriptor, shown, name, context);
  }
  for (const name of listed.dotGits) {
    const child = path.join(shown, name);
    const stats = lstatSync(`/proc/self/fd/${descriptor}/${name}`, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) {
      if (!context.movedThisExit.has(child)) withChildDirectory(descriptor, name, (git) => repairIfNew(git, child, context));
    } else if (stats !== undefined) {
      followPointer(descriptor, shown, name, stats, context);
      // A `.git` link still there leads inside: the spawn cannot keep it read-only and refuses it.
      if (stats.isSymbolicLink()) moveUnpinnable(descriptor, shown, name, context);
    }
  }
  if (depth >= GIT_SCAN_LIMITS.maxDepth) return;
  const children = listed.subdirectoryPaths;
  for (let index = 0; index < children.length; index++) {
    const name = listed.subdirectories[index] as string;
    const child = children[index] as string;
    if (context.movedThisExit.has(child) || unchangedLeaf(descriptor, name, child, context)) continue;
    withChildDirectory(descriptor, name, (next) => walk(next, child, depth + 1, context));
  }
}

/**
 * Moves `name` in the directory behind `descriptor` aside (beside it, `atc-quarantine-<name>-<time>`)
 * when it is a symbolic link: a `.git` or a git directory's `HEAD`, which the next spawn binds
 * read-only and so refuses as a link, stopping every later command of the workspace.
 */
function moveUnpinnable(descriptor: number, shown: string, name: string, context: WalkContext): void {
  const at = (held: string) => `/proc/self/fd/${descriptor}/${held}`;
  if (lstatSync(at(name), { throwIfNoEntry: false })?.isSymbolicLink() !== true) return;
  const state = quarantineEntry({ descriptor, shown, at }, name, context.now);
  if (state !== undefined) context.repairs.moved.push({ ...state, outwardEntry: "unpinnable" });
}

/**
 * The directory's listing: the spawn scan's, when the directory (by `fstat` of the handle the
 * walk holds) is provably unchanged since (same identity, size and times; see
 * `reusableListing`), else read now through the handle.
 */
function listingOf(descriptor: number, shown: string, context: WalkContext): WalkListing {
  let stats: BigIntStats | undefined;
  try {
    stats = fstatSync(descriptor, { bigint: true });
  } catch {
    stats = undefined;
  }
  const reused = stats === undefined ? undefined : reusableListing(context.root.shown, shown, stats);
  if (reused !== undefined) return reused;
  gitScanCounts.walkListed++;
  const entries = listing(descriptor);
  const subdirectories = entries
    .filter((entry) => entry.isDirectory() && !isDotGitName(entry.name) && !SKIPPED_DIRECTORIES.has(entry.name))
    .map((entry) => entry.name);
  return {
    subdirectories,
    subdirectoryPaths: subdirectories.map((name) => path.join(shown, name)),
    ...gitEntries(entries),
  };
}

/**
 * True when `name` in the directory behind `descriptor` is a directory the spawn scan listed as
 * holding nothing the walk looks at (no sub-directory, `.git` or `HEAD`) and is provably
 * unchanged since: one `lstat` instead of opening, reading and closing it (most directories of
 * a large tree are such leaves). It counts against the walk's budget as a visit would.
 */
function unchangedLeaf(descriptor: number, name: string, shown: string, context: WalkContext): boolean {
  let stats: BigIntStats | undefined;
  try {
    stats = lstatSync(`/proc/self/fd/${descriptor}/${name}`, { bigint: true, throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (stats === undefined) return false;
  const reused = reusableListing(context.root.shown, shown, stats);
  if (reused === undefined || reused.subdirectories.length > 0 || reused.dotGits.length > 0 || reused.heads.length > 0)
    return false;
  context.budget.directories--;
  return true;
}

/** The longest `.git` file read (a `gitdir:` line). */
const MAX_POINTER_BYTES = 64 * 1024;

/**
 * A `.git` file (`gitdir: <path>`) or a `.git` symlink (`name`: `.git` in any spelling) in the directory behind `descriptor`:
 * host git in that directory uses the git directory it names, wherever it is, so the walk's
 * bounds (depth, `node_modules`) do not apply to it. The target's real path (git follows links
 * in it), when inside the workspace, is opened from the held root one component at a time without
 * following a link, and repaired when it is a git directory the command created; a component
 * swapped for a link in between has the pointer itself moved aside. A target outside the
 * workspace is not the command's to write (every sandboxed process has ended by now), but host
 * git would read and commit into it: a pointer leading there (through a link, or as written and
 * not protected at spawn) is moved aside first ({@link pointerRelinkedOut}).
 */
function followPointer(descriptor: number, shown: string, name: string, entry: Stats, context: WalkContext): void {
  // Named inside the workspace but leading out through a link (`gitdir: ../hostgit`, `hostgit` a
  // link to a host repository's git directory; `../.git/modules/x` made such a link): host git in
  // that directory would read the host repository and commit into it (round 41).
  const leads = pointerRelinkedOut(descriptor, name, entry, context);
  if (leads !== undefined) {
    movePointer(descriptor, shown, name, entry, leads, context);
    return;
  }
  // Each reading's target (git's keeps white space the trimmed one drops: round 45).
  let outcome: "link" | undefined;
  for (const value of pointerValues(descriptor, name, entry)) {
    const repaired = withPointerTarget(context.root, descriptor, value, (target, targetShown) => {
      if (headHoldsGit(`/proc/self/fd/${target}/HEAD`)) repairIfNew(target, targetShown, context);
    });
    outcome ??= repaired;
  }
  // Swapped for a link since the path was resolved (a parallel command): not followed.
  if (outcome === "link") movePointer(descriptor, shown, name, entry, "swapped", context);
}

/**
 * Runs `use` with the git directory a `.git` file or symlink in the directory behind `descriptor`
 * names (`value`, one reading of it: {@link pointerValues}), opened from the held root one
 * component at a time without following a link, when its real path is inside the workspace.
 * `"link"` when a component was swapped for a link after the path was resolved; `undefined` when
 * there is no such directory in the workspace.
 */
function withPointerTarget(
  root: { readonly descriptor: number; readonly shown: string },
  descriptor: number,
  value: string,
  use: (target: number, targetShown: string) => void,
): "link" | undefined {
  // Git follows links in the path, `..` from where a link led: followed component by component
  // (routeEnd), never normalized first. `gitdir: ../dd/../.git` with `dd` a link to a host
  // repository's `.git` is the workspace's `.git` to `path.resolve` and the host repository to
  // git: a gitlink's checkout below the walk's depth so pointed was judged by the protected
  // `.git`, kept, and the user's `git submodule update` detached the host repository's HEAD and
  // checked its files out into the workspace (round 43).
  const rootShown = root.shown;
  const realRoot = realPathOr(rootShown);
  const holder = rootPath(descriptor);
  if (holder === undefined) return undefined;
  const target = routeEnd(holder, value, realRoot);
  if (target === undefined || !isInsideDirectory(realRoot, target)) return undefined;
  const relative = path.relative(realRoot, target);
  let current = root.descriptor;
  let currentShown = rootShown;
  const opened: number[] = [];
  try {
    for (const part of relative === "" ? [] : relative.split(path.sep)) {
      const next = `/proc/self/fd/${current}/${part}`;
      if (lstatSync(next, { throwIfNoEntry: false })?.isSymbolicLink() === true) return "link";
      try {
        current = openSync(next, DIRECTORY_FLAGS);
      } catch {
        return undefined;
      }
      opened.push(current);
      currentShown = path.join(currentShown, part);
    }
    use(current, currentShown);
    return undefined;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

/**
 * True when the `.git` in `holder` (a gitlink's directory, opened without following a link;
 * `holder.dotGit` names the spelling judged, `.git` by default) leads host git to nothing the command could have planted for it to run: it is a directory, or
 * a `.git` file naming one inside the workspace, that either was protected at spawn (by identity,
 * `knownIdentities`: its config and hooks were read-only throughout) or holds only what `git
 * init`/`git clone` write (hooks as samples, a config within {@link KEPT_CONFIG_KEYS}, no
 * `commondir` but one naming a protected git directory) and no submodules of its own (no
 * `modules/`, no gitlink in its index, which host git would enter next). Such a repository (one
 * the user cloned or `git submodule update --init` made on the host while the command ran) is
 * left where it is; anything else at a gitlink (a `.git` symlink, a pointer out of the workspace
 * or through a link) is not judged and is moved aside whole. Its index is read within `budget`
 * (one whose read the budget does not cover vouches for nothing).
 */
export function inertGitlinkRepository(
  root: { readonly descriptor: number; readonly shown: string },
  holder: { readonly descriptor: number; readonly shown: string; readonly dotGit?: string },
  knownIdentities: ReadonlySet<string>,
  budget: IndexBudget,
): boolean {
  // The spelling of `.git` being judged (`.GIT` where a folding file system gives it to host git).
  const name = holder.dotGit ?? ".git";
  let stats: Stats | undefined;
  try {
    stats = lstatSync(`/proc/self/fd/${holder.descriptor}/${name}`, { throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (stats === undefined) return true;
  let inert = false;
  const realRoot = rootPath(root.descriptor);
  if (realRoot === undefined) return false;
  const judge = (gitDirectory: number) => {
    inert = inertGitDirectory(gitDirectory, knownIdentities, budget, realRoot);
  };
  if (stats.isDirectory()) withChildDirectory(holder.descriptor, name, judge);
  else if (stats.isFile()) {
    // Inert only when the git directory of every reading is (git's keeps a trailing space the
    // trimmed one drops: round 45).
    const values = pointerValues(holder.descriptor, name, stats);
    for (const value of values) {
      inert = false;
      withPointerTarget(root, holder.descriptor, value, judge);
      if (!inert) return false;
    }
    return values.length > 0;
  }
  return inert;
}

function inertGitDirectory(descriptor: number, knownIdentities: ReadonlySet<string>, budget: IndexBudget, root: string): boolean {
  if (knownIdentities.has(identity(descriptor))) return true;
  const directory: QuarantineDirectory = { descriptor, shown: "", at: (name) => `/proc/self/fd/${descriptor}/${name}` };
  const named = spellings(descriptor);
  if (!headHoldsGit(directory.at("HEAD")) || named("hooks").some((name) => hooksRun(directory, name))) return false;
  const values = valueCheck(descriptor, root);
  if (!CONFIG_FILES.every((file) => named(file).every((name) => configKept(directory.at(name), values)))) return false;
  for (const name of named("commondir")) {
    if (!commondirKnown(directory, name, root, (common) => knownIdentities.has(identity(common)))) return false;
  }
  if (named("gitdir").some((name) => gitdirLeavesWorkspace(directory, name, root))) return false;
  if (named("modules").length > 0 || outwardGitEntries(descriptor, root, true).length > 0) return false;
  const gitlinks = readIndexGitlinks(`/proc/self/fd/${descriptor}`, budget);
  return gitlinks === "absent" || (typeof gitlinks !== "string" && gitlinks.length === 0);
}

function realPathOr(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}

/**
 * What a `.git` file (`gitdir: <value>`) or `.git` symlink `name` in the directory behind
 * `descriptor` names, as written: a symlink's target, or every reading of the file
 * ({@link gitFileReadings}: git's first, keeping white space the trimmed one drops).
 */
function pointerValues(descriptor: number, name: string, entry: Stats): string[] {
  try {
    if (entry.isSymbolicLink()) {
      const target = readlinkSync(`/proc/self/fd/${descriptor}/${name}`);
      return target === "" ? [] : [target];
    }
    if (!entry.isFile()) return [];
    return gitFileReadings(readFileTextPrefix(`/proc/self/fd/${descriptor}/${name}`, MAX_POINTER_BYTES) ?? "");
  } catch {
    return [];
  }
}

/**
 * Why the `.git` file or symlink `name` is moved aside: `relinked` when it names a git directory
 * inside the workspace, as written, that now leads out of it through a link; `outside` when it
 * names one outside as written and is not a `.git` file protected at spawn; else undefined.
 */
function pointerRelinkedOut(
  descriptor: number,
  name: string,
  entry: Stats,
  context: WalkContext,
): "outside" | "relinked" | undefined {
  const root = context.realRoot;
  const directory = rootPath(descriptor);
  if (root === undefined || directory === undefined) return undefined;
  // Every reading: git's keeps white space the trimmed one drops (round 45).
  for (const value of pointerValues(descriptor, name, entry)) {
    // Naming an outside place as written: the host's own pointer (protected at spawn, read-only
    // throughout) is kept; one the command wrote (`gitdir: /home/user/repo/.git`) is not.
    if (!isInsideDirectory(root, path.resolve(directory, value))) {
      if (context.protectedPointers !== undefined && !context.protectedPointers.has(`${entry.dev}:${entry.ino}`))
        return "outside";
      continue;
    }
    if (pathRelinkedOut(directory, value, root)) return "relinked";
  }
  return undefined;
}

/** The longest pointer value a note quotes (the command wrote it; the note is the model's to read). */
const NOTED_POINTER_CHARACTERS = 200;

/**
 * A pointer's record for its note: what it held as written (never where it resolved), cut to
 * {@link NOTED_POINTER_CHARACTERS}.
 */
function notedPointer(
  file: NonNullable<QuarantinedState["pointer"]>["file"],
  value: string,
  why: NonNullable<QuarantinedState["pointer"]>["why"],
): NonNullable<QuarantinedState["pointer"]> {
  // Bytes that are not UTF-8 shown as U+FFFD (the value is read keeping them: readSmallFileText).
  const text = lossyText(value);
  const shown = text.length > NOTED_POINTER_CHARACTERS ? `${text.slice(0, NOTED_POINTER_CHARACTERS)}...` : text;
  return { file, value: shown, why };
}

/**
 * Moves a `.git` pointer (`name`: in any spelling) aside whose target leads out of the workspace
 * (`why`) or which the walk cannot look at without following a link (`swapped`); the note says
 * what it pointed to, as written, and why.
 */
function movePointer(
  descriptor: number,
  shown: string,
  name: string,
  entry: Stats,
  why: NonNullable<QuarantinedState["pointer"]>["why"],
  context: WalkContext,
): void {
  const value = pointerValues(descriptor, name, entry)[0] ?? "";
  const directory: QuarantineDirectory = { descriptor, shown, at: (held) => `/proc/self/fd/${descriptor}/${held}` };
  const state = quarantineEntry(directory, name, context.now);
  if (state !== undefined) context.repairs.moved.push({ ...state, pointer: notedPointer(".git", value, why) });
}

/** A git directory opened without following a link, and its host path. */
interface GitDirectoryHandle {
  readonly descriptor: number;
  readonly shown: string;
}

/** Submodule git directories under `modules/` (nested names, `modules/a/modules/b`) not known at spawn. */
function newSubmoduleDirectories(descriptor: number, shown: string, context: WalkContext, top: GitDirectoryHandle): void {
  for (const entry of listing(descriptor)) {
    // A link among submodule git directories leading out (to a host repository's git directory):
    // a `.git` file naming it, or `git submodule update`, has host git use that repository (round
    // 41). One leading inside is moved too (`unpinnable`): the next spawn binds each git directory
    // here onto itself and refuses a link, so it stopped every later command (round 43).
    if (entry.isSymbolicLink()) {
      const root = context.realRoot;
      const real = rootPath(descriptor);
      const out = root === undefined || real === undefined || linkRouteInside(real, entry.name, root) === undefined;
      // Moved to the top of the git directory, as the link walk moves links: a link left under
      // `modules/`, whatever its name, is one the spawn's listing there refuses.
      const relative = path.relative(top.shown, path.join(shown, entry.name));
      const moved = moveOutwardEntries(top.descriptor, top.shown, [{ relative, kind: out ? "link" : "unpinnable" }], context.now);
      for (const state of moved) context.repairs.moved.push(state);
      continue;
    }
    if (!entry.isDirectory() || --context.budget.directories < 0) continue;
    const child = path.join(shown, entry.name);
    withChildDirectory(descriptor, entry.name, (directory) => {
      const isGit = lstatSync(`/proc/self/fd/${directory}/HEAD`, { throwIfNoEntry: false }) !== undefined;
      if (!isGit) newSubmoduleDirectories(directory, child, context, top);
      else if (!context.known(child, directory)) repairIfNew(directory, child, context);
      else
        withChildDirectory(directory, "modules", (modules) =>
          newSubmoduleDirectories(modules, path.join(child, "modules"), context, { descriptor: directory, shown: child }),
        );
    });
  }
}

/** Repairs the git directory unless it was protected at spawn, moved aside whole in this exit, or already repaired. */
function repairIfNew(descriptor: number, shown: string, context: WalkContext): void {
  if (context.known(shown, descriptor) || context.movedThisExit.has(shown)) return;
  const id = identity(descriptor);
  if (id === "" || context.repaired.has(id)) return;
  context.repaired.add(id);
  repair(descriptor, shown, context);
}

/** Moves aside what git would run or follow in the new git directory, and looks at its own submodules. */
function repair(descriptor: number, shown: string, context: WalkContext): void {
  context.repairs.found.push(shown);
  const directory: QuarantineDirectory = { descriptor, shown, at: (name) => `/proc/self/fd/${descriptor}/${name}` };
  const move = (name: string) => {
    const state = quarantineEntry(directory, name, context.now);
    if (state !== undefined) context.repairs.moved.push(state);
  };
  // Each name in every spelling the directory holds (`HOOKS`, `Config`: see spellings).
  const named = spellings(descriptor);
  for (const name of named("hooks")) if (hooksRun(directory, name)) move(name);
  const root = context.realRoot;
  const values: ValueCheck = root === undefined ? () => false : valueCheck(descriptor, root);
  for (const file of CONFIG_FILES) for (const name of named(file)) if (!configKept(directory.at(name), values)) move(name);
  const movePointerFile = (file: "commondir" | "gitdir", name: string) => {
    const value = readFileTextPrefix(directory.at(name), MAX_POINTER_BYTES)?.trim() ?? "";
    const state = quarantineEntry(directory, name, context.now);
    if (state === undefined) return;
    const written = root !== undefined && isInsideDirectory(root, path.resolve(realPathOr(`/proc/self/fd/${descriptor}`), value));
    context.repairs.moved.push({ ...state, pointer: notedPointer(file, value, written ? "relinked" : "outside") });
  };
  for (const name of named("commondir"))
    if (!commondirKnown(directory, name, root, (common) => context.known("", common))) movePointerFile("commondir", name);
  for (const name of named("gitdir")) if (gitdirLeavesWorkspace(directory, name, root)) movePointerFile("gitdir", name);
  if (root !== undefined) {
    const outward = outwardGitEntries(descriptor, root, true);
    for (const state of moveOutwardEntries(descriptor, shown, outward, context.now)) context.repairs.moved.push(state);
  }
  withChildDirectory(descriptor, "modules", (modules) =>
    newSubmoduleDirectories(modules, path.join(shown, "modules"), context, { descriptor, shown }),
  );
}

/**
 * True when the git directory's `commondir` names a git directory protected at spawn (compared by
 * identity): what `git worktree add` writes (`../..`), whose config and hooks were read-only
 * during the command. Any other `commondir` is moved aside. The value is followed as the kernel
 * follows it (routeEnd: `d/../.git` with `d` a link to a host repository's `.git` is that
 * repository to git, though `path.resolve` makes it the workspace's `.git`; round 43), within the
 * workspace `root` (a real path).
 */
function commondirKnown(
  directory: QuarantineDirectory,
  name: string,
  root: string | undefined,
  known: (common: number) => boolean,
): boolean {
  const readings = pointerFileReadings(readFileTextPrefix(directory.at(name), MAX_POINTER_BYTES) ?? "");
  if (readings.length === 0 || root === undefined) return false;
  // Every reading must name a protected git directory (git's keeps a trailing space: round 45).
  return readings.every((text) => {
    let common: number;
    try {
      const end = routeEnd(realpathSync(`/proc/self/fd/${directory.descriptor}`), text, root);
      if (end === undefined) return false;
      common = openSync(end, DIRECTORY_FLAGS);
    } catch {
      return false;
    }
    try {
      return known(common);
    } finally {
      closeSync(common);
    }
  });
}

/**
 * True when the worktree git directory's `gitdir` (the worktree's `.git` file, which `git
 * worktree repair` writes when it is missing and `git worktree list` shows) names a place outside
 * the workspace, as written or on its route (routeStaysInside). A worktree the command made
 * inside the workspace names its own checkout there; one naming a host directory had the user's
 * `git worktree repair` create `<host directory>/.git` (round 43).
 */
function gitdirLeavesWorkspace(directory: QuarantineDirectory, name: string, root: string | undefined): boolean {
  const readings = pointerFileReadings(readFileTextPrefix(directory.at(name), MAX_POINTER_BYTES) ?? "");
  if (readings.length === 0) return false;
  if (root === undefined) return true;
  try {
    const start = realpathSync(`/proc/self/fd/${directory.descriptor}`);
    // Any reading leaving: git's keeps a leading space, the trimmed one drops it (round 45).
    return readings.some((text) => !routeStaysInside(start, text, root));
  } catch {
    return true;
  }
}

/**
 * The config files git reads in a git directory: `config`, and `config.worktree`, which git reads
 * in a worktree's own git directory (`worktrees/<name>/`) and in the main one when the repository
 * has `extensions.worktreeConfig` (what `git sparse-checkout` sets): a `core.fsmonitor` planted
 * there runs at the user's next `git status` as surely as one in `config`.
 */
const CONFIG_FILES = ["config", "config.worktree"] as const;

/**
 * The entries of the git directory behind `descriptor` that name a given git name (`hooks`,
 * `config`, `commondir`, `modules`, ...) in any spelling a file system may fold to it
 * (foldGitName: `HOOKS`, `Config`, `commondir.`): where the file system folds names, host git
 * opening `hooks/` opens the one the command made as `HOOKS/`, and where it does not, the
 * look-alike is judged (and moved aside) all the same. An unlistable directory answers the exact
 * name, looked at as before.
 */
function spellings(descriptor: number): (name: string) => string[] {
  let names: string[];
  try {
    names = readdirSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return (name) => [name];
  }
  const folded = names.map((name) => [name, foldGitName(name)] as const);
  return (wanted) => folded.filter(([, fold]) => fold === wanted).map(([name]) => name);
}

/** True when `name` (`hooks` in some spelling) is anything but a directory of git's `*.sample` files (which git never runs). */
function hooksRun(directory: QuarantineDirectory, name = "hooks"): boolean {
  const stats = lstatSync(directory.at(name), { throwIfNoEntry: false });
  if (stats === undefined) return false;
  if (!stats.isDirectory()) return true;
  try {
    return readdirSync(directory.at(name)).some((hook) => !hook.endsWith(".sample"));
  } catch {
    return true;
  }
}

/** True when there is no `config`, or one whose every key is in {@link KEPT_CONFIG_KEYS} with a value `values` accepts. */
function configKept(file: string, values: ValueCheck): boolean {
  if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return true;
  const text = readSmallFileText(file, MAX_CONFIG_BYTES);
  if (text === undefined) return false;
  let section: string | undefined;
  for (const raw of text.split("\n")) {
    const line = configLine(raw);
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    // `[core]`, `[remote "origin"]`; the old `[branch.main]` form and anything else is not judged.
    const header = /^\[([A-Za-z0-9-]+)(?:\s+"(?:[^"\\]|\\.)*")?\]$/.exec(line);
    if (header !== null) {
      section = `${header[1]?.toLowerCase()}${line.includes('"') ? ".<name>" : ""}`;
      continue;
    }
    // `key = value` on one line (a trailing backslash continues it: not judged).
    const assignment = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (assignment === null || line.endsWith("\\") || section === undefined) return false;
    const key = `${section}.${assignment[1]?.toLowerCase()}`;
    if (!KEPT_CONFIG_KEYS.has(key)) return false;
    // A value that could name a command (`!...`, also quoted) is not judged.
    if (COMMAND_VALUES.has(key) && /^[\s"]*!/.test(assignment[2] ?? "")) return false;
    if (!values(key, assignment[2])) return false;
  }
  return true;
}

function listing(descriptor: number): Dirent[] {
  try {
    return readdirSync(`/proc/self/fd/${descriptor}`, { withFileTypes: true });
  } catch {
    return [];
  }
}
