import { missingObjectError, shallowCloneError } from "../git-errors.js";
import { MissingObjectError } from "../objects/git-object.js";
import type { CommitRecord } from "../objects/parse-objects.js";
import type { GitRepository } from "../repository.js";
import { detectRenames, type ResolvedChange } from "./renames.js";
import { diffTrees, type FileChange } from "./tree-diff.js";

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

/** What a commit changed against its first parent, within `scope`; cached per commit and scope. */
export async function commitChanges(
  repository: GitRepository,
  commit: CommitRecord,
  scope: string,
): Promise<readonly FileChange[]> {
  const key = `${commit.oid}\u0000${scope}`;
  const cached = repository.caches.changes.get(key);
  if (cached !== undefined) return cached;
  const changes = await diffTrees(repository, await baseTree(repository, commit), commit.tree, scope);
  repository.caches.changes.set(key, changes);
  return changes;
}

/** {@link commitChanges} with renames paired (within the scope, as a git pathspec limits them). */
export async function commitChangesWithRenames(
  repository: GitRepository,
  commit: CommitRecord,
  scope: string,
): Promise<readonly ResolvedChange[]> {
  const key = `${commit.oid}\u0000${scope}`;
  const cached = repository.caches.renamedChanges.get(key);
  if (cached !== undefined) return cached;
  const changes = await detectRenames(repository, await commitChanges(repository, commit, scope));
  repository.caches.renamedChanges.set(key, changes);
  return changes;
}
