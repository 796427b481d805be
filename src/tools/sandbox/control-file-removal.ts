import { closeSync, type Dir, fstatSync, opendirSync } from "node:fs";
import path from "node:path";
import {
  DIRECTORY_FLAGS,
  existsSync,
  fsPath,
  lstatSync,
  openSync,
  readdirSync,
  readEscapedName,
  readlinkSync,
  realpathSync,
  rmdirSync,
  unlinkSync,
} from "./byte-paths.js";
import type { IndexBudget } from "./git-index-gitlinks.js";
import { foldGitName, isGitNameSpelling } from "./git-names.js";
import { GIT_SEQUENCER_DIRECTORIES, gitDirectoryLookAlike, objectInfoKey } from "./git-protection.js";
import type { GitlinkHolder } from "./gitlink-quarantine.js";
import { inertGitlinkRepository, repairNewGitDirectories } from "./new-git-directories.js";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";
import { newWorktreeDirectories, type QuarantinedState, QuarantineMoves, quarantineEntry } from "./sequencer-quarantine.js";

/** True where `/proc/self/fd/<fd>/<name>` names an entry of the directory behind `fd` (Linux). */
const DESCRIPTOR_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

/**
 * How much of a directory a command made in a control file's place is removed: the removal runs
 * on the host's thread, and a command can leave millions of entries or a tree deeper than the
 * stack. A directory named `config` or `commondir` is no pointer git follows, so what is left of
 * it past these bounds is harmless (and reported as not removed).
 */
export const CONTROL_FILE_REMOVAL_LIMITS = Object.freeze({ maxEntries: 10_000, maxDepth: 64 });

/**
 * The git directories whose control files were absent at spawn, held open for the command's
 * lifetime, so that what the command creates in their place is removed afterwards wherever
 * those directories are by then.
 */
export interface HeldControlFiles {
  /**
   * Moves aside the sequencer state present now that was absent at spawn (see
   * {@link HeldSequencerState}; never deleted, not counted against the removal's bounds), removes
   * the listed control files that the command created, returns their paths (and those of the ones
   * it made directories too large to remove within {@link CONTROL_FILE_REMOVAL_LIMITS}), and
   * closes the handles. Call it only once every sandboxed process of that command has ended
   * (the pid namespace guarantees that). `movedThisExit`: repositories the gitlink quarantine
   * moved aside whole after this command (host paths), which the walk for new git directories
   * leaves as they are (one move per repository, one restore).
   */
  removeCreated(movedThisExit?: ReadonlySet<string>): AfterCommandRepairs;
  /**
   * True when the `.git` in `holder` (a gitlink's directory; `holder.dotGit`: the spelling judged) leads host git to nothing the
   * command could have planted for it to run (see `inertGitlinkRepository`), judged through the
   * workspace root and the git directories held since spawn, its index read within `budget`.
   * False where no root is held (not Linux).
   */
  inertGitlinkRepository(holder: GitlinkHolder, budget: IndexBudget): boolean;
  /** Closes the handles without removing anything (the command did not start). */
  close(): void;
}

/** What was repaired after a command: control files removed (or left), sequencer state moved aside. */
export interface AfterCommandRepairs {
  readonly removed: string[];
  readonly left: string[];
  readonly quarantined: QuarantinedState[];
  /** Hooks, config and commondir of git directories the command created, moved aside (see new-git-directories.ts). */
  readonly newGitState: QuarantinedState[];
}

/**
 * Sequencer state to move aside after the command (`GitProtection.absentSequencerState`), and
 * every git directory protected at spawn (`GitProtection.gitDirectories`): worktree git
 * directories under their `worktrees/` that are not among them were added by the command.
 */
export interface HeldSequencerState {
  readonly absent: readonly string[];
  readonly gitDirectories: readonly string[];
  /**
   * Look-alikes of git's names in those git directories at spawn (`GitProtection.lookAlikes`):
   * any other found after the command (`HOOKS`, `CONFIG.WORKTREE`, `Rebase-Merge`) was the
   * command's and is moved aside.
   */
  readonly lookAlikes?: readonly string[];
  /**
   * The `objects/info` directories protected at spawn (`GitProtection.objectInfos`): any other
   * found after the command in a held git directory, under `objects` in any spelling, is moved
   * aside. Left out, none is looked at.
   */
  readonly objectInfos?: readonly string[];
  /**
   * The `.git` files protected at spawn (`GitProtection.protectedDotGits`, path to `dev:ino`): a
   * `.git` pointer found after the command naming a git directory outside the workspace is kept
   * only when it is one of them (the host's own linked worktree or submodule checkout). Left out,
   * no such pointer is judged.
   */
  readonly protectedDotGits?: ReadonlyMap<string, string>;
}

