import { type AnyToolDefinition, defineTool, type ToolContext } from "agent-tool-catalog";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { commitFileChanges, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL } from "./edit-journal.js";
import { refuseEmptyVersion, toldUnchanged } from "./file-errors.js";
import type { FileScope } from "./file-scope.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { mutationPreflight, patchPaths } from "./mutation-preflight.js";
import { detectPatchKind, type IgnoredMode, type PatchInput, planPatch } from "./patch/index.js";
import { PatchSession, patchToolError } from "./patch-session.js";
import { READ_TRACKER } from "./read-tracker.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { versionConflict } from "./version-conflict.js";
import { VersionsAhead } from "./versions-ahead.js";

const editSchema = z.object({
  old_text: z.string().describe("Exact text, once unless replace_all"),
  new_text: z.string(),
  replace_all: z.boolean().optional(),
});

const applyPatchInput = z
  .object({
    patch: z.string().min(1).optional().describe("Unified diff or Codex patch (*** Begin Patch), multi-file"),
    path: z.string().min(1).optional().describe("File for edits or find/replace"),
    edits: z.array(editSchema).min(1).max(200).optional().describe("Replacements applied in order"),
    find: z.string().optional(),
    replace: z.string().optional(),
    replace_all: z.boolean().optional(),
    expected_version: z.string().optional().describe("Version from your last read of path"),
  })
  .superRefine((input, issues) => {
    const modes = [input.patch !== undefined, input.edits !== undefined, input.find !== undefined].filter(Boolean).length;
    if (modes !== 1)
      issues.addIssue({ code: "custom", path: ["patch"], message: "give exactly one of patch, edits, or find/replace" });
    if ((input.edits !== undefined || input.find !== undefined) && input.path === undefined) {
      issues.addIssue({ code: "custom", path: ["path"], message: "path is required with edits or find/replace" });
    }
    if (input.find !== undefined && input.replace === undefined) {
      issues.addIssue({ code: "custom", path: ["replace"], message: "replace is required with find" });
    }
    // The version is checked against path; without one it would be ignored while the model
    // believes its change is guarded.
    if (input.expected_version !== undefined && input.path === undefined) {
      issues.addIssue({
        code: "custom",
        path: ["expected_version"],
        message: "expected_version is the version of path: give path too, or leave expected_version out",
      });
    }
  });

type ApplyPatchInput = z.output<typeof applyPatchInput>;

function toPatchInput(input: ApplyPatchInput): PatchInput {
  if (input.patch !== undefined) return { kind: detectPatchKind(input.patch), patch: input.patch };
  const path = input.path as string;
  if (input.edits !== undefined) return { kind: "edits", path, edits: input.edits };
  return { kind: "replace", path, find: input.find as string, replace: input.replace as string, replace_all: input.replace_all };
}

/**
 * `apply_patch`: a unified diff or Codex patch over several files, an edits array, or one
 * find/replace. All or nothing: a patch that does not apply, or a write that fails, leaves every
 * file as it was. Line endings are kept per file; matching tolerates whitespace and Unicode
 * punctuation drift. One undo step undoes the whole patch.
 *
 * Git-format mode lines: a symbolic link (`new file mode 120000`, `old`/`new mode 120000`,
 * `deleted file mode 120000`), a submodule (`160000`) or a binary patch (`GIT binary patch`,
 * `Binary files … differ`) is refused (`unsupported_patch`) and nothing is written, where
 * `git apply` would make the link. An executable bit asked for or taken away
 * (`new file mode 100755`, `old mode 100644` with `new mode 100755`, and back) is not applied:
 * contents are written, the file keeps its mode (a new file gets the default), and the result
 * has a `mode not applied:` line per such file.
 * @public
 */
export function createApplyPatchTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createApplyPatchTool");
  return defineTool({
    name: "apply_patch",
    description:
      "Apply a patch (unified diff or Codex *** Begin Patch format, multi-file), or edits / find+replace on one path. " +
      "All or nothing: on any error no file changes.",
    inputSchema: applyPatchInput,
    mutating: true,
    annotations: { title: "Apply patch", destructiveHint: true },
    tags: ["builtin", "file", "patch", "diff", "edit", "multi-file"],
    // Its refusals come before anything is written, told as changing no file like the handler's.
    preflight: toldUnchangedOnFailure(
      mutationPreflight(
        options,
        (input: { patch?: string | undefined; path?: string | undefined }) =>
          input.patch !== undefined ? patchPaths(input.patch) : input.path !== undefined ? [input.path] : [],
        // The handler's batched reads of a patch's paths make the preflight's checks first (see `PatchSession.prefetch`).
        (input) => input.patch !== undefined,
      ),
    ),
    handler: async (input, context) => {
      refuseEmptyVersion(input.expected_version);
      const scope = resolveFileScope(context, options);
      const session = new PatchSession(scope);
      try {
        return await applyInSession(input, context, scope, session);
      } finally {
        // The directories the reads kept open for the commit.
        await session.close();
      }
    },
  });
}

