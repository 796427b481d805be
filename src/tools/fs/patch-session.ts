import { ToolError } from "agent-tool-catalog";
import { type PlannedFileChange, readIfPresent } from "./commit-file-changes.js";
import type { FileScope, ParentEntry } from "./file-scope.js";
import { isGitStateRefusal } from "./git-state-guard.js";
import { readManyOf } from "./parent-batch.js";
import { type FileChange, type FileReader, type PatchError, type PiecedBytes, writableOf } from "./patch/index.js";
import type { ReadLook } from "./read-look.js";
import { looksBinary } from "./text-content.js";

/**
 * Reads files for the patch engine through the run's file scope, keeping the exact bytes it saw,
 * so the commit can check that nothing changed in between (and restore exactly on failure).
 */
export class PatchSession implements FileReader {
  private readonly seen = new Map<string, Buffer | undefined>();
  /** Lock keys the batched read found on the way (see `ReadOutcome.key`). */
  private readonly keys = new Map<string, string>();
  /** How each file looked when the batched read took the bytes in `seen` (see `ReadOutcome.look`). */
  private readonly looks = new Map<string, ReadLook>();
  /** The verified directories the batched read went through, kept open for the commit to reuse. */
  private readonly parents = new Map<string, ParentEntry>();

  constructor(private readonly scope: FileScope) {}

  /** The text of a file, or `undefined` when absent; binary files are refused. */
  async read(path: string): Promise<string | undefined> {
    return (await this.readBytes(path))?.toString("utf8");
  }

  /**
   * The bytes of a file, or `undefined` when absent; binary files are refused. The engine patches
   * these bytes as they are (see `FileContent`): no text of the whole file is made.
   */
  async readBytes(path: string): Promise<Buffer | undefined> {
    // The same bytes as a version check made before: the plan and the check see one read.
    const bytes = await this.bytesOf(path);
    if (bytes === undefined) return undefined;
    if (looksBinary(bytes)) throw new ToolError("binary_file", `"${path}" is a binary file; it cannot be patched as text.`);
    return bytes;
  }

  /**
   * Reads `paths` ahead, in parallel (the engine then reads them one by one from memory), through
   * directories opened with the checks of a change: a path whose change is git state is refused
   * here, the first in order, before any plan (as the preflight refuses it when it walks). Any
   * other path that fails here is left for the engine to read again and report.
   */
  async prefetch(paths: readonly string[]): Promise<void> {
    const unique = [...new Set(paths)].filter((path) => !this.seen.has(path));
    const read = await readManyOf(this.scope, unique, (path) => readIfPresent(this.scope, path), { keep: true, mutate: true });
    const unused: ParentEntry[] = [];
    let refused: unknown;
    for (const [index, path] of unique.entries()) {
      const outcome = read[index];
      const parent = outcome?.ok === true ? outcome.parent : undefined;
      if (outcome?.ok === true && !this.seen.has(path)) {
        this.seen.set(path, outcome.bytes);
        if (outcome.key !== undefined) this.keys.set(path, outcome.key);
        if (outcome.look !== undefined) this.looks.set(path, outcome.look);
        if (parent !== undefined) this.parents.set(path, parent);
      } else if (parent !== undefined) unused.push(parent);
      if (outcome?.ok === false && refused === undefined && isGitStateRefusal(outcome.error)) refused = outcome.error;
    }
    await Promise.all(unused.map((parent) => parent.close()));
    if (refused !== undefined) throw refused;
  }

  /**
   * The directories the reads went through, by path: the commit reuses those still provably what
   * a new walk would open (one walk of the tree instead of two). Open until {@link close}.
   */
  get heldParents(): ReadonlyMap<string, ParentEntry> {
    return this.parents;
  }

  /** Closes the directories kept for the commit. */
  async close(): Promise<void> {
    const parents = [...this.parents.values()];
    this.parents.clear();
    await Promise.all(parents.map((parent) => parent.close()));
  }

  /** The bytes read for `path` (reading it now when the engine did not). */
  async bytesOf(path: string): Promise<Buffer | undefined> {
    if (!this.seen.has(path)) this.seen.set(path, await readIfPresent(this.scope, path));
    return this.seen.get(path);
  }

  /** Turns the engine's plan into changes to commit: a move becomes a delete and a write. */
  async plannedChanges(changes: readonly FileChange[]): Promise<PlannedFileChange[]> {
    const planned: PlannedFileChange[] = [];
    const push = async (path: string, after: Buffer | PiecedBytes | undefined) => {
      const before = await this.bytesOf(path);
      const lockKey = this.keys.get(path);
      // The look of the read whose bytes are `before`: the commit's check may then prove the file
      // unchanged by an lstat instead of reading it again (see `unchangedSinceRead`).
      const beforeLook = this.looks.get(path);
      planned.push({
        path,
        before,
        after,
        ...(lockKey === undefined ? {} : { lockKey }),
        ...(beforeLook === undefined ? {} : { beforeLook }),
      });
    };
    for (const change of changes) {
      if (change.type === "delete") await push(change.path, undefined);
      else if (change.type === "add" || change.moveTo === undefined) await push(change.path, writableOf(change.content));
      else {
        await push(change.path, undefined);
        await push(change.moveTo, writableOf(change.content));
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
  // A message that ends in a listing of the patch's lines (context_not_found) gets the place on a
  // line of its own: appended, it read as part of the last listed line ("  two (file a.txt, hunk 1)").
  const separator = error.message.includes("\n") ? "\n" : " ";
  return new ToolError(
    error.code,
    `${error.message}${where === "" ? "" : `${separator}(${where})`}${closest} No file was changed.`,
    {
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      data: { ...error },
    },
  );
}