/**
 * Opens the git directories of `absent` (`GitProtection.absentControlFiles`) at spawn, without
 * following a link, each checked to be at the very path the scan protected.
 *
 * The removal after the command acts through these handles, never by path: the directories
 * above a git directory are ordinary workspace directories, so a command could move one away
 * and leave a symbolic link to a host directory at its name (`a -> /home/user`, for
 * `a/.ssh/config` when the scan took `a/.ssh` for a bare repository): a removal by path, with the
 * host's rights, deleted the host's file or whole directory of that name. Moved away without a
 * link, the created file was not found at its path and stayed, a config git would follow. Inside
 * a held directory nothing is followed either (a parallel command of the run may still be
 * swapping entries), and a directory made in a control file's place is removed within bounds.
 *
 * @throws SandboxUnavailableError when a git directory is no longer where the scan saw it (a
 *   parallel command moved it between the scan and now): the command would run without its
 *   created control files being found afterwards.
 */
export function holdControlFileDirectories(
  absent: readonly string[],
  workspace: string,
  sequencer: HeldSequencerState = { absent: [], gitDirectories: [] },
): HeldControlFiles {
  const held = new Map<string, HeldDirectory>();
  // The workspace's path is the host's (documented to be real); where it is not, its real path
  // is what the kernel names the held directories by.
  const realRoot = realPathOr(workspace);
  const close = () => {
    for (const directory of held.values()) closeSync(directory.descriptor);
    held.clear();
  };
  const parents = [...absent.map((file) => path.dirname(file)), ...sequencer.absent.map((entry) => path.dirname(entry))];
  for (const parent of [...parents, ...sequencer.gitDirectories]) {
    if (held.has(parent)) continue;
    const directory = openWhereScanned(parent, path.join(realRoot, path.relative(workspace, parent)));
    if (directory === undefined) {
      close();
      throw new SandboxUnavailableError(
        `The git directory ${parent} changed while the sandbox was being set up; run the command again.`,
        { data: { path: parent } },
      );
    }
    held.set(parent, directory);
  }
  // The workspace root, held for the walk after the command for git directories it created (Linux:
  // the walk names entries through /proc/self/fd; bwrap runs only there).
  const root = DESCRIPTOR_PATHS ? openWhereScanned(workspace, realRoot) : undefined;
  const closeAll = () => {
    if (root !== undefined) closeSync(root.descriptor);
    close();
  };
  return {
    removeCreated: (movedThisExit = new Set<string>()) => {
      const removed: string[] = [];
      const left: string[] = [];
      const budget = { entries: CONTROL_FILE_REMOVAL_LIMITS.maxEntries };
      let quarantined: QuarantinedState[] = [];
      let newGitState: QuarantinedState[] = [];
      let failure: unknown;
      try {
        // First, and outside the removal's budget: one rename each, whatever the command made.
        try {
          quarantined = quarantineSequencerState(held, sequencer);
        } catch (error) {
          failure = error;
        }
        for (const file of absent) {
          const parent = held.get(path.dirname(file));
          const outcome = parent === undefined ? "absent" : removeEntry(parent, path.basename(file), budget, 0);
          if (outcome === "removed") removed.push(file);
          else if (outcome === "left") left.push(file);
        }
        // Last: the control files the command created in known git directories are gone by now
        // (removed, not moved aside), wherever it moved those directories.
        if (root !== undefined) {
          try {
            const known = new Set(sequencer.gitDirectories);
            const gitHandles = new Map([...held].filter(([directory]) => known.has(directory)));
            newGitState = repairNewGitDirectories(
              { ...root, shown: workspace },
              known,
              gitHandles,
              new Date(),
              movedThisExit,
              sequencer.protectedDotGits,
            ).moved;
          } catch (error) {
            failure ??= error;
          }
        }
      } finally {
        closeAll();
      }
      // Reported as the command's error: sequencer state it left may still be in place.
      if (failure !== undefined) throw failure;
      return { removed, left, quarantined, newGitState };
    },
    inertGitlinkRepository: (holder, budget) => {
      if (root === undefined) return false;
      const known = new Set(sequencer.gitDirectories);
      const identities = new Set<string>();
      for (const [directory, handle] of held) {
        if (!known.has(directory)) continue;
        try {
          const stats = fstatSync(handle.descriptor, { bigint: true });
          identities.add(`${stats.dev}:${stats.ino}`);
        } catch {
          // A handle that cannot be looked at vouches for nothing.
        }
      }
      return inertGitlinkRepository({ descriptor: root.descriptor, shown: workspace }, holder, identities, budget);
    },
    close: closeAll,
  };
}

