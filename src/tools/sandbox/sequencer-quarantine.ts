import { closeSync, mkdirSync } from "node:fs";
import path from "node:path";
import { DIRECTORY_FLAGS, fsPath, lstatSync, openSync, readdirSync, renameSync } from "./byte-paths.js";
import { readSmallFileText } from "./small-file-text.js";

/**
 * The prefix of the name, inside a git directory, that sequencer state a command left is moved to. Git
 * reads no entry of such a name (it looks for `rebase-merge`, `rebase-apply` and `sequencer` by
 * name only), so an `exec` line of a todo list moved there runs on no `git rebase --continue`.
 */
export const SEQUENCER_QUARANTINE = "atc-quarantine";

/**
 * Sequencer state a command left, moved aside whole (one rename) after it ended; also a
 * repository at a gitlink that was not there at spawn (`from` ends in `.git`) or an index that
 * could not be read for its gitlinks (`from` ends in `index`), which host git would enter.
 *
 * @public
 */
export interface QuarantinedState {
  /** Where the state was (host path). */
  readonly from: string;
  /** Where it is now (host path, `atc-quarantine-<name>-<time>` in the same git directory). */
  readonly to: string;
  /**
   * The commit git keeps the user's uncommitted changes in, when the state held a rebase's
   * `--autostash` (its `autostash` file): `git stash store <id>` keeps them without the rebase.
   */
  readonly autostash?: string;
  /**
   * Set on a config moved aside from a git directory protected at spawn because the work tree its
   * `core.worktree` names became a link out of the workspace during the command (host git would
   * check out and add there); unset for state of a git directory the command created.
   */
  readonly relinkedWorkTree?: true;
  /**
   * Set on a config moved aside from a git directory protected at spawn because a repository URL
   * it holds (the key, e.g. `remote.<name>.url`) names a path inside the workspace that became a
   * link out of it during the command (the user's `git fetch` there would read a host repository
   * into the workspace, `git push` write one); unset otherwise.
   */
  readonly relinkedRepository?: string;
  /**
   * Set on an entry moved aside from a git directory (protected at spawn or created by the
   * command) through which host git would read or write outside the workspace: `link`, a
   * symbolic link leading out or nowhere (`COMMIT_EDITMSG`, `logs/HEAD`, a ref, `objects`), or
   * `alternates`, an `objects/info/alternates` of a new repository naming an object store outside;
   * `unlisted`, a directory past the link walk's bound of directories or depth (not looked at, so
   * it may hold such links; only a command that made that many directories leaves one); or
   * `replaced`, what a command of the workspace still running swapped in for such a link between
   * the walk's look and its move, left aside because the command put something else at the name
   * meanwhile (anything else swapped in is put back); or `unpinnable`, a symbolic link, wherever
   * it leads (also inside the workspace), where the next spawn must bind read-only or pin a
   * directory or file: among `modules/` or `worktrees/` down to a submodule's or worktree's git
   * directory, a control file or directory (`config`, `hooks`, `info`, `objects/info`,
   * `commondir`, `rebase-merge`, ...) or `objects`, a `.git` in the work tree, a `HEAD` by which a git directory
   * not named `.git` is known. A mount follows a link, so the spawn refuses every command of the
   * workspace while one stands there.
   */
  readonly outwardEntry?: "link" | "alternates" | "unlisted" | "replaced" | "unpinnable";
  /**
   * Set on a pointer file moved aside because host git following it would work on a repository
   * or directory outside the workspace: `file`, which pointer (`.git`, a `.git` file or symbolic
   * link in the work tree; `commondir` or `gitdir` of a git directory); `value`, what it held as
   * written (what the command wrote, at most 200 characters, never where it resolved on the
   * host); `why`: `outside`, it names a place outside the workspace as written; `relinked`, it
   * names one inside that leads out through a link (also `..` after one); `swapped`, a directory
   * on its way was swapped for a link while it was being looked at.
   */
  readonly pointer?: {
    readonly file: ".git" | "commondir" | "gitdir";
    readonly value: string;
    readonly why: "outside" | "relinked" | "swapped";
  };
}

/**
 * The moves of one repair pass: each is tried even when an earlier one failed (one refused rename
 * must not leave the rest of the command's git state in place), and {@link result} throws the
 * first failure after all were tried.
 */
export class QuarantineMoves {
  readonly #moved: QuarantinedState[] = [];
  #failure: unknown;

  /** Runs one move and keeps what it put aside, or its failure when it is the first. */
  attempt(move: () => QuarantinedState | undefined): void {
    try {
      const state = move();
      if (state !== undefined) this.#moved.push(state);
    } catch (error) {
      this.#failure ??= error;
    }
  }

