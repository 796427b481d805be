import type { Stats } from "node:fs";
import { lstat, stat } from "node:fs/promises";
import { ToolError } from "agent-tool-catalog";
import { specialFileKind } from "../../errors/special-file-kind.js";
import { realWorkspaceRoot } from "../sandbox/workspace-root.js";
import { toFileToolError } from "./file-errors.js";
import type { FileScope } from "./file-scope.js";

/** A listing's start, checked to be a directory: walk from `walkFrom`, then `close()`. */
export interface DirectoryStart {
  /** The path the walk starts from (under confinement, a name inside a held directory handle). */
  readonly walkFrom: string;
  /** Releases the handle the start is named through. */
  close(): Promise<void>;
}

const NOTHING_HELD = async () => undefined;

/**
 * Opens a listing's start (`ls`, `glob`) and refuses one that is not a directory, in one wording
 * for both: a missing path (or a link to nothing) is `file_not_found`, anything else
 * `not_a_directory`. A link is followed, as grep follows it. Without it `glob` answered "No files
 * match" for a misspelled directory or a file, which a model reads as an empty one, and `ls` of a
 * link to a directory said "is a file".
 *
 * Under confinement the answer is about what is inside the workspace only: the start's directory
 * is opened component by component without following a link (`openParent`, a final link
 * resolved inside), the entry is looked at through that handle with `lstat`, and the walk starts
 * from the same handle. A `stat` of the resolved path, used before, followed a directory swapped
 * for a link since the resolution, so `file_not_found` or `not_a_directory` answered whether a
 * host path was missing or a file.
 *
 * @param scope - the call's file scope
 * @param start - the start as the file scope resolved it
 * @param requested - the path as the model wrote it, for the message
 */
export async function openDirectoryStart(scope: FileScope, start: string, requested: string): Promise<DirectoryStart> {
  if (!scope.confined) {
    refuseUnlessDirectory(await stat(start).catch(() => undefined), requested);
    return { walkFrom: start, close: NOTHING_HELD };
  }
  let parent: Awaited<ReturnType<FileScope["openParent"]>>;
  try {
    parent = await scope.openParent(requested === "" ? "." : requested, { follow: true, mutate: false });
  } catch (error) {
    // An entry on the way that stopped being a directory, or a link, between its open and its
    // `lstat` (a workspace entry changing: nothing outside was looked at).
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") throw noDirectory(requested);
    if (!(error instanceof ToolError)) throw toFileToolError(error, requested);
    // The workspace itself (no entry to name in a parent): the walk opens and checks it.
    if (error.code === "is_a_directory") return { walkFrom: await realWorkspaceRoot(scope.root), close: NOTHING_HELD };
    // A part of the path missing or not a directory: inside the workspace, as the walk saw it.
    if (error.code === "file_not_found" || error.code === "not_a_directory") throw noDirectory(requested);
    throw error;
  }
  try {
    const entry = parent.at(parent.name);
    // Not followed: a final link was resolved by openParent, so one here was swapped in since;
    // where it leads is not looked at.
    const stats = await lstat(entry).catch(() => undefined);
    refuseUnlessDirectory(stats?.isSymbolicLink() === true ? undefined : stats, requested);
    return { walkFrom: entry, close: () => parent.close() };
  } catch (error) {
    await parent.close();
    throw error;
  }
}

function noDirectory(requested: string): ToolError {
  return new ToolError("file_not_found", `No directory at "${requested}".`);
}

function refuseUnlessDirectory(stats: Stats | undefined, requested: string): void {
  if (stats === undefined) throw noDirectory(requested);
  if (stats.isDirectory()) return;
  const special = specialFileKind(stats);
  throw new ToolError("not_a_directory", `"${requested}" is ${special === undefined ? "a file" : `a ${special}`}.`, {
    hint: special === undefined ? "Use read or file_inspect." : "List its directory with ls.",
  });
}
