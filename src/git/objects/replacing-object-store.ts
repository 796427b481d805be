import type { CommitGraph } from "./commit-graph.js";
import { type GitObject, MissingObjectError, type ObjectStore } from "./git-object.js";
import { corruptObject } from "./object-limits.js";

/**
 * How many replacements git follows from one object (`MAXREPLACEDEPTH` in git's replace-object.c);
 * past it git dies with "replace depth too high", so a cycle of replace refs ends here too.
 */
export const MAX_REPLACE_DEPTH = 5;

/** What a repository says to read in place of its stored objects. */
export interface Replacements {
  /** `refs/replace/<id>`: the object read in place of `<id>` (git honours these by default). */
  readonly objects: ReadonlyMap<string, string>;
  /** `info/grafts`: commits whose parents are these instead of the stored ones (deprecated in git, still honoured). */
  readonly grafts: ReadonlyMap<string, readonly string[]>;
}

/** The id at `at` in `source` as text. */
function hexAt(source: Uint8Array, at: number): string {
  return Buffer.from(source.buffer, source.byteOffset + at, 20).toString("hex");
}

/** A commit's content with its `parent` lines replaced by `parents` (the graft). */
function grafted(content: Buffer, parents: readonly string[]): Buffer {
  const text = content.toString("latin1");
  const end = text.indexOf("\n\n");
  const headers = (end < 0 ? text : text.slice(0, end)).split("\n");
  const tree = headers.findIndex((line) => line.startsWith("tree "));
  if (tree < 0) return content;
  const kept = headers.filter((line) => !line.startsWith("parent "));
  kept.splice(tree + 1, 0, ...parents.map((parent) => `parent ${parent}`));
  return Buffer.from(kept.join("\n") + (end < 0 ? "" : text.slice(end)), "latin1");
}

/**
 * An object store that reads what git's `log`, `blame` and `diff` read when a repository has
 * replace refs or grafts: `refs/replace/<id>` names the object read in place of `<id>` (the id
 * stays the same), and a grafted commit has the parents `info/grafts` gives it. Git does not use
 * the commit-graph then (its parents would be the stored ones), so neither does this store.
 * Used only when a repository has either, so ordinary repositories pay nothing.
 */
export class ReplacingObjectStore implements ObjectStore {
  readonly readSync?: (oid: string) => GitObject;
  readonly readRawSync?: (source: Uint8Array, at: number) => GitObject;
  readonly sizeSync?: (oid: string) => number;

  constructor(
    private readonly inner: ObjectStore,
    private readonly replacements: Replacements,
  ) {
    const { readSync } = inner;
    if (readSync !== undefined) {
      const syncRead = (oid: string) => {
        const target = this.target(oid);
        try {
          return this.rewrite(oid, readSync.call(inner, target));
        } catch (error) {
          throw this.missingReplacement(error, oid, target);
        }
      };
      this.readSync = syncRead;
      const { sizeSync } = inner;
      if (sizeSync !== undefined) {
        // A grafted commit is rewritten (its size changes): it is read; any other object is sized where its replacement is.
        this.sizeSync = (oid) => {
          if (this.replacements.grafts.has(oid)) return syncRead(oid).content.length;
          const target = this.target(oid);
          try {
            return sizeSync.call(inner, target);
          } catch (error) {
            throw this.missingReplacement(error, oid, target);
          }
        };
      }
      const { readRawSync } = inner;
      if (readRawSync !== undefined) {
        const { objects, grafts } = replacements;
        this.readRawSync = (source, at) => {
          // Only ids that are replaced or grafted take the text path; every other read stays raw.
          const oid = hexAt(source, at);
          return objects.has(oid) || grafts.has(oid) ? syncRead(oid) : readRawSync.call(inner, source, at);
        };
      }
    }
  }

  /** The id whose object is read for `oid`, following replacements as git does (at most {@link MAX_REPLACE_DEPTH}). */
  private target(oid: string): string {
    let current = oid;
    for (let depth = 0; depth < MAX_REPLACE_DEPTH; depth++) {
      const next = this.replacements.objects.get(current);
      if (next === undefined) return current;
      current = next;
    }
    if (!this.replacements.objects.has(current)) return current;
    throw corruptObject(`replace refs for ${oid} nest deeper than ${MAX_REPLACE_DEPTH} (a cycle of refs/replace?).`);
  }

  /**
   * A replacement that is not in the repository is a damaged replace ref, as git says ("replacement
   * X not found for Y"), not an object to fetch or a repository that changed while it was read.
   */
  private missingReplacement(error: unknown, oid: string, target: string): unknown {
    if (target === oid || !(error instanceof MissingObjectError) || error.oid !== target) return error;
    return corruptObject(
      `refs/replace/${oid} points at ${target}, which is not in the repository (git: "replacement ${target} not found for ${oid}").`,
    );
  }

  private rewrite(oid: string, object: GitObject): GitObject {
    const parents = object.type === "commit" ? this.replacements.grafts.get(oid) : undefined;
    return parents === undefined ? object : { type: "commit", content: grafted(object.content, parents) };
  }

  async read(oid: string): Promise<GitObject> {
    const target = this.target(oid);
    try {
      return this.rewrite(oid, await this.inner.read(target));
    } catch (error) {
      throw this.missingReplacement(error, oid, target);
    }
  }

  expand(prefix: string): Promise<readonly string[]> {
    return this.inner.expand(prefix);
  }

  packedObjectCount(): number {
    return this.inner.packedObjectCount();
  }

  /** None: git reads no commit-graph while replace refs or grafts are in use. */
  commitGraph(): CommitGraph | undefined {
    return undefined;
  }

  close(): void {
    this.inner.close();
  }
}
