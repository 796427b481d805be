import { ToolError } from "agent-tool-catalog";
import { type PlannedFileChange, readIfPresent } from "./commit-file-changes.js";
import type { FileScope } from "./file-scope.js";
import type { FileChange, FileReader, PatchError } from "./patch/index.js";
import { looksBinary } from "./text-content.js";

/**
 * Reads files for the patch engine through the run's file scope, keeping the exact bytes it saw,
 * so the commit can check that nothing changed in between (and restore exactly on failure).
 */
export class PatchSession implements FileReader {
  private readonly seen = new Map<string, Buffer | undefined>();

  constructor(private readonly scope: FileScope) {}

  /** The text of a file, or `undefined` when absent; binary files are refused. */
  async read(path: string): Promise<string | undefined> {
    // The same bytes as a version check made before: the plan and the check see one read.
    const bytes = await this.bytesOf(path);
    if (bytes === undefined) return undefined;
    if (looksBinary(bytes)) throw new ToolError("binary_file", `"${path}" is a binary file; it cannot be patched as text.`);
    return bytes.toString("utf8");
  }

  /** The bytes read for `path` (reading it now when the engine did not). */
  async bytesOf(path: string): Promise<Buffer | undefined> {
    if (!this.seen.has(path)) this.seen.set(path, await readIfPresent(this.scope, path));
    return this.seen.get(path);
  }

  /** Turns the engine's plan into changes to commit: a move becomes a delete and a write. */
  async plannedChanges(changes: readonly FileChange[]): Promise<PlannedFileChange[]> {
    const planned: PlannedFileChange[] = [];
    for (const change of changes) {
      const before = await this.bytesOf(change.path);
      if (change.type === "delete") planned.push({ path: change.path, before, after: undefined });
      else if (change.type === "add") planned.push({ path: change.path, before, after: Buffer.from(change.content) });
      else if (change.moveTo === undefined) planned.push({ path: change.path, before, after: Buffer.from(change.content) });
      else {
        planned.push({ path: change.path, before, after: undefined });
        planned.push({ path: change.moveTo, before: await this.bytesOf(change.moveTo), after: Buffer.from(change.content) });
      }
    }
    return planned;
  }
}

/** A patch engine error as a `ToolError` the model can act on (where, why, the closest line). */
export function patchToolError(error: PatchError): ToolError {
  const where = [
    error.path === undefined ? undefined : `file ${error.path}`,
    error.hunk === undefined ? undefined : `hunk ${error.hunk}`,
  ]
    .filter(Boolean)
    .join(", ");
  const closest =
    error.closest === undefined ? "" : ` Closest line ${error.closest.line}: ${JSON.stringify(error.closest.text)}.`;
  return new ToolError(error.code, `${error.message}${where === "" ? "" : ` (${where})`}${closest} No file was changed.`, {
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    data: { ...error },
  });
}
