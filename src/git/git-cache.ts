import { checkNumberOption } from "../errors/check-number-option.js";
import type { FileDiff } from "./diff/file-diff.js";
import { CommitMessageCache } from "./history/message-cache.js";
import type { ResolvedChange } from "./history/renames.js";
import type { FileChange } from "./history/tree-diff.js";
import { LruCache } from "./lru-cache.js";
import type { ObjectStore } from "./objects/git-object.js";
import type { GitTree } from "./objects/git-tree.js";
import type { CommitRecord, GraphCommit, TreeEntry } from "./objects/parse-objects.js";

/**
 * Options of {@link createGitCache}.
 *
 * @public
 */
export interface GitCacheOptions {
  /**
   * Rough upper bound, in bytes, of what the cache keeps per repository: parsed commits and trees,
   * blob contents, tree diffs and line diffs, and (6% of it) the commit messages a whole-history
   * message search read, folded to lower case. Objects never change, so nothing goes stale; the
   * least recently used entries go first when the bound is reached. Outside this bound, the
   * node reader keeps up to 8 MiB of 256 KiB pack windows per pack (the least recently used
   * window's buffer is reused for the next; the pack's bytes stay in the OS page cache), pack
   * indexes, the commit-graph and 32 MiB of resolved delta bases (split between packs), until
   * {@link GitCache.clear}. A whole number at least 0 (0 caches no object), or `Infinity` (no
   * bound); anything else fails with `invalid_option` (`NaN` compared false with every weight, so
   * nothing was ever forgotten).
   * @defaultValue 256 MiB
   */
  readonly maxBytes?: number;
}

/**
 * Commits from the commit-graph by position: an array, since positions are dense small integers
 * (a map lookup per parent cost more than the rest of a walk step). Emptied whole when what it
 * holds (commits, and the messages read since) passes its budget.
 */
export class GraphCommitCache {
  private slots: (GraphCommit | undefined)[] = [];
  private weight = 0;

  constructor(private readonly budget: number) {}

  /** The commit at `position`, if kept. */
  get(position: number): GraphCommit | undefined {
    return position < this.slots.length ? this.slots[position] : undefined;
  }

  /** Keeps `commit` at `position` (`size`: the graph's commit count, to size the array once). */
  set(position: number, commit: GraphCommit, size: number): void {
    if (this.slots.length < size) this.slots = new Array(size);
    this.slots[position] = commit;
    this.weigh(200);
  }

  /** Adds `bytes` to what the kept commits hold (a message read); past the budget, everything goes. */
  weigh(bytes: number): void {
    this.weight += bytes;
    if (this.weight <= this.budget) return;
    this.slots = [];
    this.weight = 0;
  }

  /** Forgets everything. */
  clear(): void {
    this.slots = [];
    this.weight = 0;
  }
}

/** The caches of one repository (package-internal). */
export interface RepositoryCaches {
  /** Where objects come from. */
  readonly store: ObjectStore;
  /** isomorphic-git's own cache object (pack indexes), for its calls. */
  readonly isomorphicCache: object;
  /** Parsed commits by id. */
  readonly commits: LruCache<string, CommitRecord>;
  /** Commits read from the commit-graph, by graph position. */
  readonly graphCommits: GraphCommitCache;
  /** Parsed trees by the first 30 bits of their id (a hit is checked against the tree's whole id). */
  readonly trees: LruCache<number, GitTree>;
  /** Blob contents by id. */
  readonly blobs: LruCache<string, Buffer>;
  /** A commit's changes against its first parent, by commit id and path scope (a commit-graph commit with no scope: by its position). */
  readonly changes: LruCache<string | number, readonly FileChange[]>;
  /** The same with renames paired. */
  readonly renamedChanges: LruCache<string | number, readonly ResolvedChange[]>;
  /** Line diffs by the two blob ids. */
  readonly lineDiffs: LruCache<string, FileDiff>;
  /** What is at a path in a tree (`null`: nothing), by tree id and path: history walks ask it per commit. */
  readonly paths: LruCache<string, TreeEntry | null>;
  /** Commit-graph commits' messages, folded to lower case, for message searches of the whole history. */
  readonly messages: CommitMessageCache;
}

