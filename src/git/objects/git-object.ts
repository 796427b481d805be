import { CatalogError } from "../../errors/catalog-error.js";
import type { CommitGraph } from "./commit-graph.js";

/** The four kinds of object git stores. */
export type GitObjectType = "commit" | "tree" | "blob" | "tag";

/** One object as git stores it: its kind and its content, without the `type size\0` header. */
export interface GitObject {
  /** The object's kind. */
  readonly type: GitObjectType;
  /** The object's bytes. */
  readonly content: Buffer;
}

/**
 * Reads the objects of one repository. Two drivers implement it: one on isomorphic-git (any fs
 * client) and one that reads loose objects and packs with `node:fs` and `node:zlib` directly,
 * because isomorphic-git spends ~100 µs per object on async fs calls and a JavaScript inflate,
 * which makes a 10,000-commit walk take seconds where git takes 80 ms. Both pass one shared suite.
 */
export interface ObjectStore {
  /**
   * The object with this id.
   * @throws MissingObjectError when the repository does not have it (shallow or partial clone).
   */
  read(oid: string): Promise<GitObject>;
  /** The full ids that start with `prefix` (4 to 40 hex digits), for short commit ids. */
  expand(prefix: string): Promise<readonly string[]>;
  /** Objects in packs (loose ones not counted), as git's `approximate_object_count` sees it. */
  packedObjectCount(): number;
  /** Releases open files; the store must not be used afterwards. */
  close(): void;
  /** {@link read}, synchronously, for a driver whose reads are synchronous (the node one). */
  readSync?(oid: string): GitObject;
  /**
   * {@link readSync} of the object whose 20 raw id bytes start at `at` in `source` (a tree's
   * content, the commit-graph), so a walk never turns ids into text to look them up.
   * @throws MissingObjectError
   */
  readRawSync?(source: Uint8Array, at: number): GitObject;
  /**
   * {@link readRawSync} for a caller that is done with the content before its next read of the
   * store (a commit parsed into strings, a message matched and copied): a whole packed object is
   * inflated into the store's reused scratch instead of memory of its own, so a walk over
   * thousands of commits allocates no buffer per commit. The content is valid only until the
   * store's next read; a caller that keeps it must use {@link readRawSync}.
   * @throws MissingObjectError
   */
  readTransientRawSync?(source: Uint8Array, at: number): GitObject;
  /**
   * The size of the object `oid` from its header alone (a loose object's `type size` prefix, a
   * pack entry's size or its delta's result size), without inflating its content: rename and
   * copy detection rule most candidates out by size, as git does with `oid_object_info`.
   * @throws MissingObjectError
   */
  sizeSync?(oid: string): number;
  /** The repository's commit-graph, when the driver reads it and the repository has one. */
  commitGraph?(): CommitGraph | undefined;
}

/** An object the repository does not have: history cut by a shallow clone, or a partial clone. */
export class MissingObjectError extends CatalogError {
  /** The id that was asked for. */
  readonly oid: string;

  constructor(oid: string) {
    super("missing_object", `The repository has no object ${oid}.`, { data: { oid } });
    this.name = "MissingObjectError";
    this.oid = oid;
  }
}

const TYPES: Readonly<Record<string, GitObjectType>> = { commit: "commit", tree: "tree", blob: "blob", tag: "tag" };

/** The object type named `name`, or `undefined` for anything else. */
export function objectType(name: string): GitObjectType | undefined {
  return Object.hasOwn(TYPES, name) ? TYPES[name] : undefined;
}
