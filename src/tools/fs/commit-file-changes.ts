import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import type { EditJournal, JournalEntry, JournaledFile } from "./edit-journal.js";
import type { FileScope } from "./file-scope.js";
import { ABSENT_FILE_VERSION, fileVersion } from "./file-version.js";
import { fileLocks } from "./keyed-mutex.js";

/** One planned change: the content it was planned against and the content to leave. */
export interface PlannedFileChange {
  /** The path as the model gave it. */
  readonly path: string;
  /** The content the plan saw (`undefined`: the file did not exist). */
  readonly before: Buffer | undefined;
  /** The content to leave (`undefined`: delete the file). */
  readonly after: Buffer | undefined;
}

/** Reads a file's current content, or `undefined` when there is none. */
export async function readIfPresent(scope: FileScope, requested: string): Promise<Buffer | undefined> {
  const stats = await scope.stat(requested);
  if (stats === undefined) return undefined;
  return scope.read(requested);
}

/** The version token of content that may be absent. */
export function versionOf(content: Buffer | undefined): string {
  return content === undefined ? ABSENT_FILE_VERSION : fileVersion(content);
}

/**
 * Applies planned changes all or nothing. Under a lock per file (taken in path order, so two
 * commits cannot deadlock), each file is read again and must still be what the plan saw, else
 * nothing is written (`version_conflict`). Files are then written atomically one by one; if one
 * write fails, the files already written are restored, so a failed multi-file change leaves every
 * file as it was. The change is journaled for `undo`.
 */
export async function commitFileChanges(
  scope: FileScope,
  tool: string,
  changes: readonly PlannedFileChange[],
  journal: EditJournal | undefined,
): Promise<JournalEntry | undefined> {
  const resolved = await Promise.all(
    changes.map(async (change) => ({ change, absolute: await scope.resolve(change.path, "write") })),
  );
  const keys = [...new Set(resolved.map((entry) => entry.absolute))].sort();
  const locked = keys.reduceRight<() => Promise<JournalEntry | undefined>>(
    (inner, key) => () => fileLocks.run(key, inner),
    () => commitLocked(scope, tool, resolved, journal),
  );
  return locked();
}

async function commitLocked(
  scope: FileScope,
  tool: string,
  resolved: readonly { change: PlannedFileChange; absolute: string }[],
  journal: EditJournal | undefined,
): Promise<JournalEntry | undefined> {
  for (const { change } of resolved) {
    const current = await readIfPresent(scope, change.path);
    if (versionOf(current) !== versionOf(change.before)) {
      throw new ToolError(
        "version_conflict",
        `"${change.path}" changed since it was read (expected ${versionOf(change.before)}, now ${versionOf(current)}). Nothing was written.`,
        {
          hint: "Read the file again and redo the change on its current content.",
          data: { path: change.path, current: versionOf(current) },
        },
      );
    }
  }
  const written: { change: PlannedFileChange; absolute: string }[] = [];
  try {
    for (const entry of resolved) {
      await applyContent(scope, entry.change.path, entry.change.after);
      written.push(entry);
    }
  } catch (error) {
    for (const entry of written.reverse())
      await applyContent(scope, entry.change.path, entry.change.before).catch(() => undefined);
    if (error instanceof ToolError) {
      throw new ToolError(
        error.code,
        `${error.message} No file was changed: the ${written.length} file(s) already written were restored.`,
        {
          ...(error.hint === undefined ? {} : { hint: error.hint }),
        },
      );
    }
    throw error;
  }
  const files: JournaledFile[] = resolved.map(({ change, absolute }) => ({
    path: absolute,
    displayPath: change.path,
    before: change.before,
    after: change.after,
  }));
  return journal?.record(tool, files);
}

async function applyContent(scope: FileScope, requested: string, content: Buffer | undefined): Promise<void> {
  if (content === undefined) {
    if ((await scope.stat(requested)) !== undefined) await scope.remove(requested);
    return;
  }
  const parent = path.dirname(requested);
  if (parent !== "." && parent !== "" && (await scope.stat(parent)) === undefined) await scope.makeDirectory(parent);
  await scope.write(requested, content);
}
