import type { FsClient } from "isomorphic-git";
import { loadIsomorphicGit } from "../isomorphic-git-module.js";
import { type GitObject, MissingObjectError, type ObjectStore, objectType } from "./git-object.js";

function errorCode(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * The portable driver: every read goes through isomorphic-git, so it works on any fs client a
 * host passes (an in-memory fs, a browser fs). isomorphic-git's own cache object keeps its pack
 * indexes between calls.
 */
export class IsomorphicObjectStore implements ObjectStore {
  constructor(
    private readonly fs: FsClient,
    private readonly gitdir: string,
    private readonly cache: object,
  ) {}

  async read(oid: string): Promise<GitObject> {
    const git = await loadIsomorphicGit();
    try {
      const result = await git.readObject({ fs: this.fs, gitdir: this.gitdir, oid, format: "content", cache: this.cache });
      const type = objectType(result.type);
      if (type === undefined || !(result.object instanceof Uint8Array)) throw new MissingObjectError(oid);
      const content = Buffer.from(result.object.buffer, result.object.byteOffset, result.object.byteLength);
      return { type, content };
    } catch (error) {
      if (errorCode(error) === "NotFoundError") throw new MissingObjectError(oid);
      throw error;
    }
  }

  async expand(prefix: string): Promise<readonly string[]> {
    const git = await loadIsomorphicGit();
    try {
      return [await git.expandOid({ fs: this.fs, gitdir: this.gitdir, oid: prefix, cache: this.cache })];
    } catch (error) {
      const code = errorCode(error);
      if (code === "NotFoundError") return [];
      if (code === "AmbiguousError") {
        const matches = (error as { data?: { matches?: unknown } }).data?.matches;
        return Array.isArray(matches) ? matches.filter((match): match is string => typeof match === "string") : [prefix, prefix];
      }
      throw error;
    }
  }

  packedObjectCount(): number {
    // isomorphic-git does not expose pack sizes; 0 gives git's minimum abbreviation (7).
    return 0;
  }

  close(): void {}
}
