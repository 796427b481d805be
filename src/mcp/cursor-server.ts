import { ToolError } from "agent-tool-catalog";

/**
 * Refuses a `cursor` without the `server` it came from. An MCP cursor is opaque and belongs to the
 * one server that issued it (the spec: clients must not make assumptions about its format): sent
 * to every server, it reached servers that never issued it, which fail the listing or, worse,
 * read it as one of their own cursors and answer with a page of their own list.
 *
 * @throws ToolError `invalid_input` when `cursor` is given without `server`
 */
export function requireCursorServer(tool: string, server: string | undefined, cursor: string | undefined): void {
  if (cursor === undefined || server !== undefined) return;
  throw new ToolError("invalid_input", `${tool}: a cursor belongs to the server that gave it, so pass that server too.`, {
    data: { field: "server" },
    hint: 'Call it again with the server named beside next_cursor in the previous result: { "server": "<name>", "cursor": "<next_cursor>" }.',
  });
}