  /** What was moved; throws the first failure when a move failed. */
  result(): QuarantinedState[] {
    if (this.#failure !== undefined) throw this.#failure;
    return this.#moved;
  }
}

/** An open git directory and how to name an entry in it (see control-file-removal.ts). */
export interface QuarantineDirectory {
  readonly descriptor: number;
  /** The host path the directory had at spawn, for the report. */
  readonly shown: string;
  at(name: string): string;
}

/**
 * Moves `name` of `gitDirectory` (when present) to `atc-quarantine-<name>-<time>` of the same
 * directory with one rename: no walk of what the command made there, so no bound it could
 * exceed, and nothing is deleted (the state may be the user's: a rebase they started on the host
 * while the command ran, or one stopped with their changes autostashed). It goes through the held
 * handle, never by path, and stays in the same directory: a rename follows no link at either end,
 * whereas a quarantine directory the command could have replaced by a link would be entered.
 */
export function quarantineEntry(gitDirectory: QuarantineDirectory, name: string, now: Date): QuarantinedState | undefined {
  const entry = gitDirectory.at(name);
  if (lstatSync(entry, { throwIfNoEntry: false }) === undefined) return undefined;
  const stamp = quarantineStamp(now);
  for (let attempt = 1; attempt <= 100; attempt++) {
    const moved = `${SEQUENCER_QUARANTINE}-${name}-${stamp}${attempt === 1 ? "" : `-${attempt}`}`;
    // A name in use (an earlier quarantine, or one the command made) is not replaced.
    if (lstatSync(gitDirectory.at(moved), { throwIfNoEntry: false }) !== undefined) continue;
    try {
      renameSync(entry, gitDirectory.at(moved));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && lstatSync(entry, { throwIfNoEntry: false }) === undefined) return undefined;
      if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR") continue;
      throw error;
    }
    const autostash = autostashCommit(gitDirectory.at(path.join(moved, "autostash")));
    return {
      from: path.join(gitDirectory.shown, name),
      to: path.join(gitDirectory.shown, moved),
      ...(autostash === undefined ? {} : { autostash }),
    };
  }
  throw new Error(`Cannot move ${path.join(gitDirectory.shown, name)} aside: every quarantine name is taken.`);
}

/** `now` as the quarantine names carry it: `20260101T000000Z`. */
function quarantineStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/**
 * Moves `entries` of `gitDirectory` (names, or `parent/name` one level down, such as
 * `OBJECTS/info`) into one new directory `atc-quarantine-<label>-<time>` of it (`parent/name`
 * into its `parent/`), each with one rename through handles opened without following a link,
 * and returns where they went. Used at spawn for what is past the bound of entries bound
 * read-only one by one (each is a mount): gathered, they are one entry to bind. An entry gone
 * meanwhile is skipped; any other failure is thrown.
 */
export function gatherAside(
  gitDirectory: QuarantineDirectory,
  entries: readonly string[],
  label: string,
  now: Date,
): QuarantinedState {
  const stamp = quarantineStamp(now);
  let name: string | undefined;
  for (let attempt = 1; attempt <= 100 && name === undefined; attempt++) {
    const candidate = `${SEQUENCER_QUARANTINE}-${label}-${stamp}${attempt === 1 ? "" : `-${attempt}`}`;
    try {
      mkdirSync(fsPath(gitDirectory.at(candidate)), { mode: 0o700 });
      name = candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  if (name === undefined)
    throw new Error(`Cannot gather entries of ${gitDirectory.shown} aside: every quarantine name is taken.`);
  const gathered = openSync(gitDirectory.at(name), DIRECTORY_FLAGS);
  try {
    const parents = new Map<string, number>();
    try {
      for (const entry of entries) {
        const slash = entry.indexOf("/");
        const parent = slash === -1 ? undefined : entry.slice(0, slash);
        const leaf = slash === -1 ? entry : entry.slice(slash + 1);
        let from = gitDirectory.at(entry);
        let into = `/proc/self/fd/${gathered}`;
        if (parent !== undefined) {
          let handles = parents.get(parent);
          if (handles === undefined) {
            mkdirSync(fsPath(`${into}/${parent}`), { mode: 0o700 });
            handles = openSync(`${into}/${parent}`, DIRECTORY_FLAGS);
            parents.set(parent, handles);
          }
          into = `/proc/self/fd/${handles}`;
          // The parent opened without following a link: a link swapped in is not entered.
          const source = openSync(gitDirectory.at(parent), DIRECTORY_FLAGS);
          try {
            from = `/proc/self/fd/${source}/${leaf}`;
            moveGone(from, `${into}/${leaf}`);
          } finally {
            closeSync(source);
          }
          continue;
        }
        moveGone(from, `${into}/${leaf}`);
      }
    } finally {
      for (const handle of parents.values()) closeSync(handle);
    }
  } finally {
    closeSync(gathered);
  }
  return { from: gitDirectory.shown, to: path.join(gitDirectory.shown, name) };
}

/** One rename; an entry gone meanwhile is skipped. */
function moveGone(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && lstatSync(from, { throwIfNoEntry: false }) === undefined) return;
    throw error;
  }
}

/**
 * Worktree git directories (`worktrees/<name>`) of `gitDirectory` that are not in `known` (the
 * ones protected at spawn): a command that ran `git worktree add` made them, and a rebase stopped
 * there is continued by the user's `git rebase --continue` in that worktree. Listed through the
 * held handle; each opened without following a link.
 */
export function newWorktreeDirectories(gitDirectory: QuarantineDirectory, known: ReadonlySet<string>): QuarantineDirectory[] {
  let parent: number;
  try {
    parent = openSync(gitDirectory.at("worktrees"), DIRECTORY_FLAGS);
  } catch {
    return [];
  }
  const found: QuarantineDirectory[] = [];
  try {
    const names = readdirSync(`/proc/self/fd/${parent}`);
    const shownParent = path.join(gitDirectory.shown, "worktrees");
    for (const name of names) {
      const shown = path.join(shownParent, name);
      if (known.has(shown)) continue;
      try {
        const descriptor = openSync(`/proc/self/fd/${parent}/${name}`, DIRECTORY_FLAGS);
        found.push({ descriptor, shown, at: (entry) => `/proc/self/fd/${descriptor}/${entry}` });
      } catch {
        // Not a directory (or gone): no git directory.
      }
    }
  } catch {
    // Unlistable: nothing found.
  } finally {
    closeSync(parent);
  }
  return found;
}

/** The commit id an `autostash` file holds, read without following a link or blocking; `undefined` otherwise. */
function autostashCommit(file: string): string | undefined {
  const text = readSmallFileText(file, 128)?.trim();
  return text !== undefined && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(text) ? text : undefined;
}
