import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { clip } from "./mcp-errors.js";
import type { McpRejectedTool } from "./mcp-events.js";
import { mcpToolName } from "./mcp-tool-name.js";

/** A tool with the registry name it gets. */
export interface PlannedMcpTool {
  /** The registry name. */
  readonly name: string;
  /** The tool as listed. */
  readonly tool: Tool;
}

/** The names of a server's tools, and the tools that cannot have one. */
export interface McpToolNamePlan {
  /** Tools whose name is unique, in the server's order. */
  readonly planned: readonly PlannedMcpTool[];
  /** Tools that share a name with another tool of the server. */
  readonly rejected: readonly McpRejectedTool[];
}

/**
 * Names a server's tools. When several tools get the same name (`Read-File` and `read.file`, or a
 * tool listed twice), none of them is registered: which one the name would call would depend on
 * the order of the listing, and the model could not tell. Each is reported instead.
 */
export function planMcpToolNames(server: string, tools: readonly Tool[]): McpToolNamePlan {
  const byName = new Map<string, Tool[]>();
  for (const tool of tools) {
    const name = mcpToolName(server, tool.name);
    const group = byName.get(name);
    if (group === undefined) byName.set(name, [tool]);
    else group.push(tool);
  }
  const planned: PlannedMcpTool[] = [];
  const rejected: McpRejectedTool[] = [];
  for (const [name, group] of byName) {
    const [first] = group;
    if (group.length === 1 && first !== undefined) {
      planned.push({ name, tool: first });
      continue;
    }
    const names = group.map((tool) => JSON.stringify(clip(tool.name, 80))).join(", ");
    for (const tool of group) {
      rejected.push({
        mcpName: clip(tool.name, 200),
        name,
        reason: "name_collision",
        message: `${group.length} tools of server "${clip(server, 80)}" get the name "${name}" (${names}); none of them is registered.`,
      });
    }
  }
  return { planned, rejected };
}
