import { ToolError } from "agent-tool-catalog";
import { clip } from "./mcp-errors.js";
import type { McpOutputCheck } from "./mcp-tool-definition.js";

const HINT = "This is a fault of the server, not of your input. Use another tool or tell the user.";
const MAX_ISSUES = 5;

/**
 * Holds a successful result of a tool with an `outputSchema` to it, as the MCP SDK's client does
 * (`Client.callTool`): `structuredContent` must be present and match the schema. Anything else is
 * `mcp_malformed_result` (the server broke the protocol's MUST), never a success the model would
 * read as the tool's answer. A schema too slow or too costly to check (or not compilable) fails
 * the call the same way, naming why.
 *
 * @throws ToolError `mcp_malformed_result`
 */
export async function checkStructuredContent(
  structuredContent: unknown,
  check: McpOutputCheck,
  source: { readonly server: string; readonly tool: string },
): Promise<void> {
  const where = `"${clip(source.tool, 80)}" (MCP server "${clip(source.server, 80)}")`;
  const data = { server: source.server, tool: source.tool };
  if (structuredContent === undefined || structuredContent === null) {
    throw new ToolError("mcp_malformed_result", `${where} has an output schema but did not return structured content.`, {
      hint: HINT,
      data,
    });
  }
  let issues: readonly { readonly path: string; readonly message: string }[];
  try {
    issues = await check(structuredContent);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      "mcp_malformed_result",
      `The structured content of ${where} could not be checked against its output schema: ${clip(reason, 300)}`,
      { hint: HINT, data, cause: error },
    );
  }
  if (issues.length === 0) return;
  const listed = issues
    .slice(0, MAX_ISSUES)
    .map((issue) => `${issue.path === "" ? "(root)" : clip(issue.path, 100)}: ${clip(issue.message, 200)}`)
    .join("; ");
  throw new ToolError(
    "mcp_malformed_result",
    `The structured content of ${where} does not match the tool's output schema: ${listed}.`,
    { hint: HINT, data },
  );
}
