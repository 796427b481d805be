/**
 * The file tools' escape attempts' one attack: every mutating file tool aimed at a path that names
 * a host file one way or another, each answer reduced to "ok" or its error code.
 */
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";

/** A run of the built-in file tools, profile "full", in `workspace` under `sandbox`. */
export function fileToolsRun(workspace: string, sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

/** "ok", or the error's code. */
export const codeOf = (result: ToolCallResult): string => (result.ok ? "ok" : result.error.code);

/**
 * edit, replace, apply_patch (edits), then, with `patchText`, apply_patch's patch text (an update,
 * then a delete), then write: each aimed at `target` (whose text is "secret"), in that order.
 */
export async function attackWithFileTools(run: Run, target: string, { patchText = true } = {}): Promise<string[]> {
  return [
    codeOf(await run.call("edit", { path: target, old_text: "secret", new_text: "owned" })),
    codeOf(await run.call("replace", { path: target, find: "secret", replace: "owned" })),
    codeOf(await run.call("apply_patch", { path: target, edits: [{ old_text: "secret", new_text: "owned" }] })),
    ...(patchText
      ? [
          codeOf(
            await run.call("apply_patch", {
              patch: `*** Begin Patch\n*** Update File: ${target}\n@@\n-secret\n+owned\n*** End Patch`,
            }),
          ),
          codeOf(await run.call("apply_patch", { patch: `*** Begin Patch\n*** Delete File: ${target}\n*** End Patch` })),
        ]
      : []),
    codeOf(await run.call("write", { path: target, content: "owned\n" })),
  ];
}
