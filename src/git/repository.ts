import type { FsClient } from "isomorphic-git";
import type { FileAccess } from "./file-access.js";
import type { RepositoryCaches } from "./git-cache.js";
import { requireCommit } from "./history/commit-changes.js";
import { type Mailmap, NO_MAILMAP } from "./mailmap.js";
import type { CommitGraph } from "./objects/commit-graph.js";
import { type GitObject, MissingObjectError } from "./objects/git-object.js";
import { GitTree } from "./objects/git-tree.js";
import { writeObjectId } from "./objects/hex.js";
import { idHead } from "./objects/pack-index.js";
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

/** A tree cache key: the first 30 bits of the id at `at` (a hit is checked against the whole id). */
function treeKey(source: Uint8Array, at: number): number {
  // 30 bits: a small integer, which a Map hashes without boxing it. Ids that share them are told
  // apart by the check; the one not cached is read again each time (n trees share about n^2 / 2^31 keys: 5 of 100,000).
  return idHead(source, at) >>> 2;
}

/** Whether the 20-byte ids at `aAt` in `a` and `bAt` in `b` are equal. */
function sameId(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): boolean {
  // Ids that differ almost always differ in their last bytes as much as their first.
  for (let index = 19; index >= 0; index--) if (a[aAt + index] !== b[bAt + index]) return false;
  return true;
}

/** Whether two raw tree ids (`undefined`: the empty tree) are the same tree. */
function sameRawTree(a: Uint8Array | undefined, aAt: number, b: Uint8Array | undefined, bAt: number): boolean {
  return a === undefined || b === undefined ? a === b : sameId(a, aAt, b, bAt);
}

/** The id of the directory at entry `index` of `tree`; `undefined` when there is none there, or a file. */
function subtreeOid(tree: GitTree, index: number): string | undefined {
  return index >= 0 && tree.isDirectory(index) ? tree.oidAt(index) : undefined;
}

