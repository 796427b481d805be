import { type Dirent, readdirSync } from "node:fs";
import path from "node:path";
import { headHoldsGit } from "./git-head.js";

/**
 * The sub-directories of `directory` (listed as `entries`, names decoded as UTF-8) whose names
 * are not valid UTF-8, as full paths in bytes. Node decodes such a name with U+FFFD, a path that
 * names nothing: the scan could neither look inside nor give bwrap the path to protect (process
 * arguments are strings), so a repository there went unprotected.
 */
export function undecodableSubdirectories(directory: string, entries: readonly Dirent[]): Buffer[] {
  if (!entries.some((entry) => entry.name.includes("\uFFFD") && entry.isDirectory())) return [];
  let raw: Dirent<Buffer>[];
  try {
    raw = readdirSync(directory, { withFileTypes: true, encoding: "buffer" });
  } catch {
    return [];
  }
  const prefix = Buffer.from(`${directory}${path.sep}`);
  return raw
    .filter((entry) => entry.isDirectory() && !Buffer.from(entry.name.toString("utf8")).equals(entry.name))
    .map((entry) => Buffer.concat([prefix, entry.name]));
}

/**
 * The first git state found at or below `directory` (bytes), `levels` deep at most and within
 * `budget` directories: an entry `.git`, or a `HEAD` holding what git writes. `undefined` when
 * there is none.
 */
export function gitStateBelow(directory: Buffer, levels: number, budget: { directories: number }): Buffer | undefined {
  if (--budget.directories < 0) return undefined;
  let entries: Dirent<Buffer>[];
  try {
    entries = readdirSync(directory, { withFileTypes: true, encoding: "buffer" });
  } catch {
    return undefined;
  }
  const child = (name: Buffer) => Buffer.concat([directory, Buffer.from(path.sep), name]);
  for (const entry of entries) {
    const name = entry.name.toString("latin1");
    if (name === ".git" || (name === "HEAD" && (entry.isFile() || entry.isSymbolicLink()) && headHoldsGit(child(entry.name))))
      return child(entry.name);
  }
  if (levels <= 0) return undefined;
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.toString("latin1") === "node_modules") continue;
    const found = gitStateBelow(child(entry.name), levels - 1, budget);
    if (found !== undefined) return found;
  }
  return undefined;
}
