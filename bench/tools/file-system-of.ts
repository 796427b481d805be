import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** Where a bench's trees lived: the device, the file system type and, for ext4, whether it has a journal. */
export interface FileSystemOf {
  readonly source: string;
  readonly type: string;
  readonly journal?: boolean;
}

/**
 * The file system holding `directory`: its device, type and, for ext4, whether it has a journal
 * (`/proc/fs/jbd2/<device>-8` exists only then). It moves the ratio to `git apply`: on an ext4
 * without a journal every file create, `git apply`'s too, scans past the inodes freed in the last
 * 30 s (stop 56, docs/measurement-history.md). `undefined` where `findmnt` is not there.
 */
export function fileSystemOf(directory: string): FileSystemOf | undefined {
  const found = spawnSync("findmnt", ["-no", "SOURCE,FSTYPE", "-T", directory], { encoding: "utf8" });
  const [source, type] = (found.stdout ?? "").trim().split(/\s+/);
  if (found.status !== 0 || source === undefined || type === undefined) return undefined;
  if (type !== "ext4") return { source, type };
  return { source, type, journal: existsSync(`/proc/fs/jbd2/${path.basename(source)}-8`) };
}

/** `fileSystemOf` in words for a table: "ext4 without a journal (/dev/vda)". */
export function describeFileSystem(fileSystem: FileSystemOf | undefined): string {
  if (fileSystem === undefined) return "unknown";
  const journal = fileSystem.journal === undefined ? "" : fileSystem.journal ? ", journaled" : " without a journal";
  return `${fileSystem.type}${journal} (${fileSystem.source})`;
}