function hexId(source: Uint8Array, at: number): string {
  return Buffer.from(source.buffer, source.byteOffset + at, 20).toString("hex");
}

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
    /** The working tree's `.mailmap`: the names and addresses authors are shown under. */
    readonly mailmap: Mailmap = NO_MAILMAP,
  ) {}

  /** Reads a graph commit's object when its message or signatures are asked for (one function for all of them). */
  private loadCommit: ((oid: string) => CommitRecord) | undefined;
  /** The id of the commit {@link loadCommit} reads, as bytes (its own: a caller may hold {@link scratch} across a load). */
  private readonly loadedId = Buffer.alloc(20);
  /** Two ids turned back into bytes, for the comparisons that start from text ids. */
  private readonly scratch = [Buffer.alloc(20), Buffer.alloc(20)] as const;

  /**
   * Whether objects can be read synchronously by raw id (the node driver): then history walks
   * compare trees in place, without promises or ids turned into text.
   */
  get rawReads(): boolean {
    return this.caches.store.readRawSync !== undefined;
  }

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
   * How walks and blame know a commit: its commit-graph position (no id turned into text), else its
   * id. A commit the graph lists but that was parsed by id (peel keeps one, for a revision named in
   * an earlier call) is known by its position too, or a walk reaching it both ways takes it twice.
   */
  commitKey(commit: CommitRecord): number | string {
    if (commit instanceof GraphCommit) return commit.graphPosition;
    const position = this.usableGraph()?.positionOf(commit.oid) ?? -1;
    return position >= 0 ? position : commit.oid;
  }

  /** The commit-graph, when commits may be read from it (a synchronous store, not a shallow clone). */
  private usableGraph(): CommitGraph | undefined {
    const { store } = this.caches;
    if (store.readSync === undefined || this.shallow.size > 0) return undefined;
    return store.commitGraph?.();
  }

  /**
   * The commit from the commit-graph, when the repository has one that lists it and the store
   * reads synchronously; its message and signatures are read only if asked for.
   */
  private fromGraph(oid: string): CommitRecord | undefined {
    const graph = this.usableGraph();
    const position = graph?.positionOf(oid) ?? -1;
    return graph === undefined || position < 0 ? undefined : this.graphCommit(graph, position, oid);
  }

  private graphCommit(graph: CommitGraph, position: number, oid?: string): GraphCommit {
    const cached = this.caches.graphCommits.get(position);
    if (cached !== undefined && cached.graph === graph) return cached;
    const { store, graphCommits } = this.caches;
    this.loadCommit ??= (id) => {
      // Parsed into strings at once (the record keeps no bytes): read into the store's scratch when it has one.
      const raw = this.loadedId;
      const object =
        store.readTransientRawSync !== undefined && writeObjectId(id, raw)
          ? store.readTransientRawSync(raw, 0)
          : (store.readSync as (oid: string) => GitObject)(id);
      if (object.type !== "commit") throw new MissingObjectError(id);
      graphCommits.weigh(300 + object.content.length * 2);
      return parseCommit(id, object.content);
    };
    const commit = new GraphCommit(graph, position, this.loadCommit, oid);
    graphCommits.set(position, commit, graph.count);
    return commit;
  }

  /** The parents of a commit read from the graph, by position (no id turned into text); `undefined` for other commits. */
  graphParents(commit: CommitRecord): GraphCommit[] | undefined {
    if (!(commit instanceof GraphCommit)) return undefined;
    return commit.parentPositions.map((position) => this.graphCommit(commit.graph, position));
  }

  /**
   * The stored bytes of a commit from the graph whose message has not been parsed yet (read, not
   * decoded, not kept), so a caller can rule it out without parsing; `undefined` otherwise. The
   * bytes may be the store's scratch: valid only until the repository's next object read.
   */
  unparsedCommitContent(commit: CommitRecord): Buffer | undefined {
    if (!(commit instanceof GraphCommit) || commit.parsed) return undefined;
    const { store } = this.caches;
    const { graph, graphPosition } = commit;
    // Read by the graph's raw id into the store's scratch: the caller matches and copies the bytes before any other read.
    const object =
      store.readTransientRawSync !== undefined
        ? store.readTransientRawSync(graph.idData(graphPosition), graph.idOffset(graphPosition))
        : store.readSync?.(commit.oid);
    return object?.type === "commit" ? object.content : undefined;
  }

  /** The parent at graph `position` of a commit from the graph. */
  graphParent(commit: GraphCommit, position: number): GraphCommit {
    return this.graphCommit(commit.graph, position);
  }

  /** The parents of `commit`, first parent first. @throws the model-facing missing object error */
  async parentsOf(commit: CommitRecord): Promise<CommitRecord[]> {
    const graphed = this.graphParents(commit);
    if (graphed !== undefined) return graphed;
    const parents: CommitRecord[] = [];
    for (const parent of commit.parents) parents.push(await requireCommit(this, parent));
    return parents;
  }

  /** The tree whose 20 raw id bytes start at `at` in `source` (needs {@link rawReads}); cached by id. */
  treeAt(source: Uint8Array, at: number): GitTree {
    const key = treeKey(source, at);
    const { trees, store } = this.caches;
    const cached = trees.get(key);
    if (cached?.hasId(source, at)) return cached;
    if (store.readRawSync === undefined) throw new TypeError("treeAt needs a store that reads raw ids");
    const object = store.readRawSync(source, at);
    if (object.type !== "tree") throw new MissingObjectError(hexId(source, at));
    // The id stays where it was read (a parent tree's content, the commit-graph): no copy; a text id's bytes are copied.
    const scratch = source === this.scratch[0] || source === this.scratch[1];
    const tree = scratch
      ? new GitTree(object.content, new Uint8Array(source.subarray(at, at + 20)), 0)
      : new GitTree(object.content, source, at);
    // Two ids that share the key's bits keep the one read last cached; the other is read again when asked (still right).
    trees.set(key, tree);
    return tree;
  }

  /** The tree `oid`; `undefined` stands for the empty tree (the parent of a root commit). */
  async tree(oid: string | undefined): Promise<GitTree> {
    if (oid === undefined) return EMPTY_TREE;
    const raw = this.scratch[0];
    if (!writeObjectId(oid, raw)) throw new MissingObjectError(oid);
    if (this.rawReads) return this.treeAt(raw, 0);
    const key = treeKey(raw, 0);
    const cached = this.caches.trees.get(key);
    if (cached?.hasId(raw, 0)) return cached;
    const id = Uint8Array.from(raw);
    const object = await this.caches.store.read(oid);
    if (object.type !== "tree") throw new MissingObjectError(oid);
    const tree = new GitTree(object.content, id, 0);
    this.caches.trees.set(key, tree);
    return tree;
  }

  /**
   * The tree `oid` read synchronously (needs {@link rawReads}); `undefined` stands for the empty
   * tree. Walks over many trees use it to avoid a promise per tree.
   */
  treeSync(oid: string | undefined): GitTree {
    if (oid === undefined) return EMPTY_TREE;
    const raw = this.scratch[0];
    if (!writeObjectId(oid, raw)) throw new MissingObjectError(oid);
    return this.treeAt(raw, 0);
  }

  /**
   * The content of the blob `oid` when the store reads synchronously (the node driver), cached as
   * {@link blob} caches it; `undefined` when it does not (then {@link blob} answers).
   */
  blobSync(oid: string): Buffer | undefined {
    const cached = this.caches.blobs.get(oid);
    if (cached !== undefined) return cached;
    const { readSync } = this.caches.store;
    if (readSync === undefined) return undefined;
    const object = readSync.call(this.caches.store, oid);
    if (object.type !== "blob") throw new MissingObjectError(oid);
    this.caches.blobs.set(oid, object.content);
    return object.content;
  }

  /**
   * The size of the blob `oid`, from the object's header when the store can tell it (the node
   * driver) so its content is not inflated; otherwise its content is read (and cached).
   */
  async blobSize(oid: string): Promise<number> {
    const cached = this.caches.blobs.get(oid);
    if (cached !== undefined) return cached.length;
    const { sizeSync } = this.caches.store;
    if (sizeSync !== undefined) return sizeSync.call(this.caches.store, oid);
    return (await this.blob(oid)).length;
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
    if (this.rawReads) return this.sameAtPathFromText(first, second, path);
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
      a = subtreeOid(left, l);
      b = subtreeOid(right, r);
    }
    return false;
  }

  /** {@link sameAtPathRaw} for two tree ids given as text (`undefined`: the empty tree). */
  private sameAtPathFromText(first: string | undefined, second: string | undefined, path: string): boolean {
    const [a, b] = this.scratch;
    if (first !== undefined && !writeObjectId(first, a)) throw new MissingObjectError(first);
    if (second !== undefined && !writeObjectId(second, b)) throw new MissingObjectError(second);
    return this.sameAtPathRaw(first === undefined ? undefined : a, 0, second === undefined ? undefined : b, 0, path);
  }

  /**
   * {@link sameAtPath} on raw ids read in place (`undefined` source: the empty tree), synchronously
   * (needs {@link rawReads}): a walk over thousands of commits allocates no id text and no promise.
   */
  sameAtPathRaw(
    aSource: Uint8Array | undefined,
    aStart: number,
    bSource: Uint8Array | undefined,
    bStart: number,
    path: string,
  ): boolean {
    if (path === "") return sameRawTree(aSource, aStart, bSource, bStart);
    const parts = this.pathParts(path);
    let [a, aAt, b, bAt] = [aSource, aStart, bSource, bStart];
    for (let depth = 0; depth < parts.length; depth++) {
      if (sameRawTree(a, aAt, b, bAt)) return true;
      const part = parts[depth] as string;
      const left = a === undefined ? EMPTY_TREE : this.treeAt(a, aAt);
      const right = b === undefined ? EMPTY_TREE : this.treeAt(b, bAt);
      // Entries found by scanning the stored bytes: no table of entries, no entry objects.
      const l = left.locate(part);
      const r = right.locate(part);
      if (l < 0 && r < 0) return true;
      if (l >= 0 && r >= 0 && left.sameEntryAt(l, right, r)) return true;
      if (depth === parts.length - 1) return false;
      // Down one level: the subtree's id where the parent tree stores it; `undefined` when not a directory.
      const leftDirectory = l >= 0 && left.isDirectoryAt(l);
      const rightDirectory = r >= 0 && right.isDirectoryAt(r);
      [a, aAt] = leftDirectory ? [left.content, left.idOffsetAt(l)] : [undefined, 0];
      [b, bAt] = rightDirectory ? [right.content, right.idOffsetAt(r)] : [undefined, 0];
    }
    return false;
  }

  /**
   * Whether `parent` (`undefined`: none, the empty tree) and `commit` hold the same thing at
   * `path`; commits from the graph are compared by their tree ids in place.
   */
  async sameInCommits(parent: CommitRecord | undefined, commit: CommitRecord, path: string): Promise<boolean> {
    if (!this.rawReads) return this.sameAtPath(parent?.tree, commit.tree, path);
    return this.sameInCommitsSync(parent, commit, path);
  }

  /** {@link sameInCommits}, synchronously (needs {@link rawReads}). */
  sameInCommitsSync(parent: CommitRecord | undefined, commit: CommitRecord, path: string): boolean {
    let aSource: Uint8Array | undefined;
    let aAt = 0;
    if (parent instanceof GraphCommit) {
      aSource = parent.graph.treeData(parent.graphPosition);
      aAt = parent.graph.treeOffset(parent.graphPosition);
    } else if (parent !== undefined) {
      aSource = this.scratch[0];
      if (!writeObjectId(parent.tree, aSource)) throw new MissingObjectError(parent.tree);
    }
    let bSource: Uint8Array;
    let bAt = 0;
    if (commit instanceof GraphCommit) {
      bSource = commit.graph.treeData(commit.graphPosition);
      bAt = commit.graph.treeOffset(commit.graphPosition);
    } else {
      bSource = this.scratch[1];
      if (!writeObjectId(commit.tree, bSource)) throw new MissingObjectError(commit.tree);
    }
    return this.sameAtPathRaw(aSource, aAt, bSource, bAt, path);
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
