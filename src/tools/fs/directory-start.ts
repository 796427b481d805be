import { stat } from "node:fs/promises";
import { ToolError } from "agent-tool-catalog";
import { specialFileKind } from "../../errors/special-file-kind.js";

/**
 * Refuses a listing's start (`ls`, `glob`) that is not a directory, in one wording for both: a
 * missing path (or a link to nothing) is `file_not_found`, anything else `not_a_directory`. A link
 * is followed, as grep follows it (the scope resolved the path, so under a confining sandbox it
 * does not lead out). Without it `glob` answered "No files match" for a misspelled directory or
 * a file, which a model reads as an empty one, and `ls` of a link to a directory said "is a file".
 *
 * @param absolute - the start as the file scope resolved it
 * @param requested - the path as the model wrote it, for the message
 */
export async function checkDirectoryStart(absolute: string, requested: string): Promise<void> {
  const stats = await stat(absolute).catch(() => undefined);
  if (stats === undefined) throw new ToolError("file_not_found", `No directory at "${requested}".`);
  if (stats.isDirectory()) return;
  const special = specialFileKind(stats);
  throw new ToolError("not_a_directory", `"${requested}" is ${special === undefined ? "a file" : `a ${special}`}.`, {
    hint: special === undefined ? "Use read or file_inspect." : "List its directory with ls.",
  });
}
