import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import path from "node:path";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";

const DIRECTORY_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

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
   * Removes the listed control files that the command created, returns their paths, and closes
   * the handles. Call it only once every sandboxed process of that command has ended (the pid
   * namespace guarantees that).
   */
  removeCreated(): string[];
  /** Closes the handles without removing anything (the command did not start). */
  close(): void;
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
export function holdControlFileDirectories(absent: readonly string[], workspace: string): HeldControlFiles {
  const held = new Map<string, HeldDirectory>();
  // The workspace's path is the host's (documented to be real); where it is not, its real path
  // is what the kernel names the held directories by.
  const realRoot = realPathOr(workspace);
  const close = () => {
    for (const directory of held.values()) closeSync(directory.descriptor);
    held.clear();
  };
  for (const file of absent) {
    const parent = path.dirname(file);
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
  return {
    removeCreated: () => {
      const removed: string[] = [];
      const budget = { entries: CONTROL_FILE_REMOVAL_LIMITS.maxEntries };
      try {
        for (const file of absent) {
          const parent = held.get(path.dirname(file));
          if (parent !== undefined && removeEntry(parent, path.basename(file), budget, 0)) removed.push(file);
        }
      } finally {
        close();
      }
      return removed;
    },
    close,
  };
}

/** An open directory and how to name an entry in it. */
interface HeldDirectory {
  readonly descriptor: number;
  at(name: string): string;
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
 * True when it is gone.
 */
function removeEntry(parent: HeldDirectory, name: string, budget: { entries: number }, depth: number): boolean {
  const entry = parent.at(name);
  try {
    const stats = lstatSync(entry, { throwIfNoEntry: false });
    if (stats === undefined) return false;
    if (!stats.isDirectory()) {
      unlinkSync(entry);
      return true;
    }
    if (depth >= CONTROL_FILE_REMOVAL_LIMITS.maxDepth) return false;
    const descriptor = openSync(entry, DIRECTORY_FLAGS);
    try {
      const directory = hold(descriptor, entry);
      for (const child of readdirSync(directory.at(""))) {
        if (--budget.entries < 0) return false;
        removeEntry(directory, child, budget, depth + 1);
      }
    } finally {
      closeSync(descriptor);
    }
    rmdirSync(entry);
    return true;
  } catch {
    return false;
  }
}

function realPathOr(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return directory;
  }
}
