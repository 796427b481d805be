import type { FsClient } from "isomorphic-git";
import type { FileAccess } from "./file-access.js";
import type { RepositoryCaches } from "./git-cache.js";
import { MissingObjectError } from "./objects/git-object.js";
import { GitTree } from "./objects/git-tree.js";
import {
  type CommitRecord,
  GraphCommit,
  parseCommit,
  parseTag,
  type TagRecord,
  type TreeEntry,
} from "./objects/parse-objects.js";

/** Where a repository lives. */
export interface RepositoryLocation {
  /** The git directory of this working tree (its `HEAD` is here). */
  readonly gitdir: string;
  /** The directory with the objects and shared refs: `gitdir`, or the main one for a linked worktree. */
  readonly commondir: string;
  /** The top of the working tree; `undefined` for a bare repository. */
  readonly worktree: string | undefined;
  /** The directory relative paths from the model start from (the workspace). */
  readonly base: string;
}

const EMPTY_TREE = new GitTree(Buffer.alloc(0));

/**
 * One repository as seen by one tool call: cached object reads (commits, trees, blobs by id)
 * and the shallow boundary read fresh for the call. Everything derived from objects is cached
 * across calls in {@link RepositoryCaches}, since objects never change.
 */
export class GitRepository {
  constructor(
    /** Where it lives. */
    readonly location: RepositoryLocation,
    /** Its caches and object store. */
    readonly caches: RepositoryCaches,
    /** The fs client for isomorphic-git's ref reads. */
    readonly fs: FsClient,
    /** Reads of `HEAD` and similar files. */
    readonly files: FileAccess,
    /** Commits whose parents a shallow clone left out. */
    readonly shallow: ReadonlySet<string>,
  ) {}

  /** Reads a graph commit's object when its message or signatures are asked for (one function for all of them). */
  private loadCommit: ((oid: string) => CommitRecord) | undefined;

  /** The commit `oid`. @throws MissingObjectError */
  async commit(oid: string): Promise<CommitRecord> {
    const cached = this.caches.commits.get(oid);
    if (cached !== undefined) return cached;
    const graphed = this.fromGraph(oid);
    if (graphed !== undefined) return graphed;
    const object = await this.caches.store.read(oid);
    if (object.type !== "commit") throw new MissingObjectError(oid);
    const commit = parseCommit(oid, object.content);
    this.caches.commits.set(oid, commit);
    return commit;
  }

  /**
   * The commit from the commit-graph, when the repository has one that lists it and the store
   * reads synchronously; its message and signatures are read only if asked for.
   */
  private fromGraph(oid: string): CommitRecord | undefined {
    const { store } = this.caches;
    const readSync = store.readSync?.bind(store);
    if (readSync === undefined || this.shallow.size > 0) return undefined;
    const data = store.commitGraph?.()?.lookup(oid);
    if (data === undefined) return undefined;
    this.loadCommit ??= (id) => {
      const object = readSync(id);
      if (object.type !== "commit") throw new MissingObjectError(id);
      return parseCommit(id, object.content);
    };
    const commit = new GraphCommit(oid, data.tree, data.parents, data.time, this.loadCommit, data.position);
    this.caches.commits.set(oid, commit);
    return commit;
  }

  /** The tree `oid`; `undefined` stands for the empty tree (the parent of a root commit). */
  async tree(oid: string | undefined): Promise<GitTree> {
    if (oid === undefined) return EMPTY_TREE;
    const cached = this.caches.trees.get(oid);
    if (cached !== undefined) return cached;
    const object = await this.caches.store.read(oid);
    if (object.type !== "tree") throw new MissingObjectError(oid);
    const tree = new GitTree(object.content);
    this.caches.trees.set(oid, tree);
    return tree;
  }

