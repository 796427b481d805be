import { type AnyToolDefinition, defineTool, type ToolContext, ToolError } from "agent-tool-catalog";
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

const editFields = {
  path: z.string().min(1),
  old_text: z.string().optional().describe("Exact text; must occur once unless replace_all"),
  new_text: z.string(),
  replace_all: z.boolean().optional(),
  expected_version: z.string().optional().describe("From your last read"),
};

const anchorFields = {
  start_anchor: z.string().optional().describe('First line to replace, "<line>#<hash>" from read'),
  end_anchor: z.string().optional().describe("Last line to replace (default: start_anchor)"),
};

type EditInput = {
  path: string;
  old_text?: string | undefined;
  new_text: string;
  replace_all?: boolean | undefined;
  expected_version?: string | undefined;
  start_anchor?: string | undefined;
  end_anchor?: string | undefined;
};

/** The edit schema; anchors are offered only when hashline edits are on (fewer tokens otherwise). */
function editInputSchema(hashline: boolean) {
  const requireOne = (input: EditInput, issues: z.RefinementCtx) => {
    if ((input.old_text === undefined) === (input.start_anchor === undefined)) {
      issues.addIssue({
        code: "custom",
        path: ["old_text"],
        message: hashline ? "give old_text or start_anchor, not both" : "old_text is required",
      });
    }
  };
  return hashline
    ? z.object({ ...editFields, ...anchorFields }).superRefine(requireOne)
    : z.object(editFields).superRefine(requireOne);
}

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
export function createEditTool(options: FileToolOptions = {}): AnyToolDefinition {
  return defineTool({
    name: "edit",
    description:
      "Replace exact text in a file (old_text once, or replace_all); line endings kept; a stale expected_version is refused." +
      (options.hashline === true ? " Or replace lines by the anchors read returned (start_anchor/end_anchor)." : ""),
    inputSchema: editInputSchema(options.hashline === true) as unknown as z.ZodType<EditInput>,
    mutating: true,
    annotations: { title: "Edit file", destructiveHint: true },
    tags: ["builtin", "file", "edit", "replace", "modify"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      const session = new PatchSession(scope);
      await checkVersion(session, input.path, input.expected_version);
      if (input.start_anchor !== undefined) {
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
export function createReplaceTool(options: FileToolOptions = {}): AnyToolDefinition {
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
