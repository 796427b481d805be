// The README's MCP example, run for real (a stdio server stands in for `npx some-mcp-server`).
import { createRegistry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { expect, it } from "vitest";
import { stdioFixture } from "./support/stdio-fixture.js";

it("runs the README example", async () => {
  // In the README: { name: "notes", command: "npx", args: ["-y", "notes-mcp-server"], trusted: true }
  const config = { ...stdioFixture("notes"), trusted: true };

  // --- README example ---
  const registry = createRegistry();
  const notes = await connectMcpServer(registry, config);
  const tools = notes.status.tools; // ["mcp_notes_echo", "mcp_notes_read_notes", ...], all deferred

  const run = registry.createRun({ permissions: { approval: "destructive" } });
  await run.call("find_tool", { query: "select:mcp_notes_read_notes" });
  const result = await run.call("mcp_notes_read_notes", {}); // readOnlyHint of a trusted server: no approval
  await registry.close(); // closes every connection and stops the server process
  // --- end ---

  expect(tools).toContain("mcp_notes_read_notes");
  expect(result).toMatchObject({ ok: true, output: "note: buy milk" });
  expect(notes.status.state).toBe("closed");
  expect(registry.has("mcp_notes_read_notes")).toBe(false);
});