/** An open directory and how to name an entry in it. */
interface HeldDirectory {
  readonly descriptor: number;
  at(name: string): string;
}

/**
 * Moves aside the sequencer state present now that was absent at spawn, in the held git
 * directories and in the worktree git directories the command added (listed through the held
 * handles), and the look-alikes of git's names (see `gitDirectoryLookAlike`) the command made in
 * the held git directories: on a case- or normalisation-folding file system (APFS, casefold
 * ext4, NTFS, vfat, CIFS) `HOOKS/` or `Config.Worktree` is what host git opens as `hooks/` or
 * `config.worktree`. Every entry is tried even when one fails; the first failure is thrown afterwards.
 */
function quarantineSequencerState(held: ReadonlyMap<string, HeldDirectory>, sequencer: HeldSequencerState): QuarantinedState[] {
  const now = new Date();
  const moves = new QuarantineMoves();
  for (const entry of sequencer.absent) {
    const parent = held.get(path.dirname(entry));
    if (parent !== undefined)
      moves.attempt(() => quarantineEntry({ ...parent, shown: path.dirname(entry) }, path.basename(entry), now));
  }
  const known = new Set(sequencer.gitDirectories);
  const present = new Set(sequencer.lookAlikes);
  const objectInfos = sequencer.objectInfos === undefined ? undefined : new Set(sequencer.objectInfos);
  for (const gitDirectory of sequencer.gitDirectories) {
    const parent = held.get(gitDirectory);
    if (parent === undefined) continue;
    const names = namesIn(parent);
    for (const name of names) {
      if (gitDirectoryLookAlike(name) === undefined || present.has(path.join(gitDirectory, name))) continue;
      moves.attempt(() => quarantineEntry({ ...parent, shown: gitDirectory }, name, now));
    }
    if (objectInfos !== undefined) quarantineObjectInfos(parent, gitDirectory, names, objectInfos, present, moves, now);
    for (const worktree of newWorktreeDirectories({ ...parent, shown: gitDirectory }, known)) {
      try {
        const sequencerNames = namesIn(worktree).filter((name) => SEQUENCER_NAMES.has(foldGitName(name)));
        for (const name of sequencerNames) moves.attempt(() => quarantineEntry(worktree, name, now));
      } finally {
        closeSync(worktree.descriptor);
      }
    }
  }
  return moves.result();
}

const SEQUENCER_NAMES: ReadonlySet<string> = new Set(GIT_SEQUENCER_DIRECTORIES);

/**
 * Moves aside each `objects/info` in any spelling (`OBJECTS/info`, `objects/INFO`) of a held git
 * directory that was not protected at spawn (`objectInfos`, by the identity of the `objects` it
 * is in and its name; `present`: look-alikes bound at spawn): host git on a case-folding file
 * system reads the `alternates` of `OBJECTS/info` as its own, and one made in an `objects` the
 * command put in place of the original (the read-only mount moves with a renamed parent) is read
 * by host git anywhere. Moved within its `objects` directory, opened without following a link.
 */