/** `preflight` whose failures are told as changing no file (see `toldUnchanged`). */
function toldUnchangedOnFailure<Input>(
  preflight: (input: Input, context: ToolContext) => Promise<void>,
): (input: Input, context: ToolContext) => Promise<void> {
  return (input, context) =>
    preflight(input, context).catch((error: unknown) => {
      throw toldUnchanged(error);
    });
}

/** The handler's work once its session exists (the session's kept directories are closed by the caller). */
async function applyInSession(
  input: ApplyPatchInput,
  context: ToolContext,
  scope: FileScope,
  session: PatchSession,
): Promise<string> {
  // Every failure of the plan (a target refused: a FIFO, a directory, no descriptor left) comes
  // before the commit point: told as changing no file, as the patch engine's own errors are.
  const {
    plan,
    planned: first,
    modes,
  } = await planInSession(input, session).catch((error: unknown) => {
    throw toldUnchanged(error);
  });
  if (plan.changes.length === 0) {
    return ["The patch changes nothing: every file already has that content.", ...modes].join("\n");
  }
  let planned = first;
  // The result names every new content's version: hashed while the commit below waits for its
  // locks and flushes, not after it (see `VersionsAhead`).
  const versionsAhead = new VersionsAhead();
  void versionsAhead.start(planned.map((change) => change.after));
  // Without expected_version, files changed meanwhile are planned again under the locks (before
  // anything is written: a failure there changed no file either).
  const replan =
    input.expected_version === undefined
      ? async () => {
          try {
            const fresh = new PatchSession(scope);
            const again = await planPatch(toPatchInput(input), fresh);
            if (!again.ok) throw patchToolError(again.error);
            planned = await fresh.plannedChanges(again.changes);
            return planned;
          } catch (error) {
            throw toldUnchanged(error);
          }
        }
      : undefined;
  let entry: Awaited<ReturnType<typeof commitFileChanges>>;
  try {
    entry = await commitFileChanges(
      scope,
      "apply_patch",
      planned,
      context.storage.get(EDIT_JOURNAL),
      replan === undefined
        ? { held: session.heldParents, signal: context.signal }
        : { replan, held: session.heldParents, signal: context.signal },
    );
  } finally {
    // Whatever is left is hashed below, when asked (a failed change asks for nothing).
    versionsAhead.stop();
  }
  const reads = context.storage.get(READ_TRACKER);
  // The journal entry names every changed file resolved already: no second resolution.
  const forgotten =
    entry?.files.map((file) => file.path) ?? (await Promise.all(planned.map((change) => scope.resolve(change.path, "write"))));
  for (const resolved of forgotten) reads.forget(resolved);
  const lines = plan.summary.files.map((file) => {
    const mark = file.type === "add" ? "A" : file.type === "delete" ? "D" : file.moveTo === undefined ? "M" : "R";
    const target = file.moveTo === undefined ? file.path : `${file.path} -> ${file.moveTo}`;
    return `${mark} ${target} (+${file.added} -${file.removed})`;
  });
  const versions = planned
    .filter((change) => change.after !== undefined)
    .map((change) => `${change.path} ${versionsAhead.of(change.after)}`);
  return [
    `Applied to ${countOf(plan.summary.files.length, "file")}, +${plan.summary.added} -${plan.summary.removed}:`,
    ...lines,
    `versions: ${versions.join(", ") || "none"}`,
    ...modes,
  ].join("\n");
}

/** The patch planned in `session`: what it changes, the changes as planned files, and its mode lines. */
async function planInSession(input: ApplyPatchInput, session: PatchSession) {
  if (input.expected_version !== undefined && input.path !== undefined) {
    const current = versionOf(await session.bytesOf(input.path));
    if (current !== input.expected_version) {
      throw versionConflict(
        input.path,
        current,
        input.expected_version,
        "Nothing was changed.",
        "Read the file again and redo the change.",
      );
    }
  }
  // The paths of the patch's own parse (kept from the preflight's): what the plan will read, exactly.
  if (input.patch !== undefined) await session.prefetch(patchPaths(input.patch));
  const plan = await planPatch(toPatchInput(input), session);
  if (!plan.ok) throw patchToolError(plan.error);
  const modes = ignoredModeLines(plan.ignoredModes);
  const planned = plan.changes.length === 0 ? [] : await session.plannedChanges(plan.changes);
  return { plan, planned, modes };
}

/**
 * One result line per mode change the patch asked for and `apply_patch` did not make: the model
 * must not take the executable bit for set (or cleared) because the call succeeded.
 */
function ignoredModeLines(modes: readonly IgnoredMode[]): string[] {
  return modes.map(
    ({ path, mode }) =>
      `mode not applied: ${path} ${mode} (${mode === "100755" ? "not made executable" : "executable bit not cleared"}; apply_patch sets contents only, use chmod)`,
  );
}
