import type { FsClient } from "isomorphic-git";
import { type GitFileReader, MAX_METADATA_BYTES } from "./git-file-reader.js";

function errno(code: string, file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${file}`);
  error.code = code;
  return error;
}

interface StatsLike {
  readonly type: "file" | "dir";
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

function stats(kind: "file" | "directory"): StatsLike {
  return {
    type: kind === "file" ? "file" : "dir",
    isFile: () => kind === "file",
    isDirectory: () => kind === "directory",
    isSymbolicLink: () => false,
  };
}

/**
 * An isomorphic-git fs client (refs, branch and tag lists) whose reads go through a
 * {@link GitFileReader}, so they obey the same confinement as object reads. Writes fail with
 * `EROFS`: the git tools never change a repository.
 */
export function readerFsClient(reader: GitFileReader): FsClient {
  const readOnly = async (file?: unknown) => {
    throw errno("EROFS", String(file));
  };
  const promises = {
    async readFile(file: string, options?: unknown) {
      if (typeof file !== "string") throw errno("EINVAL", String(file));
      // Only refs are read through this client (objects go through the node store): bounded like every ref file.
      const content = reader.readFile(file, MAX_METADATA_BYTES);
      if (content === undefined) throw errno("ENOENT", file);
      const encoding = typeof options === "string" ? options : (options as { encoding?: string } | undefined)?.encoding;
      return encoding === undefined ? content : content.toString(encoding as BufferEncoding);
    },
    async stat(file: string) {
      const kind = reader.kind(file);
      if (kind === undefined) throw errno("ENOENT", file);
      return stats(kind);
    },
    async lstat(file: string) {
      const kind = reader.kind(file);
      if (kind === undefined) throw errno("ENOENT", file);
      return stats(kind);
    },
    async readdir(directory: string) {
      if (reader.kind(directory) !== "directory") throw errno("ENOTDIR", directory);
      return reader.list(directory);
    },
    async readlink(file: string): Promise<string> {
      throw errno("EINVAL", file);
    },
    writeFile: readOnly,
    mkdir: readOnly,
    rmdir: readOnly,
    rm: readOnly,
    unlink: readOnly,
    symlink: readOnly,
  };
  return { promises } as unknown as FsClient;
}
