import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { commitFileChanges, readIfPresent, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL, type EditJournal, type JournalEntry } from "./edit-journal.js";
import { withoutChangeClaims } from "./file-errors.js";
import type { FileScope } from "./file-scope.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { READ_TRACKER, type ReadTracker } from "./read-tracker.js";
import { removeMadeDirectories } from "./remove-made-directories.js";
import { resolveFileScope } from "./resolve-file-scope.js";

const undoInput = z.object({
  action: z.enum(["undo", "redo"]).optional().describe('"undo" (default) or "redo" (when enabled)'),
  steps: z.number().int().min(1).max(50).optional().describe("How many mutations to undo or redo (default 1)"),
});

/**
 * `undo`: reverts the run's last file mutations (write, edit, replace, apply_patch), newest first.
 * A file changed since by someone else is not overwritten: that undo is refused.
 * @public
 */
export function createUndoTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createUndoTool");
  return defineTool({
    name: "undo",
    description: `Undo the last file changes made by the file tools in this conversation${options.redo === true ? ', or redo them ("action":"redo")' : ""}. Refused for a file that changed since.`,
    inputSchema: undoInput,
    mutating: true,
    annotations: { title: "Undo file changes", destructiveHint: true },
    tags: ["builtin", "file", "undo", "revert", "journal"],
    handler: async (input, context) => {
      const action = input.action ?? "undo";
      if (action === "redo" && options.redo !== true) {
        throw new ToolError("redo_disabled", "Redo is not enabled for this agent.", { hint: "Make the change again instead." });
      }
      const scope = resolveFileScope(context, options);
      const journal = context.storage.get(EDIT_JOURNAL);
      const reads = context.storage.get(READ_TRACKER);
      // One at a time per journal: parallel undo calls take successive entries.
      return journal.exclusive(() => revertSteps(scope, journal, reads, action, input.steps ?? 1, context.signal));
    },
  });
}

/** Undoes (or redoes) up to `steps` entries, newest first; returns the report for the model. */
async function revertSteps(
  scope: FileScope,
  journal: EditJournal,
  reads: ReadTracker,
  action: "undo" | "redo",
  steps: number,
  signal: AbortSignal,
): Promise<string> {
  const report: string[] = [];
  for (let step = 0; step < steps; step++) {
    const entry = action === "undo" ? journal.lastDone() : journal.lastUndone();
    if (entry === undefined) {
      if (step === 0) throw new ToolError("nothing_to_undo", `There is nothing to ${action} in this conversation.`);
      break;
    }
    await revert(scope, entry, action, signal).catch((error: unknown) => {
      throw partialStepsError(error, report, step, action);
    });
    if (action === "undo") journal.markUndone(entry);
    else journal.markRedone(entry);
    for (const file of entry.files) reads.forget(file.path);
    report.push(
      `${action === "undo" ? "Undid" : "Redid"} ${entry.tool} #${entry.id}: ${entry.files.map((file) => file.displayPath).join(", ")}`,
    );
  }
  return report.join("\n");
}

/**
 * Steps already made stay made: a later step's failure says exactly which, never "nothing was
 * changed" (the failed step's claim, whatever its wording, is said of that step alone).
 */
function partialStepsError(error: unknown, report: readonly string[], step: number, action: "undo" | "redo"): unknown {
  if (step === 0 || !(error instanceof ToolError)) return error;
  const reason = withoutChangeClaims(error.message);
  const stepClaim = reason === error.message ? "" : " That step changed no file.";
  return new ToolError(
    error.code,
    `${report.join("\n")}\nThen stopped at step ${step + 1}: ${reason}${stepClaim} The ${countOf(step, "step")} listed above ${step === 1 ? "was" : "were"} ${action === "undo" ? "undone" : "redone"}; the rest were not.`,
    {
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      data: { completedSteps: step },
    },
  );
}

async function revert(scope: FileScope, entry: JournalEntry, action: "undo" | "redo", signal: AbortSignal): Promise<void> {
  const changes = [];
  for (const file of entry.files) {
    const expected = action === "undo" ? file.after : file.before;
    // The journal holds the real path the change was made at. A path that now resolves elsewhere
    // was swapped for a link (the file or a directory above it): its content may be the same
    // bytes, but undo would write or delete through the link, in a file the tools never changed.
    if (file.realPath !== undefined && (await scope.lockKey(file.path)) !== file.realPath) {
      throw new ToolError(
        "changed_since",
        `Cannot ${action} ${entry.tool} #${entry.id}: "${file.displayPath}" was replaced by a symbolic link (or a directory above it was) since. Nothing was changed.`,
        { hint: "Inspect the path with ls and fix it by hand with edit or write." },
      );
    }
    const current = await readIfPresent(scope, file.path);
    if (versionOf(current) !== versionOf(expected)) {
      throw new ToolError(
        "changed_since",
        `Cannot ${action} ${entry.tool} #${entry.id}: "${file.displayPath}" changed since (now ${versionOf(current)}). Nothing was changed.`,
        { hint: "Inspect the file and fix it by hand with edit or write." },
      );
    }
    changes.push({
      path: file.path,
      displayPath: file.displayPath,
      before: current,
      after: action === "undo" ? file.before : file.after,
    });
  }
  await commitFileChanges(scope, action, changes, undefined, { signal });
  if (action === "undo") await removeMadeDirectories(scope, entry.createdDirectories ?? []);
}
