import type { FsClient } from "isomorphic-git";
import { specialFileKind } from "../errors/special-file-kind.js";
import { type GitFileReader, MAX_METADATA_BYTES, metadataTooLargeError, specialRepositoryFileError } from "./git-file-reader.js";

/** What the git tools read outside the object store: `HEAD`, `shallow`, `commondir`, `.git` files. */
export interface FileAccess {
  /**
   * A file's text, or `undefined` when it does not exist or cannot be read.
   * @throws ToolError `too_large` over `MAX_METADATA_BYTES` (a planted huge file is not read).
   * @throws ToolError `corrupt_object` when it is a FIFO, socket or device (not read: it would block or never end).
   */
  readText(path: string): Promise<string | undefined>;
  /** Whether something is at `path`, and what. */
  kind(path: string): Promise<"file" | "directory" | undefined>;
  /** The names in a directory; empty when it does not exist or cannot be read. */
  list(path: string): Promise<string[]>;
  /**
   * What tells one version of the file at `path` from another (device, inode, size, modification
   * and change times in nanoseconds), or `undefined` when it is absent or the reads cannot say
   * (then nothing derived from it is cached).
   */
  identity?(path: string): Promise<string | undefined>;
}

interface StatLike {
  isFile(): boolean;
  isDirectory(): boolean;
}

function isStatLike(value: unknown): value is StatLike {
  return typeof value === "object" && value !== null && "isFile" in value && "isDirectory" in value;
}

function callback<Result>(call: (done: (error: unknown, result: Result) => void) => void): Promise<Result> {
  return new Promise((resolve, reject) => call((error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * Wraps an isomorphic-git fs client (promise or callback style) in the reads the tools need,
 * so the host's fs is used for everything, not only for objects.
 */
export function fileAccess(fs: FsClient): FileAccess {
  const readFile = (path: string): Promise<unknown> =>
    "promises" in fs ? fs.promises.readFile(path, "utf8") : callback<unknown>((done) => fs.readFile(path, "utf8", done));
  const stat = (path: string): Promise<unknown> =>
    "promises" in fs ? fs.promises.stat(path) : callback<unknown>((done) => fs.stat(path, done));
  const readdir = (path: string): Promise<unknown> =>
    "promises" in fs ? fs.promises.readdir(path) : callback<unknown>((done) => fs.readdir(path, done));
  return {
    async readText(path) {
      const stats = await stat(path).catch(() => undefined);
      // A FIFO would block the read (and a thread of the pool) for good; a device would never end.
      if (typeof stats === "object" && stats !== null && specialFileKind(stats) !== undefined) {
        throw specialRepositoryFileError(path, stats);
      }
      const size = typeof stats === "object" && stats !== null && "size" in stats ? Number(stats.size) : 0;
      if (size > MAX_METADATA_BYTES) throw metadataTooLargeError(path, size);
      try {
        const text = await readFile(path);
        if (typeof text === "string") return text;
        return text instanceof Uint8Array ? Buffer.from(text).toString("utf8") : undefined;
      } catch {
        return undefined;
      }
    },
    async kind(path) {
      try {
        const stats = await stat(path);
        if (!isStatLike(stats)) return undefined;
        if (stats.isDirectory()) return "directory";
        return stats.isFile() ? "file" : undefined;
      } catch {
        return undefined;
      }
    },
    async list(path) {
      try {
        const names = await readdir(path);
        return Array.isArray(names) ? names.filter((name): name is string => typeof name === "string") : [];
      } catch {
        return [];
      }
    },
  };
}

/** The reads over a {@link GitFileReader}: confinement refusals propagate, missing files do not. */
export function readerFileAccess(reader: GitFileReader): FileAccess {
  return {
    async readText(path) {
      return reader.readFile(path, MAX_METADATA_BYTES)?.toString("utf8");
    },
    async kind(path) {
      return reader.kind(path);
    },
    async list(path) {
      return reader.list(path);
    },
    async identity(path) {
      return reader.identity(path);
    },
  };
}
