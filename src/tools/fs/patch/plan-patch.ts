import { countOf } from "../../../errors/count-of.js";
import { applyHunks } from "./apply-hunks.js";
import { applyTextEdits } from "./apply-text-edits.js";
import type { FileChange, PatchSummary } from "./file-change.js";
import { countLines, type FileContent, textOf } from "./file-content.js";
import type { FileOperation } from "./file-operation.js";
import type { FileReader } from "./file-reader.js";
import { parsePatch } from "./parse-patch.js";
import { fail, type Outcome, type PatchError, succeed } from "./patch-error.js";
import type { PatchInput } from "./patch-input.js";
import { normalizePatchPath } from "./patch-path.js";
import { PatchWorkspace } from "./patch-workspace.js";

/**
 * The outcome of {@link planPatch}: every file change the patch makes, or the one error that
 * stopped it, in which case nothing is to be written.
 */
export type PlanResult =
  | {
      readonly ok: true;
      /** Net changes in the order their paths first appear; files the patch leaves as they were are left out. */
      readonly changes: readonly FileChange[];
      /** Lines added and removed, per file and in all. */
      readonly summary: PatchSummary;
      /** Mode changes the patch asks for and the plan does not make (see {@link IgnoredMode}), in patch order. */
      readonly ignoredModes: readonly IgnoredMode[];
    }
  | { readonly ok: false; readonly error: PatchError };

/**
 * A git-format mode change the plan leaves out: `apply_patch` writes file contents only, so an
 * executable bit asked for (`new file mode 100755`, `old mode 100644` / `new mode 100755`) or
 * taken away is not set, and the tool's result says so. Symbolic links and submodules (modes
 * `120000`, `160000`) are refused instead (`unsupported_patch`).
 */
export interface IgnoredMode {
  /** The file's path (a move's destination). */
  readonly path: string;
  /** The mode asked for, as git spells it. */
  readonly mode: string;
  /** 1-based line of the section's `diff --git` header. */
  readonly line: number;
}

/**
 * Computes what a patch does without touching the disk: parses it, reads each file it names
 * once through `reader`, applies its steps in order in memory, and returns the resulting file
 * changes, or a structured error naming the file, hunk and patch line when any step fails.
 * All or nothing: on failure no change is returned, so the tool layer writes either every file
 * or none.
 */
export async function planPatch(input: PatchInput, reader: FileReader): Promise<PlanResult> {
  const operations = parseInput(input);
  if (!operations.ok) return operations;
  const workspace = new PatchWorkspace(reader);
  const ignoredModes: IgnoredMode[] = [];
  for (const operation of operations.value) {
    const done = await runOperation(workspace, operation);
    if (!done.ok) return done;
    if (operation.type === "mode") ignoredModes.push({ path: operation.path, mode: operation.mode, line: operation.patchLine });
  }
  return { ok: true, ...workspace.result(), ignoredModes };
}

function parseInput(input: PatchInput): Outcome<readonly FileOperation[]> {
  switch (input.kind) {
    case "codex":
    case "unified":
      return parsePatch(input.kind, input.patch);
    case "edits":
    case "replace": {
      const path = normalizePatchPath(input.path);
      if (!path.ok) return path;
      const edits =
        input.kind === "edits"
          ? input.edits
          : [{ old_text: input.find, new_text: input.replace, replace_all: input.replace_all }];
      if (edits.length === 0)
        return fail("patch_parse_error", "No edits were given.", { path: path.value, hint: "Give at least one edit." });
      return succeed([{ type: "edit", path: path.value, edits }]);
    }
  }
}

function missing(workspace: PatchWorkspace, path: string, line: number | undefined, hint: string): Outcome<never> {
  const deletedAt = workspace.deletedAt(path);
  const why = deletedAt === undefined ? "does not exist" : `was deleted earlier in this patch (line ${deletedAt})`;
  return fail("file_not_found", `${path} ${why}.`, { path, line, hint });
}

async function runOperation(workspace: PatchWorkspace, operation: FileOperation): Promise<Outcome<true>> {
  const current = await workspace.read(operation.path);
  switch (operation.type) {
    case "add": {
      if (current !== undefined) {
        return fail("file_exists", `${operation.path} already exists.`, {
          path: operation.path,
          line: operation.patchLine,
          hint: "Change an existing file with an update (Update File, or a diff against it), or delete it first.",
        });
      }
      workspace.write(operation.path, operation.content, { added: countLines(operation.content), removed: 0, hunks: 0 });
      return succeed(true);
    }
    case "delete":
      return runDelete(workspace, operation, current);
    case "mode":
      // As git: the mode of a file that is not there (at this step of the patch) cannot change.
      return current === undefined
        ? missing(workspace, operation.path, operation.patchLine, "Check the path; a mode line needs an existing file.")
        : succeed(true);
    case "update":
      return runUpdate(workspace, operation, current);
    case "edit": {
      if (current === undefined)
        return missing(workspace, operation.path, undefined, "Check the path; create new files with the write tool.");
      const applied = applyTextEdits(textOf(current), operation.edits, operation.path);
      if (!applied.ok) return applied;
      workspace.write(operation.path, applied.value.content, applied.value);
      return succeed(true);
    }
  }
}

async function runDelete(
  workspace: PatchWorkspace,
  operation: Extract<FileOperation, { type: "delete" }>,
  current: FileContent | undefined,
): Promise<Outcome<true>> {
  if (current === undefined) return missing(workspace, operation.path, operation.patchLine, "Check the path with ls or glob.");
  if (operation.hunks !== undefined && operation.hunks.length > 0) {
    const applied = applyHunks(current, operation.hunks, "unified", operation.path);
    if (!applied.ok) return applied;
    if (textOf(applied.value.content).trim() !== "") {
      return fail(
        "content_mismatch",
        `The deletion of ${operation.path} does not remove all of its ${countOf(countLines(current), "line")}.`,
        {
          path: operation.path,
          line: operation.patchLine,
          hint: "Diff the whole current file against /dev/null, or use '*** Delete File'.",
        },
      );
    }
  }
  workspace.write(operation.path, undefined, { added: 0, removed: 0, hunks: 0 }, operation.patchLine);
  return succeed(true);
}

async function runUpdate(
  workspace: PatchWorkspace,
  operation: Extract<FileOperation, { type: "update" }>,
  current: FileContent | undefined,
): Promise<Outcome<true>> {
  const { path, moveTo, patchLine } = operation;
  if (current === undefined)
    return missing(workspace, path, patchLine, "Create new files with '*** Add File' (or a diff from /dev/null).");
  const applied = applyHunks(current, operation.hunks, operation.style, path);
  if (!applied.ok) return applied;
  if (moveTo === undefined || moveTo === path) {
    workspace.write(path, applied.value.content, applied.value);
    return succeed(true);
  }
  if ((await workspace.read(moveTo)) !== undefined) {
    return fail("file_exists", `Cannot move ${path} to ${moveTo}: ${moveTo} already exists.`, {
      path: moveTo,
      line: patchLine,
      hint: "Move to a new path, or delete the destination earlier in the same patch.",
    });
  }
  workspace.move(path, moveTo, applied.value.content, applied.value, patchLine);
  return succeed(true);
}