function createCaches(store: ObjectStore, isomorphicCache: object, maxBytes: number): RepositoryCaches {
  const share = (fraction: number) => Math.floor(maxBytes * fraction);
  return {
    store,
    isomorphicCache,
    commits: new LruCache(share(0.1), (commit) => 300 + commit.message.length * 2),
    // A commit from the commit-graph is weighed before its message is read (reading it would defeat the graph).
    graphCommits: new GraphCommitCache(share(0.08)),
    // Weighed without locating its entries (a tree read to find one name never does): ~2x its bytes covers the table.
    trees: new LruCache(share(0.2), (tree) => 140 + tree.content.length * 2),
    blobs: new LruCache(share(0.26), (blob) => blob.length + 64),
    changes: new LruCache(share(0.1), (changes) => 64 + changes.length * 200),
    renamedChanges: new LruCache(share(0.05), (changes) => 64 + changes.length * 240),
    lineDiffs: new LruCache(share(0.1), (diff) => 64 + (diff.lines?.removed.length ?? 0) + (diff.lines?.added.length ?? 0)),
    paths: new LruCache(share(0.05), (entry) => 160 + (entry?.name.length ?? 0)),
    // 8 bytes per graph commit and the messages' bytes (15 MiB of the default 256): 20,000 short messages take
    // ~1 MiB; a longer history whose messages do not all fit keeps the first ones read and reads the rest each time.
    messages: new CommitMessageCache(share(0.06)),
  };
}

/**
 * What the git tools remember between calls: one entry per repository, holding parsed objects and
 * derived data (tree diffs, line diffs). Pass one cache to several `createGitTools()` calls to
 * share it; call {@link GitCache.clear} to free memory and open pack files.
 * @public
 */
export interface GitCache {
  /** Forgets every repository and closes their pack files. */
  clear(): void;
}

/** The cache's per-repository store, kept off the public interface. */
class RepositoryCacheTable implements GitCache {
  private readonly repositories = new Map<object | undefined, Map<string, RepositoryCaches>>();

  constructor(private readonly maxBytes: number) {}

  repository(
    fileSystem: object | undefined,
    commondir: string,
    createStore: (isomorphicCache: object) => ObjectStore,
  ): RepositoryCaches {
    let repositories = this.repositories.get(fileSystem);
    if (repositories === undefined) {
      repositories = new Map();
      this.repositories.set(fileSystem, repositories);
    }
    let caches = repositories.get(commondir);
    if (caches === undefined) {
      const isomorphicCache = {};
      caches = createCaches(createStore(isomorphicCache), isomorphicCache, this.maxBytes);
      repositories.set(commondir, caches);
    }
    return caches;
  }

  clear(): void {
    for (const repositories of this.repositories.values()) for (const caches of repositories.values()) caches.store.close();
    this.repositories.clear();
  }
}

/**
 * The caches of the repository whose objects are in `commondir`, as read through the host's
 * `fileSystem` (`undefined`: node's fs), made with `createStore` on first use.
 */
export function repositoryCaches(
  cache: GitCache,
  fileSystem: object | undefined,
  commondir: string,
  createStore: (isomorphicCache: object) => ObjectStore,
): RepositoryCaches {
  if (!(cache instanceof RepositoryCacheTable)) throw new TypeError("A GitCache must come from createGitCache().");
  return cache.repository(fileSystem, commondir, createStore);
}

/**
 * Creates a {@link GitCache}; share it between tool sets that read the same repositories.
 *
 * @public
 */
export function createGitCache(options: GitCacheOptions = {}): GitCache {
  const maxBytes = checkNumberOption(options.maxBytes, "maxBytes", { min: 0, integer: true, infinite: true }, "createGitCache");
  return new RepositoryCacheTable(maxBytes ?? 256 * 1024 * 1024);
}
