import { closeSync, type Dir, opendirSync } from "node:fs";
import path from "node:path";
import { DIRECTORY_FLAGS, fsPath, lstatSync, openSync, readEscapedName } from "./byte-paths.js";
import { type IndexBudget, indexBudget } from "./git-index-gitlinks.js";
import { isDotGitName } from "./git-names.js";
import { cachedGitlinks, GITLINK_LIMITS, type GitCheckout } from "./git-protection.js";
import { type QuarantinedState, QuarantineMoves, quarantineEntry } from "./sequencer-quarantine.js";

/** A gitlink's directory, opened without following a link, and the spelling of `.git` in it being judged. */
export interface GitlinkHolder {
  readonly descriptor: number;
  readonly shown: string;
  /** The entry's name (`.git`, or a spelling a file system may fold to it: `.GIT`, `git~1`); `.git` when absent. */
  readonly dotGit?: string;
}

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
 *
 * `.git` is looked for in every spelling a file system may fold to it (see foldGitName), and an
 * entry counts as protected at spawn when an entry of the same directory in any spelling of
 * `.git` had its identity then: a folding file system's spawn scan found `.GIT` by the name
 * `.git` (a lookup by path), the listing after the command names it `.GIT`.
 */
export function quarantineGitlinkRepositories(
  workspace: string,
  checkouts: readonly GitCheckout[],
  protectedDotGits: ReadonlyMap<string, string>,
  now: Date = new Date(),
  inert: (held: GitlinkHolder, budget: IndexBudget) => boolean = () => false,
): QuarantinedState[] {
  // One budget for every index read here, also those `inert` reads: an index left unread is moved aside.
  const reads = indexBudget();
  const moves = new QuarantineMoves();
  const protectedHere = protectedByDirectory(protectedDotGits);
  const listed = { entries: GITLINK_LISTING_LIMIT };
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
      // Every spelling of `.git` the directory holds (`.GIT`, `.git.`, `git~1`: see foldGitName),
      // each judged by the name it has: on a case- or normalisation-folding file system host git
      // entering the gitlink opens the one a command made as `.GIT`.
      withDirectory(workspace, relative, directory, (held) => {
        const judged = new Set<string>();
        for (const name of dotGitNames(held, listed)) {
          moves.attempt(() => {
            const stats = lstatSync(held.at(name), { throwIfNoEntry: false, bigint: true });
            if (stats === undefined) return undefined;
            const identity = `${stats.dev}:${stats.ino}`;
            // Once per entry (`.git` looked up by path may be the `.GIT` listed).
            if (judged.has(identity)) return undefined;
            judged.add(identity);
            if (protectedHere(directory)?.has(identity) === true) return undefined;
            // Nothing in it the command could have planted for host git to run (a repository the
            // user cloned on the host meanwhile): left where it is, not moved away from the user.
            if (inert({ ...held, dotGit: name }, reads)) return undefined;
            return quarantineEntry(held, name, now);
          });
        }
        return undefined;
      });
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

/**
 * Entries of gitlink directories read in one pass for their spellings of `.git` (the index, and
 * so the gitlinks and what is in their directories, is the command's to write: its listings must
 * not stall the host's thread). Past it a directory is looked at by the exact name `.git` only,
 * which a folding file system resolves to the spelling it holds; where names are told apart, a
 * `.GIT` is nothing host git opens.
 */
export const GITLINK_LISTING_LIMIT = 20_000;

/**
 * The names in the held directory that are spellings of `.git`, read within `budget`, and `.git`
 * itself when the listing was not read to its end (the caller judges each entry once, by identity).
 */
function dotGitNames(held: { at(name: string): string }, budget: { entries: number }): string[] {
  const names: string[] = [];
  let complete = false;
  let listing: Dir | undefined;
  try {
    if (budget.entries > 0) {
      listing = opendirSync(fsPath(held.at("")), { bufferSize: 256, encoding: "buffer" as BufferEncoding });
      while (budget.entries > 0) {
        const name = readEscapedName(listing);
        if (name === null) {
          complete = true;
          break;
        }
        budget.entries--;
        if (isDotGitName(name)) names.push(name);
      }
    }
  } catch {
    complete = false;
  } finally {
    listing?.closeSync();
  }
  if (!complete && !names.includes(".git")) names.push(".git");
  return names;
}

/**
 * The identities (`dev:ino`) protected at spawn by directory, for entries named `.git` in any
 * spelling (the spawn's scan keys them by the name it looked up or listed).
 */
function protectedByDirectory(protectedDotGits: ReadonlyMap<string, string>): (directory: string) => Set<string> | undefined {
  const byDirectory = new Map<string, Set<string>>();
  for (const [dotGit, id] of protectedDotGits) {
    if (!isDotGitName(path.basename(dotGit))) continue;
    const directory = path.dirname(dotGit);
    const ids = byDirectory.get(directory) ?? new Set<string>();
    ids.add(id);
    byDirectory.set(directory, ids);
  }
  return (directory) => byDirectory.get(directory);
}
