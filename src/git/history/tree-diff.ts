import { GitTree } from "../objects/git-tree.js";
import type { TreeEntry } from "../objects/parse-objects.js";
import type { GitRepository } from "../repository.js";

/** One path whose content or mode differs between two trees (no rename pairing yet). */
export interface FileChange {
  /** The repository-relative path. */
  readonly path: string;
  /** The old blob (absent: the path was added). */
  readonly oldOid?: string;
  /** The new blob (absent: the path was deleted). */
  readonly newOid?: string;
  /** The old mode. */
  readonly oldMode?: string;
  /** The new mode. */
  readonly newMode?: string;
}

interface Walk {
  readonly repository: GitRepository;
  /** The scope's path parts; entries off this path are not visited. */
  readonly scope: readonly string[];
  readonly changes: FileChange[];
}

function fileChange(path: string, before: TreeEntry | undefined, after: TreeEntry | undefined): FileChange {
  return {
    path,
    ...(before === undefined ? {} : { oldOid: before.oid, oldMode: before.mode }),
    ...(after === undefined ? {} : { newOid: after.oid, newMode: after.mode }),
  };
}

/** Records one name that differs: recurse into trees, record files (when the scope reaches them). */
async function compareEntries(
  walk: Walk,
  before: TreeEntry | undefined,
  after: TreeEntry | undefined,
  prefix: string,
  depth: number,
) {
  const name = before?.name ?? after?.name ?? "";
  const path = prefix === "" ? name : `${prefix}/${name}`;
  const oldIsTree = before?.kind === "tree";
  const newIsTree = after?.kind === "tree";
  if (oldIsTree || newIsTree) {
    await walkTrees(walk, oldIsTree ? before?.oid : undefined, newIsTree ? after?.oid : undefined, path, depth + 1);
  }
  const oldFile = oldIsTree ? undefined : before;
  const newFile = newIsTree ? undefined : after;
  // A file can only be in scope when the scope ends at (or above) it.
  if ((oldFile !== undefined || newFile !== undefined) && depth + 1 >= walk.scope.length) {
    walk.changes.push(fileChange(path, oldFile, newFile));
  }
}

/** Walks two sorted trees side by side; entries with the same name, mode and id are skipped unread. */
async function mergeTrees(walk: Walk, oldTree: GitTree, newTree: GitTree, prefix: string, depth: number) {
  let i = 0;
  let j = 0;
  while (i < oldTree.size || j < newTree.size) {
    const order = i >= oldTree.size ? 1 : j >= newTree.size ? -1 : oldTree.compareNames(i, newTree, j);
    if (order === 0) {
      if (!oldTree.sameObject(i, newTree, j)) await compareEntries(walk, oldTree.entry(i), newTree.entry(j), prefix, depth);
      i++;
      j++;
    } else if (order < 0) await compareEntries(walk, oldTree.entry(i++), undefined, prefix, depth);
    else await compareEntries(walk, undefined, newTree.entry(j++), prefix, depth);
  }
}

async function walkTrees(walk: Walk, before: string | undefined, after: string | undefined, prefix: string, depth: number) {
  if (before === after) return;
  const oldTree = await walk.repository.tree(before);
  const newTree = await walk.repository.tree(after);
  const part = walk.scope[depth];
  if (part === undefined) return mergeTrees(walk, oldTree, newTree, prefix, depth);
  const oldEntry = oldTree.find(part);
  const newEntry = newTree.find(part);
  if (oldEntry?.oid === newEntry?.oid && oldEntry?.mode === newEntry?.mode) return;
  await compareEntries(walk, oldEntry, newEntry, prefix, depth);
}

const EMPTY_TREE = new GitTree(Buffer.alloc(0));

/** A pair of trees still to compare, with the path and depth they sit at. */
interface PendingTrees {
  readonly oldTree: GitTree;
  readonly newTree: GitTree;
  readonly prefix: string;
  readonly depth: number;
}

/**
 * {@link compareEntries} for a store read by raw id: the entries are compared where the trees
 * store them, a subtree is read from the id bytes its parent holds, and nothing is awaited, so a
 * walk allocates no promise, no entry object and no id text for what did not change (a pickaxe
 * search diffs hundreds of commits on its first call). Only a changed file becomes a
 * {@link FileChange}, with the same fields {@link compareEntries} gives it. A changed subtree is
 * queued on `pending`, not recursed into: a repository thousands of directories deep would
 * otherwise overflow the native stack (the async walk unwinds at every tree read; this one does not).
 */