function quarantineObjectInfos(
  parent: HeldDirectory,
  gitDirectory: string,
  names: readonly string[],
  objectInfos: ReadonlySet<string>,
  present: ReadonlySet<string>,
  moves: QuarantineMoves,
  now: Date,
): void {
  for (const objects of names) {
    if (!isGitNameSpelling(objects, "objects")) continue;
    let descriptor: number;
    try {
      descriptor = openSync(parent.at(objects), DIRECTORY_FLAGS);
    } catch {
      // Not a directory (or gone): git finds no object store there.
      continue;
    }
    try {
      const stats = fstatSync(descriptor, { bigint: true });
      const identity = `${stats.dev}:${stats.ino}`;
      const directory = hold(descriptor, path.join(gitDirectory, objects));
      const shown = path.join(gitDirectory, objects);
      for (const info of namesIn(directory)) {
        if (!isGitNameSpelling(info, "info")) continue;
        if (objectInfos.has(objectInfoKey(gitDirectory, identity, info)) || present.has(path.join(shown, info))) continue;
        moves.attempt(() => quarantineEntry({ ...directory, shown }, info, now));
      }
    } finally {
      closeSync(descriptor);
    }
  }
}

/** The names in a held directory (none when it cannot be listed). */
function namesIn(directory: HeldDirectory): string[] {
  try {
    return readdirSync(directory.at(""));
  } catch {
    return [];
  }
}

/**
 * `directory` opened without following a link, when it is at that path: the kernel's path of the
 * descriptor is exactly `expected`, its real path (a link in a parent would have led elsewhere). Without
 * `/proc` (not Linux; bwrap runs only there) its real path is checked instead.
 */
function openWhereScanned(directory: string, expected: string): HeldDirectory | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(directory, DIRECTORY_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const where = DESCRIPTOR_PATHS ? readlinkSync(`/proc/self/fd/${descriptor}`) : realpathSync(directory);
    if (where === expected) return hold(descriptor, directory);
  } catch {
    // Not where it was scanned.
  }
  closeSync(descriptor);
  return undefined;
}

function hold(descriptor: number, fallbackPath: string): HeldDirectory {
  return {
    descriptor,
    at: (name) => (DESCRIPTOR_PATHS ? `/proc/self/fd/${descriptor}/${name}` : path.join(fallbackPath, name)),
  };
}

/**
 * Removes `name` in `parent` without following links: a file, link, pipe or socket is unlinked,
 * a directory emptied through a handle of its own (depth and entries bounded) and removed.
 * `"left"` when something is still there (past the bounds, or it could not be removed).
 */
function removeEntry(
  parent: HeldDirectory,
  name: string,
  budget: { entries: number },
  depth: number,
): "removed" | "absent" | "left" {
  const entry = parent.at(name);
  try {
    const stats = lstatSync(entry, { throwIfNoEntry: false });
    if (stats === undefined) return "absent";
    if (!stats.isDirectory()) {
      unlinkSync(entry);
      return "removed";
    }
    if (depth >= CONTROL_FILE_REMOVAL_LIMITS.maxDepth) return "left";
    const descriptor = openSync(entry, DIRECTORY_FLAGS);
    try {
      const directory = hold(descriptor, entry);
      // Listed in batches and no further than the budget: readdirSync read all of 400,000
      // entries (1.6 s of the host's event loop) before the budget applied.
      // Names as bytes, so that an entry whose name is not valid UTF-8 is named (and removed) too.
      const listing = opendirSync(fsPath(directory.at("")), { bufferSize: LISTING_BATCH, encoding: "buffer" as BufferEncoding });
      try {
        for (let batch = readBatch(listing, budget); batch.length > 0; batch = readBatch(listing, budget)) {
          for (const child of batch) removeEntry(directory, child, budget, depth + 1);
        }
      } finally {
        listing.closeSync();
      }
    } finally {
      closeSync(descriptor);
    }
    if (budget.entries < 0) return "left";
    rmdirSync(entry);
    return "removed";
  } catch {
    try {
      return lstatSync(entry, { throwIfNoEntry: false }) === undefined ? "absent" : "left";
    } catch {
      return "left";
    }
  }
}

/** Entries listed per read of a directory being emptied. */
const LISTING_BATCH = 256;

/** Up to {@link LISTING_BATCH} names of `listing`, each taken from `budget`; none once it is spent. */
function readBatch(listing: Dir, budget: { entries: number }): string[] {
  const names: string[] = [];
  while (names.length < LISTING_BATCH) {
    if (budget.entries <= 0) {
      // One more entry past the budget means the directory cannot be emptied.
      if (listing.readSync() !== null) budget.entries = -1;
      break;
    }
    const name = readEscapedName(listing);
    if (name === null) break;
    budget.entries--;
    names.push(name);
  }
  return names;
}

function realPathOr(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return directory;
  }
}
