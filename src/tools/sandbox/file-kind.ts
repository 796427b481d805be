import type { BigIntStats, Stats } from "node:fs";
import { specialFileKind } from "../../errors/special-file-kind.js";
import { SandboxViolationError } from "./sandbox-violation-error.js";

/**
 * Refuses anything but a regular file with a single name.
 *
 * Devices, FIFOs and sockets can block, leak host state or talk to other processes. A file with
 * more than one hard link may share its inode with a file outside the workspace, and no path
 * check can tell which name was meant, so it is refused for reads as well as writes.
 * @throws SandboxViolationError `special_file_refused`, `not_a_regular_file` or `hard_link_refused`.
 */
export function assertPlainFile(stats: Stats | BigIntStats, requestedPath: string): void {
  const special = specialFileKind(stats);
  if (special !== undefined) {
    throw new SandboxViolationError(
      "special_file_refused",
      `Refused "${requestedPath}": it is a ${special}, not a regular file. Only regular files inside the workspace can be opened.`,
      { data: { path: requestedPath, kind: special } },
    );
  }
  if (stats.isDirectory()) {
    throw new SandboxViolationError("not_a_regular_file", `Refused "${requestedPath}": it is a directory, not a file.`, {
      data: { path: requestedPath, kind: "directory" },
      hint: "List the directory instead, or name a file inside it.",
    });
  }
  if (!stats.isFile()) {
    throw new SandboxViolationError("not_a_regular_file", `Refused "${requestedPath}": it is not a regular file.`, {
      data: { path: requestedPath },
    });
  }
  if (Number(stats.nlink) > 1) {
    throw new SandboxViolationError(
      "hard_link_refused",
      `Refused "${requestedPath}": it has ${stats.nlink} hard links, so it may be the same file as one outside the workspace.`,
      { data: { path: requestedPath, links: Number(stats.nlink) }, hint: "Ask the user to replace the hard link with a copy." },
    );
  }
}
