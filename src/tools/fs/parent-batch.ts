import type { FileScope, OpenParentOptions, ParentEntry } from "./file-scope.js";
import { inParallel } from "./in-parallel.js";
import type { ReadLook } from "./read-look.js";
import { shareDescriptor, type VerifiedDirectory } from "./verified-directory.js";

/** One path's opened parent, or why it could not be opened. */
export type OpenedParent = { readonly ok: true; readonly parent: ParentEntry } | { readonly ok: false; readonly error: unknown };

/** A file's content (`undefined`: absent), or the error reading it gave. */
export type ReadOutcome =
  | {
      readonly ok: true;
      readonly bytes: Buffer | undefined;
      /** The path's lock key (`lockKey(path)`), when the batch read found it on the way. */
      readonly key?: string;
      /**
       * With `keep`: the verified directory the batch read through, left open for the caller
       * (who closes it), so a later change of the file can reuse it (see `openParents`' `held`).
       */
      readonly parent?: ParentEntry;
      /** How the file looked when these bytes were read (a batched read of a present file). */
      readonly look?: ReadLook;
    }
  | { readonly ok: false; readonly error: unknown };

/** Options of `BatchFileScope.readMany`. */
export interface ReadManyOptions {
  readonly keep?: boolean;
  readonly mutate?: boolean;
}

/**
 * The batch operations the library's own scopes add to {@link FileScope} (not part of the public
 * interface: a host's scope without them gets the one-path-at-a-time fallback).
 */
export interface BatchFileScope extends FileScope {
  /** True when `lockKey(path)` is `resolve(path, "write")`: a commit then resolves each path once. */
  readonly lockKeyIsWritePath: boolean;
  /**
   * Opens the parents of many paths at once, walking each distinct directory once: paths in one
   * directory share one verified handle (closed when the last of them is closed). Every path gets
   * the same checks and the same answer as with `openParent`.
   */
  openParents(
    paths: readonly string[],
    options: OpenParentOptions,
    held?: readonly (ParentEntry | undefined)[],
  ): Promise<OpenedParent[]>;
  /**
   * Reads many files as `readIfPresent` would, one verified directory handle per directory; with
   * `keep`, each path read through the batch keeps its directory open (`ReadOutcome.parent`).
   * With `mutate`, the directories are opened with the checks of a change (git state at every
   * depth, see `OpenParentOptions.mutate`), and a path they refuse gets that refusal as its outcome.
   */
  readMany(paths: readonly string[], options?: ReadManyOptions): Promise<ReadOutcome[]>;
}

export function isBatchScope(scope: FileScope): scope is BatchFileScope {
  const candidate = scope as Partial<BatchFileScope>;
  return typeof candidate.openParents === "function" && typeof candidate.readMany === "function";
}

/**
 * `openParent` of every path, batched when the scope can. `held`: per path, a directory opened
 * for it earlier (by a `readMany` with `keep`) that the scope may reuse instead of walking again,
 * when it is provably still what a walk would open now (see the confined scope's `openParents`).
 */
export async function openParentsOf(
  scope: FileScope,
  paths: readonly string[],
  options: OpenParentOptions,
  held?: readonly (ParentEntry | undefined)[],
): Promise<OpenedParent[]> {
  if (isBatchScope(scope)) return scope.openParents(paths, options, held);
  return openParentsOneByOne(paths, (requested) => scope.openParent(requested, options));
}

/** The fallback: one `openParent` per path, in parallel. */
export async function openParentsOneByOne(
  paths: readonly string[],
  open: (requested: string) => Promise<ParentEntry>,
): Promise<OpenedParent[]> {
  const results: OpenedParent[] = paths.map(() => ({ ok: false, error: new Error("not opened") }));
  await inParallel(paths, async (requested, index) => {
    results[index] = await open(requested).then(
      (parent) => ({ ok: true, parent }) as const,
      (error: unknown) => ({ ok: false, error }) as const,
    );
  });
  return results;
}

/** Every path's content (as `readIfPresent` gives it), batched when the scope can. */
export async function readManyOf(
  scope: FileScope,
  paths: readonly string[],
  readOne: (requested: string) => Promise<Buffer | undefined>,
  options: ReadManyOptions = {},
): Promise<ReadOutcome[]> {
  if (isBatchScope(scope)) return scope.readMany(paths, options);
  const results: ReadOutcome[] = paths.map(() => ({ ok: true, bytes: undefined }));
  await inParallel(paths, async (requested, index) => {
    results[index] = await readOne(requested).then(
      (bytes) => ({ ok: true, bytes }) as const,
      (error: unknown) => ({ ok: false, error }) as const,
    );
  });
  return results;
}

/**
 * One verified directory shared by the entries `names`: each entry's `close` releases its share,
 * and the handle is closed with the last.
 */
export function shareDirectory(directory: VerifiedDirectory, names: readonly string[]): ParentEntry[] {
  let open = names.length;
  return names.map((name) => {
    let closed = false;
    const share: ParentEntry = {
      realPath: directory.realPath,
      // Every sharer names the made directories: a rollback in any order removes them once empty.
      created: directory.created,
      at: (entry: string) => directory.at(entry),
      sync: () => directory.sync(),
      close: async () => {
        if (closed) return;
        closed = true;
        open--;
        if (open === 0) await directory.close();
      },
      name,
    };
    shareDescriptor(share, directory, () => closed);
    return share;
  });
}
