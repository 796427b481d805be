import { ToolError } from "agent-tool-catalog";
import { nestingDepth } from "../tool/nesting-depth.js";
import { clip } from "./mcp-errors.js";

/**
 * The most levels a tool result's values may nest, counted from the members of the result (a
 * `structuredContent` object is level 1). The result is serialized (`JSON.stringify`), checked
 * against the output schema and copied to the schema check thread, all recursive: measured, 5,000
 * levels overflowed the host's stack, and the call failed as `tool_failed` ("Maximum call stack
 * size exceeded"), as if the catalog had broken. 100 is the depth the run keeps of any tool's
 * output (`MAX_OUTPUT_DEPTH`); real results nest a few levels.
 *
 * @public
 */
export const MAX_MCP_RESULT_DEPTH = 100;

/**
 * Refuses a tool result nested deeper than {@link MAX_MCP_RESULT_DEPTH} levels, before anything
 * recursive (serializing, the output schema check, a copy to another thread) touches it.
 *
 * @throws ToolError `mcp_malformed_result`
 */
export function checkResultDepth(result: object, source: { readonly server: string; readonly tool: string }): void {
  // The result object itself is a level for nestingDepth, not for the bound: its members are level 1.
  if (nestingDepth(result, MAX_MCP_RESULT_DEPTH + 1) <= MAX_MCP_RESULT_DEPTH + 1) return;
  throw new ToolError(
    "mcp_malformed_result",
    `The result of "${clip(source.tool, 80)}" (MCP server "${clip(source.server, 80)}") nests deeper than ${MAX_MCP_RESULT_DEPTH} levels, more than a tool result may.`,
    {
      hint: "This is a fault of the server, not of your input. Use another tool or tell the user.",
      data: { server: source.server, tool: source.tool, maxDepth: MAX_MCP_RESULT_DEPTH },
    },
  );
}
