import { lstatSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { confinePath, resolveInWorkspace } from "../sandbox/path-confinement.js";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import { isInsideDirectory, realWorkspaceRoot } from "../sandbox/workspace-root.js";
import type { FileScope, OpenParentOptions, ParentEntry } from "./file-scope.js";
import {
  foldGitName,
  gitFileTargets,
  gitStateRefused,
  hasGitHead,
  isHeadName,
  protectedBelowSomeDirectory,
  protectedFoldedBelowSomeDirectory,
  protectedInGitDirectory,
  touchesFoldedGitState,
  touchesGitState,
} from "./git-state-guard.js";
import { type OpenedParent, openParentsOneByOne, shareDirectory } from "./parent-batch.js";
import { relativeBelow } from "./relative-below.js";
import { scopeFromLocator } from "./scope-operations.js";
import { inSyncSlices } from "./sync-slices.js";
import {
  LinkOnTheWay,
  openVerifiedDirectory,
  openVerifiedTree,
  stillWhereVerified,
  type TreeVisitor,
} from "./verified-directory.js";

const MAX_LINK_RESOLUTIONS = 8;

/**
 * The file scope of sandbox `"workspace"`: every path is confined to the workspace. Reads and
 * every change (write, delete, rename, directory creation, temporary files, undo) act through a
 * directory handle opened component by component with `O_NOFOLLOW` and verified inside the
 * workspace, never through the path again, so a directory swapped for a symlink to the outside
 * while the call runs cannot redirect them. Symlinks that stay inside are followed by resolving
 * them and walking again; git state is refused for changes.
 */
export function createConfinedFileScope(workspace: string): FileScope {
  const root = path.resolve(workspace);
  const display = (absolute: string) => {
    const relative = path.relative(root, absolute);
    return relative === "" ? "." : relative.startsWith("..") ? absolute : relative;
  };

  /** The components of `requested` below the real root, spelled lexically (no symlinks resolved). */
  async function lexicalSegments(rootReal: string, requested: string): Promise<string[]> {
    const segments = lexicalSegmentsInside(root, rootReal, requested);
    if (segments === undefined) {
      await confinePath(root, requested, "write");
      throw new SandboxViolationError("path_outside_workspace", `Refused "${requested}": it is outside the workspace.`, {
        data: { path: requested },
      });
    }
    return segments;
  }

  /** Resolves every symlink of `requested` (refused when it leads out) into real components. */
  async function realSegments(rootReal: string, requested: string, intent: "read" | "write"): Promise<string[]> {
    const { resolved } = await confinePath(root, requested, intent);
    return path
      .relative(rootReal, resolved)
      .split(path.sep)
      .filter((segment) => segment !== "");
  }

  /**
   * One walk to the parent of `segments`: the parent, or `undefined` when a symlink was met on the
   * way (or is the final entry, with `follow`) and the caller must resolve and walk again.
   */
  async function walkOnce(
    rootReal: string,
    segments: readonly string[],
    create: boolean,
    follow: boolean,
    checkInside: (real: string) => void,
    mutate: boolean,
    requested: string,
  ): Promise<ParentEntry | undefined> {
    const name = segments.at(-1) as string;
    let directory: Awaited<ReturnType<typeof openVerifiedDirectory>>;
    // A change below a git directory of any name is checked like one below `.git`, on the
    // directories actually opened: a directory whose HEAD is git's (a bare repository; its HEAD
    // is protected too, so it cannot be dismantled to be overlooked), and the git directories
    // `.git` files on the way point at (the workspace's own included), whatever their content.
    const pointedAt: string[] = [];
    // The `.git` entries on the way are read only where one could refuse this path (see `gitFileLooked`).
    const looksAtGitFiles = protectedBelowSomeDirectory(segments);
    const visit = mutate
      ? async (at: (entry: string) => string, depth: number, directoryPath: string) => {
          const inside = segments.slice(depth);
          const head = isHeadName(inside[0]);
          if ((head || protectedInGitDirectory(inside)) && (await hasGitHead(at))) throw gitStateRefused(requested);
          if (looksAtGitFiles) pointedAt.push(...(await gitFileTargets(directoryPath, at)));
        }
      : undefined;
    try {
      directory = await openVerifiedDirectory(rootReal, segments.slice(0, -1), {
        create,
        checkInside,
        ...(visit === undefined ? {} : { visit }),
      });
    } catch (error) {
      if (error instanceof LinkOnTheWay) return undefined;
      throw error;
    }
    const target = path.join(rootReal, ...segments);
    for (const gitDirectory of pointedAt) {
      if (
        isInsideDirectory(gitDirectory, target) &&
        protectedInGitDirectory(segments.slice(segmentsOf(rootReal, gitDirectory)))
      ) {
        await directory.close();
        throw gitStateRefused(requested);
      }
    }
    if (follow && (await lstat(directory.at(name)).catch(() => undefined))?.isSymbolicLink() === true) {
      await directory.close();
      return undefined;
    }
    return { ...directory, name };
  }

  async function openParent(requested: string, options: OpenParentOptions = {}): Promise<ParentEntry> {
    const { create = false, follow = true, mutate = true } = options;
    const rootReal = await realWorkspaceRoot(root);
    const checkInside = (real: string) => {
      if (!isInsideDirectory(rootReal, real)) {
        throw new SandboxViolationError("symlink_escape", `Refused "${requested}": a directory on its path left the workspace.`, {
          data: { path: requested },
        });
      }
    };
    let segments = await lexicalSegments(rootReal, requested);
    for (let round = 0; round <= MAX_LINK_RESOLUTIONS; round++) {
      if (segments.length === 0) throw new ToolError("is_a_directory", `"${requested}" is the workspace directory, not a file.`);
      if (mutate && touchesGitState(segments)) throw gitStateRefused(requested);
      const parent = await walkOnce(rootReal, segments, create, follow, checkInside, mutate, requested);
      if (parent !== undefined) return parent;
      // A symlink on the way: resolve it (refused when it leads out) and walk the real path.
      segments = await realSegments(rootReal, path.join(rootReal, ...segments), mutate ? "write" : "read");
    }
    throw linkError(new LinkOnTheWay(segments.at(-1) ?? requested), requested);
  }

  /**
   * `openParent` of many paths, opening each distinct directory once (see `openVerifiedTree`):
   * the same checks for each path (git state at every depth, the directories `.git` files point
   * at, a final symlink). Anything unusual on a path's way (a symlink, a git directory, an error)
   * sends it to `openParent` alone, which then gives exactly its answer.
   *
   * `held`: per path, its directory opened earlier (a `readMany` with `keep`), reused instead of
   * walking again only where nothing can differ from a walk made now (see {@link reusableHeld});
   * any doubt sends the path to the walk. A reused entry's `close` leaves the handle to its holder.
   */
  async function openParents(
    requests: readonly string[],
    options: OpenParentOptions = {},
    held: readonly (ParentEntry | undefined)[] = [],
  ): Promise<OpenedParent[]> {
    const { create = false, follow = true, mutate = true } = options;
    const results: OpenedParent[] = requests.map(() => ({ ok: false, error: new Error("not opened") }));
    const oneByOne = (indexes: readonly number[]) =>
      openParentsOneByOne(
        indexes.map((index) => requests[index] as string),
        (requested) => openParent(requested, options),
      ).then((opened) => {
        for (const [position, index] of indexes.entries()) results[index] = opened[position] as OpenedParent;
      });
    if (requests.length < 2) {
      await oneByOne(requests.map((_, index) => index));
      return results;
    }
    let rootReal: string;
    try {
      rootReal = await realWorkspaceRoot(root);
    } catch {
      await oneByOne(requests.map((_, index) => index));
      return results;
    }
    const members: BatchMember[] = [];
    const alone: number[] = [];
    // One kernel-path look per held directory for the whole batch, as a walk opens each directory
    // once for every path below it (a `readlink` per path made 383 of them for 307 directories).
    const whereVerified = new Map<string, boolean>();
    for (const [index, requested] of requests.entries()) {
      // A path outside the workspace (or the workspace itself) goes to `openParent` alone, which
      // refuses it; each other path's components are folded once for the whole batch.
      const member = batchMember(index, lexicalSegmentsInside(root, rootReal, requested));
      if (member === undefined || (mutate && member.touchesGitState)) alone.push(index);
      else {
        const earlier = held[index];
        if (earlier !== undefined && reusableHeld(earlier, rootReal, member, follow, mutate, whereVerified))
          results[index] = { ok: true, parent: { ...earlier, created: [], close: async () => undefined } };
        else members.push(member);
      }
    }
    const headChecked = mutate ? headCheckedDirectories(members) : new Set<string>();
    const gitFilesLooked = mutate ? gitFileLooked(members) : new Set<string>();
    const pointedAt = new Map<string, string[]>();
    const unusual = new Error("a git directory on the way");
    const tree = await openVerifiedTree(
      rootReal,
      members.map(({ segments }) => segments.slice(0, -1)),
      {
        create,
        checkInside: (real) => {
          if (!isInsideDirectory(rootReal, real)) throw unusual;
        },
        ...(mutate && (headChecked.size > 0 || gitFilesLooked.size > 0)
          ? { visit: gitLooks(headChecked, gitFilesLooked, pointedAt, unusual) }
          : {}),
      },
    );
    const byDirectory = new Map<string, { index: number; name: string }[]>();
    // The final-symlink checks are `lstat`s of microseconds: one synchronous loop (see `inSyncSlices`).
    const finalIsLink = (at: string) => {
      try {
        return lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink() === true;
      } catch {
        return false;
      }
    };
    await inSyncSlices(members, ({ index, segments }) => {
      const key = segments.slice(0, -1).join("/");
      const opened = tree.get(key);
      if (opened === undefined || !opened.ok) {
        alone.push(index);
        return;
      }
      const name = segments.at(-1) as string;
      if (pointedAtRefuses(rootReal, segments, pointedAt))
        results[index] = { ok: false, error: gitStateRefused(requests[index] as string) };
      else if (follow && finalIsLink(opened.directory.at(name))) alone.push(index);
      else {
        const list = byDirectory.get(key) ?? [];
        list.push({ index, name });
        byDirectory.set(key, list);
      }
    });
    await shareOpened(tree, byDirectory, results);
    await oneByOne(alone);
    return results;
  }

  return scopeFromLocator({
    root,
    confined: true,
    openParents,
    display,
    resolve: (requested, intent) => resolveInWorkspace(root, requested, intent),
    openParent,
    lockKey: (requested) => resolveInWorkspace(root, requested, "write"),
    lockKeyIsWritePath: true,
  });
}

/**
 * The tree walk's visitor for a changing batch: at a directory of `headChecked` a git HEAD there
 * throws `unusual` (the paths below go to `openParent` alone, which refuses them); at one of
 * `gitFilesLooked` the git directories its `.git` file points at are put in `pointedAt`. Only those
 * directories are looked at; elsewhere it answers at once (no promise), so the walk's pacer times
 * the opens alone (see `TreeVisitor`).
 */
function gitLooks(
  headChecked: ReadonlySet<string>,
  gitFilesLooked: ReadonlySet<string>,
  pointedAt: Map<string, string[]>,
  unusual: Error,
): TreeVisitor {
  return (at, _depth, directoryPath, prefix) => {
    const key = prefix.join("/");
    const head = headChecked.has(key);
    const files = gitFilesLooked.has(key);
    if (!head && !files) return undefined;
    return (async () => {
      if (head && (await hasGitHead(at))) throw unusual;
      if (!files) return;
      const targets = await gitFileTargets(directoryPath, at);
      if (targets.length > 0) pointedAt.set(key, targets);
    })();
  };
}

/** A path of an `openParents` batch: its lexical components and what the git-state checks need of them. */
interface BatchMember {
  readonly index: number;
  readonly segments: string[];
  /** {@link touchesGitState}: refused as a change (sent to `openParent` alone, which refuses it). */
  readonly touchesGitState: boolean;
  /** {@link protectedBelowSomeDirectory}: a git directory or `.git` file on the way could refuse it. */
  readonly protectedBelow: boolean;
  /** Some component names a HEAD. */
  readonly headNamed: boolean;
}

/**
 * The batch's view of one path: its components folded once ({@link foldGitName}) for the
 * questions `touchesGitState` and `protectedBelowSomeDirectory` each folded them for (with
 * `headCheckedDirectories`, `gitFileLooked` and `reusableHeld` asking again: five folds of every
 * component per batch, two batches per `apply_patch`). Same answers, computed from the same names.
 * `undefined` for no components (outside the workspace, or the workspace itself).
 */
function batchMember(index: number, segments: string[] | undefined): BatchMember | undefined {
  if (segments === undefined || segments.length === 0) return undefined;
  const lower = segments.map(foldGitName);
  return {
    index,
    segments,
    touchesGitState: touchesFoldedGitState(lower),
    protectedBelow: protectedFoldedBelowSomeDirectory(lower),
    headNamed: segments.some((segment) => isHeadName(segment)),
  };
}

/**
 * The components of `requested` below the real root, spelled lexically (no symlinks resolved), as
 * `lexicalSegments` gives them, synchronously; `undefined` for a path outside the workspace (the
 * caller leaves it to `openParent`, whose `lexicalSegments` refuses it with the exact error).
 */
function lexicalSegmentsInside(root: string, rootReal: string, requested: string): string[] | undefined {
  const lexical = path.resolve(root, requested);
  const base = isInsideDirectory(root, lexical) ? root : isInsideDirectory(rootReal, lexical) ? rootReal : undefined;
  if (base === undefined) return undefined;
  return relativeBelow(base, lexical)
    .split(path.sep)
    .filter((segment) => segment !== "");
}

/**
 * True when `held`, a directory opened and verified earlier for the path `segments` (lexical, below
 * `rootReal`), can stand for the walk `openParents` would make now, under the caller's locks:
 *
 * - it is still where it was verified (its descriptor's kernel path is its real path, see
 *   `stillWhereVerified`), and that real path is the path's lexical directory, so a walk from the
 *   root now would pass no symlink and open this very directory (inside the workspace);
 * - its entry is the path's last component and, with `follow`, is not a symlink now;
 * - with `mutate`: no part of the path names git state below any directory on the way (no HEAD to
 *   look at, see `headCheckedDirectories`). Only such a name can be refused by the walk's git
 *   checks (a git directory's HEAD, a `.git` file pointing at a git directory holding the path):
 *   for any other path they cannot refuse, whatever the tree holds now, so they are not redone.
 *
 * Anything else (or any error) is `false`: the path is walked as if nothing was held.
 *
 * `looked`: the answers of `stillWhereVerified` already given in this batch, by held directory
 * (its handle's entry path and real path): each directory is looked at once per batch.
 */
function reusableHeld(
  held: ParentEntry,
  rootReal: string,
  member: BatchMember,
  follow: boolean,
  mutate: boolean,
  looked: Map<string, boolean>,
): boolean {
  const { segments } = member;
  if (held.name !== segments.at(-1) || held.realPath !== path.join(rootReal, ...segments.slice(0, -1))) return false;
  if (mutate && headCheckedDirectories([member]).size > 0) return false;
  const key = `${held.at(".")}\0${held.realPath}`;
  let where = looked.get(key);
  if (where === undefined) {
    where = stillWhereVerified(held);
    looked.set(key, where);
  }
  if (!where) return false;
  if (follow) {
    // A final symlink is resolved by a walk (the change lands where it leads): not reusable.
    try {
      if (lstatSync(held.at(held.name), { throwIfNoEntry: false })?.isSymbolicLink() === true) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Directories where a path below would name git state if the directory were a git directory (its
 * HEAD is git's): there, as in `openParent`, the HEAD is looked at. Keys: segments joined by "/".
 */
function headCheckedDirectories(members: readonly BatchMember[]): Set<string> {
  const checked = new Set<string>();
  for (const { segments, protectedBelow, headNamed } of members) {
    // Most paths name no git state below any depth and no HEAD: one pass said so (see `batchMember`).
    if (!protectedBelow && !headNamed) continue;
    for (let depth = 0; depth < segments.length; depth++) {
      const inside = segments.slice(depth);
      if (isHeadName(inside[0]) || protectedInGitDirectory(inside)) checked.add(segments.slice(0, depth).join("/"));
    }
  }
  return checked;
}

/**
 * Directories whose `.git` entry the walk must read, because a `.git` file there could refuse a
 * path of `members` (keys: segments joined by "/", "" the root). Such a file refuses a path only
 * when the git directory it points at holds the path and the rest of the path below that directory
 * names git state (see `pointedAtRefuses`): that rest is always a suffix of the path's components,
 * wherever the file points. A path no suffix of which names git state (`d/f.txt`, every path of an
 * ordinary patch) can be refused by no `.git` file, whatever the tree holds at any moment: its
 * directories' `.git` entries are not read (one `lstat` per directory per walk, five walks per
 * directory in a change made in groups). A path with such a suffix (`d/config`) has every
 * directory on its way looked at by every walk, as before, so a `.git` made between two walks of
 * one call is seen by the next walk: nothing is remembered from one walk to the next.
 */
function gitFileLooked(members: readonly BatchMember[]): Set<string> {
  const looked = new Set<string>();
  for (const { segments, protectedBelow } of members) {
    if (!protectedBelow) continue;
    for (let depth = 0; depth < segments.length; depth++) looked.add(segments.slice(0, depth).join("/"));
  }
  return looked;
}

/** True when a git directory that a `.git` file on the path's way points at holds the path as git state. */
function pointedAtRefuses(rootReal: string, segments: readonly string[], pointedAt: ReadonlyMap<string, string[]>): boolean {
  // No `.git` file on any path's way (the usual batch): nothing to refuse, no prefix to build.
  if (pointedAt.size === 0) return false;
  const target = path.join(rootReal, ...segments);
  const gitDirectories = segments.slice(0, -1).flatMap((_, depth) => pointedAt.get(segments.slice(0, depth + 1).join("/")) ?? []);
  gitDirectories.push(...(pointedAt.get("") ?? []));
  return gitDirectories.some(
    (gitDirectory) =>
      isInsideDirectory(gitDirectory, target) && protectedInGitDirectory(segments.slice(segmentsOf(rootReal, gitDirectory))),
  );
}

/** Hands each opened directory to the paths kept in it (one shared handle); unused ones are closed. */
async function shareOpened(
  tree: Awaited<ReturnType<typeof openVerifiedTree>>,
  byDirectory: ReadonlyMap<string, { index: number; name: string }[]>,
  results: OpenedParent[],
): Promise<void> {
  for (const [key, opened] of tree) {
    if (!opened.ok) continue;
    const kept = byDirectory.get(key) ?? [];
    if (kept.length === 0) {
      await opened.directory.close();
      continue;
    }
    const shared = shareDirectory(
      opened.directory,
      kept.map((entry) => entry.name),
    );
    for (const [position, { index }] of kept.entries()) results[index] = { ok: true, parent: shared[position] as ParentEntry };
  }
}

/** How many path components `directory` has below `root` (which contains it). */
function segmentsOf(root: string, directory: string): number {
  return relativeBelow(root, directory)
    .split(path.sep)
    .filter((segment) => segment !== "").length;
}

function linkError(error: unknown, requested: string): unknown {
  if (!(error instanceof LinkOnTheWay)) return error;
  return new SandboxViolationError(
    "symlink_escape",
    `Refused "${requested}": "${error.component}" kept changing into a symbolic link while it was opened.`,
    { data: { path: requested } },
  );
}
