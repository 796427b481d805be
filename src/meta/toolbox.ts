import { ToolError } from "../errors/tool-error.js";
import { childCallId } from "../tool/child-call-id.js";
import { defineTool } from "../tool/define-tool.js";
import {
  enumField,
  looseObjectField,
  type OutputOf,
  objectSchema,
  optional,
  required,
  stringField,
} from "../tool/object-schema.js";
import { formatToolResult } from "../tool/tool-call-result.js";
import type { ToolDefinition } from "../tool/tool-definition.js";
import { markMetaTool, TOOLBOX_TOOL_NAME } from "./meta-tools.js";
import { notListedForToolbox } from "./not-listed-for-toolbox.js";

const toolboxInput = objectSchema({
  action: required(enumField(["describe", "run"])),
  tool: required(stringField({ min: 1 }), "A name from Additional tools"),
  args: optional(looseObjectField(), "Arguments, for run"),
});

/**
 * Builds `toolbox`, the gateway of listing runs: the tools named in the system-prompt index are
 * not sent with schemas; the model describes and runs them through this one tool. A run through
 * toolbox gets the same validation, policy (approval, sandbox) and events as a direct call.
 */
export function createToolboxTool(): ToolDefinition<OutputOf<typeof toolboxInput>, unknown> {
  return markMetaTool(
    defineTool({
      name: TOOLBOX_TOOL_NAME,
      description:
        'Use a tool listed under "Additional tools": action "describe" returns its parameters, "run" calls it with args.',
      inputSchema: toolboxInput,
      tier: "core",
      tags: ["meta", "toolbox"],
      annotations: { title: "Toolbox" },
      handler: async ({ action, tool, args }, context) => {
        if (action === "describe") {
          const descriptor = context.catalog.describeListed(tool);
          if (descriptor === undefined) {
            const { message, hint } = notListedForToolbox(tool, context.catalog.isVisible(tool), []);
            throw new ToolError("unknown_tool", message, { hint });
          }
          return { name: descriptor.name, description: descriptor.description, input_schema: descriptor.inputSchema };
        }
        const result = await context.catalog.callListed(tool, args ?? {}, {
          callId: childCallId(context.callId, tool),
          signal: context.signal,
        });
        if (!result.ok) {
          const { code, message, hint, issues } = result.error;
          // The listed tool's issues name its fields; inside this call they sit under `args`.
          const relayed = issues?.map((issue) => ({
            path: issue.path === "" ? "args" : `args.${issue.path}`,
            message: issue.message,
          }));
          throw new ToolError(code, message, {
            ...(hint === undefined ? {} : { hint }),
            ...(relayed === undefined ? {} : { data: { issues: relayed } }),
          });
        }
        return typeof result.output === "string" ? result.output : formatToolResult(result);
      },
    }),
  );
}