  /** The content of the blob `oid`. */
  async blob(oid: string): Promise<Buffer> {
    const cached = this.caches.blobs.get(oid);
    if (cached !== undefined) return cached;
    const object = await this.caches.store.read(oid);
    if (object.type !== "blob") throw new MissingObjectError(oid);
    this.caches.blobs.set(oid, object.content);
    return object.content;
  }

  /** The object's type and, for an annotated tag, what it points at (tags are not cached: refs only). */
  async peel(oid: string): Promise<{ readonly type: string; readonly tag?: TagRecord }> {
    if (this.caches.commits.get(oid) !== undefined) return { type: "commit" };
    const object = await this.caches.store.read(oid);
    if (object.type === "commit") this.caches.commits.set(oid, parseCommit(oid, object.content));
    return object.type === "tag" ? { type: "tag", tag: parseTag(object.content) } : { type: object.type };
  }

  /** The tree entry at a repository-relative `path` ("" is the root itself, as a tree entry); cached per tree and path. */
  async entryAt(treeOid: string, path: string): Promise<TreeEntry | undefined> {
    if (path === "") return { name: "", mode: "40000", oid: treeOid, kind: "tree" };
    const key = `${treeOid}:${path}`;
    const cached = this.caches.paths.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const slash = path.lastIndexOf("/");
    const parent = slash < 0 ? undefined : await this.entryAt(treeOid, path.slice(0, slash));
    const entry =
      slash < 0
        ? (await this.tree(treeOid)).find(path)
        : parent?.kind === "tree"
          ? (await this.tree(parent.oid)).find(path.slice(slash + 1))
          : undefined;
    this.caches.paths.set(key, entry ?? null);
    return entry;
  }

  /**
   * Whether two trees hold the same thing at `path` (both nothing counts as the same): walks down
   * both trees together and stops at the first level where they agree, so a commit that did not
   * touch the path's top directory costs one tree read, not one per level.
   */
  async sameAtPath(first: string | undefined, second: string | undefined, path: string): Promise<boolean> {
    if (path === "") return first === second;
    const parts = this.pathParts(path);
    // `undefined` stands for the empty tree: a side where a directory on the way is missing or a file.
    // Entries are compared as stored bytes: no entry objects, and an id turned to hex only to descend.
    let [a, b] = [first, second];
    for (let depth = 0; depth < parts.length; depth++) {
      if (a === b) return true;
      const part = parts[depth] as string;
      const [left, right] = [await this.tree(a), await this.tree(b)];
      const [l, r] = [left.indexOf(part), right.indexOf(part)];
      if (l < 0 && r < 0) return true;
      if (l >= 0 && r >= 0 && left.sameObject(l, right, r)) return true;
      if (depth === parts.length - 1) return false;
      a = l >= 0 && left.isDirectory(l) ? left.oidAt(l) : undefined;
      b = r >= 0 && right.isDirectory(r) ? right.oidAt(r) : undefined;
    }
    return false;
  }

  /**
   * True when the commit-graph's changed-path Bloom filter says `commit` certainly did not change
   * `path` against its first parent (so its trees need not be read); false when it may have, or
   * when there is no filter to ask. git's `log -- <path>` and `blame` ask the same filters.
   */
  unchangedByFilter(commit: CommitRecord, path: string): boolean {
    if (!(commit instanceof GraphCommit) || commit.graphPosition < 0 || path === "") return false;
    const graph = this.caches.store.commitGraph?.();
    return graph !== undefined && !graph.pathMayHaveChanged(commit.graphPosition, path);
  }

  /** `path` split at slashes, remembered for the last path asked (a walk asks one path per commit). */
  private pathParts(path: string): readonly string[] {
    if (this.lastPath !== path) [this.lastPath, this.lastParts] = [path, path.split("/")];
    return this.lastParts;
  }

  private lastPath: string | undefined;
  private lastParts: readonly string[] = [];

  /** True when a shallow clone cut this commit's parents off. */
  isShallow(oid: string): boolean {
    return this.shallow.has(oid);
  }
}
