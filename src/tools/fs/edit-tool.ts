import { defineTool, type ToolContext, type ToolDefinition, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { commitFileChanges, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL } from "./edit-journal.js";
import type { FileScope } from "./file-scope.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { replaceAnchoredLines } from "./hashline-edit.js";
import { type PatchInput, planPatch } from "./patch/index.js";
import { PatchSession, patchToolError } from "./patch-session.js";
import { READ_TRACKER } from "./read-tracker.js";
import { resolveFileScope } from "./resolve-file-scope.js";

const editInput = z
  .object({
    path: z.string().min(1).describe("File to edit"),
    old_text: z.string().optional().describe("Exact text to replace; must occur exactly once unless replace_all"),
    new_text: z.string().describe("The replacement text"),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_text"),
    expected_version: z.string().optional().describe("Version token from your last read; a stale one is refused"),
    start_anchor: z.string().optional().describe('With hashline reads: first line to replace, as "<line>#<hash>"'),
    end_anchor: z.string().optional().describe("With hashline reads: last line to replace (default: start_anchor)"),
  })
  .superRefine((input, issues) => {
    if ((input.old_text === undefined) === (input.start_anchor === undefined)) {
      issues.addIssue({ code: "custom", path: ["old_text"], message: "give old_text, or start_anchor (hashline), but not both" });
    }
  });

const replaceInput = z.object({
  path: z.string().min(1).describe("File to change"),
  find: z.string().min(1).describe("Exact text to find"),
  replace: z.string().describe("Replacement"),
  replace_all: z.boolean().optional().describe("Replace every occurrence (default: it must occur once)"),
  expected_version: z.string().optional().describe("Version token from your last read"),
});

async function checkVersion(session: PatchSession, path: string, expected: string | undefined): Promise<void> {
  if (expected === undefined) return;
  const current = versionOf(await session.bytesOf(path));
  if (current !== expected) {
    throw new ToolError(
      "version_conflict",
      `"${path}" is at ${current}, not ${expected}: it changed since you read it. Nothing was changed.`,
      {
        hint: "Read the file again and redo the edit on its current content.",
        data: { current },
      },
    );
  }
}

/** Plans a text edit with the patch engine and commits it atomically, journaled for undo. */
async function editFile(
  scope: FileScope,
  context: ToolContext,
  tool: string,
  input: PatchInput & { path: string },
): Promise<string> {
  const session = new PatchSession(scope);
  const plan = await planPatch(input, session);
  if (!plan.ok) throw patchToolError(plan.error);
  return commitEdit(
    scope,
    context,
    tool,
    session,
    input.path,
    plan.changes[0]?.type === "update" ? plan.changes[0].content : undefined,
  );
}

async function commitEdit(
  scope: FileScope,
  context: ToolContext,
  tool: string,
  session: PatchSession,
  path: string,
  content: string | undefined,
): Promise<string> {
  if (content === undefined) return `${path} already has that content; nothing changed.`;
  const before = await session.bytesOf(path);
  const after = Buffer.from(content);
  await commitFileChanges(scope, tool, [{ path, before, after }], context.storage.get(EDIT_JOURNAL));
  context.storage.get(READ_TRACKER).forget(await scope.resolve(path, "write"));
  return `Edited ${path} (${after.length} bytes) · ${versionOf(after)}`;
}

/** `edit`: replace exact text in one file (or anchored lines), refused on a stale version. */
export function createEditTool(options: FileToolOptions = {}): ToolDefinition<z.output<typeof editInput>, string> {
  return defineTool({
    name: "edit",
    description:
      "Edit a file by replacing exact text: old_text must occur exactly once (or set replace_all). " +
      "Line endings are kept. Pass expected_version from your last read to refuse edits on a changed file." +
      (options.hashline === true ? " Or address lines by the anchors read returned (start_anchor/end_anchor)." : ""),
    inputSchema: editInput,
    mutating: true,
    annotations: { title: "Edit file", destructiveHint: true },
    tags: ["builtin", "file", "edit", "replace", "modify"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      const session = new PatchSession(scope);
      await checkVersion(session, input.path, input.expected_version);
      if (input.start_anchor !== undefined) {
        if (options.hashline !== true)
          throw new ToolError("hashline_disabled", "Line anchors are not enabled for this agent.", { hint: "Use old_text." });
        const current = await session.read(input.path);
        if (current === undefined) throw new ToolError("file_not_found", `No file at "${input.path}".`);
        const content = replaceAnchoredLines(current, input.start_anchor, input.end_anchor ?? input.start_anchor, input.new_text);
        return commitEdit(scope, context, "edit", session, input.path, content);
      }
      return editFile(scope, context, "edit", {
        kind: "edits",
        path: input.path,
        edits: [{ old_text: input.old_text as string, new_text: input.new_text, replace_all: input.replace_all }],
      });
    },
  });
}

/** `replace`: the single-string edit of the core profile (find / replace / replace_all). */
export function createReplaceTool(options: FileToolOptions = {}): ToolDefinition<z.output<typeof replaceInput>, string> {
  return defineTool({
    name: "replace",
    description:
      "Replace one exact string in a file (it must occur once unless replace_all). Refused on a stale expected_version.",
    inputSchema: replaceInput,
    mutating: true,
    annotations: { title: "Replace text", destructiveHint: true },
    tags: ["builtin", "file", "replace", "edit"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      await checkVersion(new PatchSession(scope), input.path, input.expected_version);
      return editFile(scope, context, "replace", {
        kind: "replace",
        path: input.path,
        find: input.find,
        replace: input.replace,
        replace_all: input.replace_all,
      });
    },
  });
}