function compareEntriesRaw(
  walk: Walk,
  pending: PendingTrees[],
  before: GitTree | undefined,
  i: number,
  after: GitTree | undefined,
  j: number,
  prefix: string,
  depth: number,
): void {
  const name = before !== undefined ? before.nameAt(i) : (after as GitTree).nameAt(j);
  const path = prefix === "" ? name : `${prefix}/${name}`;
  const oldIsTree = before?.isDirectory(i) === true;
  const newIsTree = after?.isDirectory(j) === true;
  if (oldIsTree || newIsTree) {
    const { repository } = walk;
    const oldTree = oldIsTree ? repository.treeAt(before.content, before.entryIdAt(i)) : EMPTY_TREE;
    const newTree = newIsTree ? repository.treeAt(after.content, after.entryIdAt(j)) : EMPTY_TREE;
    if (oldTree !== newTree) pending.push({ oldTree, newTree, prefix: path, depth: depth + 1 });
  }
  const oldFile = oldIsTree ? undefined : before;
  const newFile = newIsTree ? undefined : after;
  if ((oldFile !== undefined || newFile !== undefined) && depth + 1 >= walk.scope.length) {
    walk.changes.push({
      path,
      ...(oldFile === undefined ? {} : { oldOid: oldFile.oidAt(i), oldMode: oldFile.modeAt(i) }),
      ...(newFile === undefined ? {} : { newOid: newFile.oidAt(j), newMode: newFile.modeAt(j) }),
    });
  }
}

/** {@link mergeTrees}, synchronously on raw ids (see {@link compareEntriesRaw}). */
function mergeTreesRaw(walk: Walk, pending: PendingTrees[], { oldTree, newTree, prefix, depth }: PendingTrees): void {
  let i = 0;
  let j = 0;
  while (i < oldTree.size || j < newTree.size) {
    const order = i >= oldTree.size ? 1 : j >= newTree.size ? -1 : oldTree.compareNames(i, newTree, j);
    if (order === 0) {
      if (!oldTree.sameObject(i, newTree, j)) compareEntriesRaw(walk, pending, oldTree, i, newTree, j, prefix, depth);
      i++;
      j++;
    } else if (order < 0) compareEntriesRaw(walk, pending, oldTree, i++, undefined, -1, prefix, depth);
    else compareEntriesRaw(walk, pending, undefined, -1, newTree, j++, prefix, depth);
  }
}

/**
 * {@link walkTrees}, synchronously on raw ids (see {@link compareEntriesRaw}), over a work list:
 * the changes come out in another order than the recursive walk's, and {@link diffTrees} sorts them.
 */
function walkTreesRaw(walk: Walk, oldTree: GitTree, newTree: GitTree): void {
  const pending: PendingTrees[] = [{ oldTree, newTree, prefix: "", depth: 0 }];
  for (let trees = pending.pop(); trees !== undefined; trees = pending.pop()) {
    const part = walk.scope[trees.depth];
    if (part === undefined) {
      mergeTreesRaw(walk, pending, trees);
      continue;
    }
    const i = trees.oldTree.indexOf(part);
    const j = trees.newTree.indexOf(part);
    if (i < 0 && j < 0) continue;
    if (i >= 0 && j >= 0 && trees.oldTree.sameObject(i, trees.newTree, j)) continue;
    compareEntriesRaw(
      walk,
      pending,
      i < 0 ? undefined : trees.oldTree,
      i,
      j < 0 ? undefined : trees.newTree,
      j,
      trees.prefix,
      trees.depth,
    );
  }
}

/**
 * {@link diffTrees} of two trees already read (needs {@link GitRepository.rawReads}), synchronously:
 * a commit from the commit-graph is compared with its parent by the tree ids the graph stores,
 * with no id turned into text and back.
 */
export function diffReadTrees(repository: GitRepository, before: GitTree, after: GitTree, scope: string): FileChange[] {
  const walk: Walk = { repository, scope: scope === "" ? [] : scope.split("/"), changes: [] };
  if (before !== after) walkTreesRaw(walk, before, after);
  return walk.changes.sort(byPath);
}

function byPath(x: FileChange, y: FileChange): number {
  return x.path < y.path ? -1 : x.path > y.path ? 1 : 0;
}

/**
 * The files that differ between two trees, limited to `scope` (a file or directory path; "" for
 * everything), sorted by path. Only subtrees whose ids differ are read, so the cost follows the
 * size of the change, not of the repository.
 */
export async function diffTrees(
  repository: GitRepository,
  before: string | undefined,
  after: string | undefined,
  scope: string,
): Promise<FileChange[]> {
  const walk: Walk = { repository, scope: scope === "" ? [] : scope.split("/"), changes: [] };
  if (repository.rawReads) {
    if (before !== after) walkTreesRaw(walk, repository.treeSync(before), repository.treeSync(after));
  } else {
    await walkTrees(walk, before, after, "", 0);
  }
  return walk.changes.sort(byPath);
}
