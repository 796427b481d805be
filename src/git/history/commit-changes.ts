import { missingObjectError, shallowCloneError } from "../git-errors.js";
import { MissingObjectError } from "../objects/git-object.js";
import type { GitTree } from "../objects/git-tree.js";
import { type CommitRecord, GraphCommit } from "../objects/parse-objects.js";
import type { GitRepository } from "../repository.js";
import { detectRenames, type ResolvedChange } from "./renames.js";
import { diffReadTrees, diffTrees, type FileChange } from "./tree-diff.js";

/** Reads a commit that history needs, turning a missing one into a message for the model. */
export async function requireCommit(repository: GitRepository, oid: string): Promise<CommitRecord> {
  try {
    return await repository.commit(oid);
  } catch (error) {
    if (error instanceof MissingObjectError) throw missingObjectError(oid);
    throw error;
  }
}

/**
 * The tree a commit is compared with: its first parent's, or the empty tree for a root commit.
 * Merges are compared with their first parent, like `git log --diff-merges=first-parent`.
 */
export async function baseTree(repository: GitRepository, commit: CommitRecord): Promise<string | undefined> {
  const parent = commit.parents[0];
  if (parent === undefined) return undefined;
  if (repository.isShallow(commit.oid)) throw shallowCloneError(commit.oid, "what that commit changed is unknown");
  return (await requireCommit(repository, parent)).tree;
}

/**
 * How the change caches know a commit's changes within `scope`: a commit of the store's
 * commit-graph with no scope by its graph position (a small integer: no id text made and hashed
 * per commit of a walk; the store reads one graph for its lifetime, and the caches live no
 * longer), any other by its id and the scope.
 */
function changesKey(repository: GitRepository, commit: CommitRecord, scope: string): string | number {
  if (scope === "" && commit instanceof GraphCommit && repository.caches.store.commitGraph?.() === commit.graph) {
    return commit.graphPosition;
  }
  return `${commit.oid}\u0000${scope}`;
}

/**
 * The trees of a commit from the commit-graph and of its first parent (the empty tree for a root
 * commit), read by the raw ids the graph stores; `undefined` when the store does not read raw ids.
 * A graph commit is never shallow (a shallow repository's commits are not read from the graph).
 */
function graphTrees(repository: GitRepository, commit: CommitRecord): readonly [GitTree, GitTree] | undefined {
  if (!(commit instanceof GraphCommit) || !repository.rawReads) return undefined;
  const { graph, graphPosition } = commit;
  const parent = commit.parentPositions[0];
  const before =
    parent === undefined ? repository.treeSync(undefined) : repository.treeAt(graph.treeData(parent), graph.treeOffset(parent));
  return [before, repository.treeAt(graph.treeData(graphPosition), graph.treeOffset(graphPosition))];
}

/** What a commit changed against its first parent, within `scope`; cached per commit and scope. */
export async function commitChanges(
  repository: GitRepository,
  commit: CommitRecord,
  scope: string,
): Promise<readonly FileChange[]> {
  const key = changesKey(repository, commit, scope);
  const cached = repository.caches.changes.get(key);
  if (cached !== undefined) return cached;
  const trees = graphTrees(repository, commit);
  const changes =
    trees === undefined
      ? await diffTrees(repository, await baseTree(repository, commit), commit.tree, scope)
      : diffReadTrees(repository, trees[0], trees[1], scope);
  repository.caches.changes.set(key, changes);
  return changes;
}

/**
 * {@link commitChanges} with renames paired (within the scope, as a git pathspec limits them);
 * with `signal`, the pairing yields to the event loop and stops on abort (see `detectRenames`).
 */
export async function commitChangesWithRenames(
  repository: GitRepository,
  commit: CommitRecord,
  scope: string,
  signal?: AbortSignal,
): Promise<readonly ResolvedChange[]> {
  const key = changesKey(repository, commit, scope);
  const cached = repository.caches.renamedChanges.get(key);
  if (cached !== undefined) return cached;
  const changes = await detectRenames(repository, await commitChanges(repository, commit, scope), signal);
  repository.caches.renamedChanges.set(key, changes);
  return changes;
}
