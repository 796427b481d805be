import { type AnyToolDefinition, defineTool, type ToolContext, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { byteCount } from "../sandbox/byte-count.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { commitFileChanges, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL } from "./edit-journal.js";
import { refuseEmptyVersion } from "./file-errors.js";
import type { FileScope } from "./file-scope.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { replaceAnchoredLines } from "./hashline-edit.js";
import { mutationPreflight } from "./mutation-preflight.js";
import { bytesOf, type FileContent, type PatchInput, planPatch } from "./patch/index.js";
import { PatchSession, patchToolError } from "./patch-session.js";
import { READ_TRACKER } from "./read-tracker.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { versionConflict } from "./version-conflict.js";

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
    throw versionConflict(
      path,
      current,
      expected,
      "Nothing was changed.",
      "Read the file again and redo the edit on its current content.",
    );
  }
}

/** Plans one file's new content on what `session` reads (`undefined`: nothing to change). */
type EditPlanner = (session: PatchSession) => Promise<FileContent | undefined>;

/** A planner running the patch engine. */
function patchPlanner(input: PatchInput): EditPlanner {
  return async (session) => {
    const plan = await planPatch(input, session);
    if (!plan.ok) throw patchToolError(plan.error);
    return plan.changes[0]?.type === "update" ? plan.changes[0].content : undefined;
  };
}

/**
 * Plans and commits an edit. The version check and the plan use one read; the commit verifies
 * under the file's lock that the file is still that read. Without `expected_version`, a file
 * changed meanwhile is planned again under the lock instead of refused.
 */
async function editFile(
  scope: FileScope,
  context: ToolContext,
  tool: string,
  path: string,
  expected: string | undefined,
  planner: EditPlanner,
): Promise<string> {
  const session = new PatchSession(scope);
  await checkVersion(session, path, expected);
  const content = await planner(session);
  if (content === undefined) return `${path} already has that content; nothing changed.`;
  const before = await session.bytesOf(path);
  let after: Buffer = bytesOf(content);
  const replan =
    expected === undefined
      ? async () => {
          const fresh = new PatchSession(scope);
          const again = await planner(fresh);
          const current = await fresh.bytesOf(path);
          after = again === undefined ? (current ?? Buffer.alloc(0)) : bytesOf(again);
          return [{ path, before: current, after }];
        }
      : undefined;
  await commitFileChanges(
    scope,
    tool,
    [{ path, before, after }],
    context.storage.get(EDIT_JOURNAL),
    replan === undefined ? { signal: context.signal } : { replan, signal: context.signal },
  );
  context.storage.get(READ_TRACKER).forget(await scope.resolve(path, "write"));
  return `Edited ${path} (${byteCount(after.length)}) · ${versionOf(after)}`;
}

/**
 * `edit`: replace exact text in one file (or anchored lines), refused on a stale version.
 *
 * @public
 */
export function createEditTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createEditTool");
  return defineTool({
    name: "edit",
    description:
      "Replace exact text in a file (old_text once, or replace_all); line endings kept; a stale expected_version is refused." +
      (options.hashline === true ? " Or replace lines by the anchors read returned (start_anchor/end_anchor)." : ""),
    inputSchema: editInputSchema(options.hashline === true) as unknown as z.ZodType<EditInput>,
    mutating: true,
    annotations: { title: "Edit file", destructiveHint: true },
    tags: ["builtin", "file", "edit", "replace", "modify"],
    preflight: mutationPreflight(options, (input: { path: string }) => [input.path]),
    handler: async (input, context) => {
      refuseEmptyVersion(input.expected_version);
      const scope = resolveFileScope(context, options);
      if (input.start_anchor !== undefined) {
        const start = input.start_anchor;
        return editFile(scope, context, "edit", input.path, input.expected_version, async (session) => {
          const current = await session.read(input.path);
          if (current === undefined) throw new ToolError("file_not_found", `No file at "${input.path}".`);
          return replaceAnchoredLines(current, start, input.end_anchor ?? start, input.new_text);
        });
      }
      return editFile(
        scope,
        context,
        "edit",
        input.path,
        input.expected_version,
        patchPlanner({
          kind: "edits",
          path: input.path,
          edits: [{ old_text: input.old_text as string, new_text: input.new_text, replace_all: input.replace_all }],
        }),
      );
    },
  });
}

/**
 * `replace`: the single-string edit of the core profile (find / replace / replace_all).
 *
 * @public
 */
export function createReplaceTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createReplaceTool");
  return defineTool({
    name: "replace",
    description:
      "Replace one exact string in a file (it must occur once unless replace_all). Refused on a stale expected_version.",
    inputSchema: replaceInput,
    mutating: true,
    annotations: { title: "Replace text", destructiveHint: true },
    tags: ["builtin", "file", "replace", "edit"],
    preflight: mutationPreflight(options, (input: { path: string }) => [input.path]),
    handler: async (input, context) => {
      refuseEmptyVersion(input.expected_version);
      const scope = resolveFileScope(context, options);
      return editFile(
        scope,
        context,
        "replace",
        input.path,
        input.expected_version,
        patchPlanner({
          kind: "replace",
          path: input.path,
          find: input.find,
          replace: input.replace,
          replace_all: input.replace_all,
        }),
      );
    },
  });
}
