import { closeSync, constants } from "node:fs";
import path from "node:path";
import { lstatSync, openSync } from "./byte-paths.js";
import { type IndexBudget, indexBudget } from "./git-index-gitlinks.js";
import { cachedGitlinks, GITLINK_LIMITS, type GitCheckout } from "./git-protection.js";
import { type QuarantinedState, QuarantineMoves, quarantineEntry } from "./sequencer-quarantine.js";

const DIRECTORY_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * After a command: moves aside each `.git` at a gitlink of a checkout found at spawn that was not
 * protected at spawn (`protectedDotGits`, compared by identity, since a command may move a
 * protected checkout away and make a new directory at its name), so host git does not enter it.
 *
 * Why: `git status`, `git diff` and `git commit` in a repository run git in every gitlink's
 * directory that holds a `.git`, with that repository's own config, and the index that lists the
 * gitlinks is the command's to write (`git add` must work). A command that made a repository
 * whose `core.fsmonitor` runs a program, and added it as a gitlink (`git add sub`), or made one in
 * an uninitialised submodule's directory, had the host's next `git status` run that program
 * outside the sandbox. A repository `inert` vouches for (see `inertGitlinkRepository`: protected at spawn,
 * or holding only what `git init`/`git clone` write and no submodules) is left in place: the
 * sandbox cannot tell who made a `.git`, and one the user cloned or initialised on the host while
 * the command ran is theirs to keep where it is. An index that cannot be read for its gitlinks (a link, a named pipe, a
 * format this parser does not know, over 128 MiB, or past the pass's `INDEX_READ_LIMITS` total) is moved aside itself: without it host git
 * enters no gitlink, and `mv` restores it. Nothing is deleted; each move is one rename through a
 * directory handle opened without following a link from the checkout's root, which is opened so
 * from the workspace root (a checkout no longer there is skipped: git finds no index there). Past
 * `GITLINK_LIMITS.maxLookups` directories opened for one index, that index is moved aside.
 */
export function quarantineGitlinkRepositories(
  workspace: string,
  checkouts: readonly GitCheckout[],
  protectedDotGits: ReadonlyMap<string, string>,
  now: Date = new Date(),
  inert: (held: { readonly descriptor: number; readonly shown: string }, budget: IndexBudget) => boolean = () => false,
): QuarantinedState[] {
  // One budget for every index read here, also those `inert` reads: an index left unread is moved aside.
  const reads = indexBudget();
  const moves = new QuarantineMoves();
  for (const checkout of checkouts) {
    const relativeRoot = path.relative(workspace, checkout.root);
    if (relativeRoot.startsWith("..") || path.isAbsolute(relativeRoot)) continue;
    // Without its index host git enters none of the checkout's gitlinks.
    const moveIndex = () =>
      moves.attempt(() =>
        withDirectory(workspace, path.relative(workspace, checkout.gitDirectory), checkout.gitDirectory, (held) =>
          quarantineEntry(held, "index", now),
        ),
      );
    const gitlinks = cachedGitlinks(checkout.gitDirectory, reads);
    if (gitlinks === "absent") continue;
    if (gitlinks === "unreadable") {
      moveIndex();
      continue;
    }
    let lookups = GITLINK_LIMITS.maxLookups;
    for (const gitlink of gitlinks) {
      const directory = path.join(checkout.root, gitlink);
      const relative = path.relative(workspace, directory);
      lookups -= relative.split(path.sep).length;
      if (lookups < 0) {
        // Too many to look at.
        moveIndex();
        break;
      }
      moves.attempt(() =>
        withDirectory(workspace, relative, directory, (held) => {
          const stats = lstatSync(held.at(".git"), { throwIfNoEntry: false, bigint: true });
          if (stats === undefined) return undefined;
          if (protectedDotGits.get(path.join(directory, ".git")) === `${stats.dev}:${stats.ino}`) return undefined;
          // Nothing in it the command could have planted for host git to run (a repository the
          // user cloned on the host meanwhile): left where it is, not moved away from the user.
          if (inert(held, reads)) return undefined;
          return quarantineEntry(held, ".git", now);
        }),
      );
    }
  }
  return moves.result();
}

/**
 * Runs `act` on `relative` below `workspace` opened component by component without following a
 * link; `undefined` when a component is missing, a link or not a directory (git does not enter a
 * gitlink below a link either). A git directory outside the workspace is not the command's to change.
 */
function withDirectory(
  workspace: string,
  relative: string,
  shown: string,
  act: (held: { descriptor: number; shown: string; at(name: string): string }) => QuarantinedState | undefined,
): QuarantinedState | undefined {
  if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  let descriptor: number;
  try {
    descriptor = openSync(workspace, DIRECTORY_FLAGS);
  } catch {
    return undefined;
  }
  try {
    for (const part of relative === "" ? [] : relative.split(path.sep)) {
      const next = openSync(`/proc/self/fd/${descriptor}/${part}`, DIRECTORY_FLAGS);
      closeSync(descriptor);
      descriptor = next;
    }
  } catch {
    closeSync(descriptor);
    return undefined;
  }
  const held = descriptor;
  try {
    return act({ descriptor: held, shown, at: (name) => `/proc/self/fd/${held}/${name}` });
  } finally {
    closeSync(held);
  }
}
