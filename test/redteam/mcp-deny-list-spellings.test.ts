/**
 * Red team round 26: a host turns an MCP tool off by the name its server lists (`write-file`,
 * `Delete`) rather than the name the catalog gives it (`mcp_docs_write_file`). Deny lists are exact
 * registry names, as allow lists are, so such an entry turns nothing off: the run must say so,
 * naming the real tool, instead of the host believing the tool is off. The real name turns it off.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function docsRegistry(ran: string[]): Promise<Registry> {
  registry = createRegistry();
  await connectMcpServer(registry, {
    name: "docs",
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      const mcp = new Server({ name: "docs", version: "1.0.0" }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: ["write-file", "Delete"].map((name) => ({ name, description: `Tool ${name}.`, inputSchema: { type: "object" } })),
      }));
      mcp.setRequestHandler(CallToolRequestSchema, (request) => {
        ran.push(request.params.name);
        return { content: [{ type: "text", text: "ran" }] };
      });
      void mcp.connect(server);
      return client;
    },
  });
  return registry;
}

describe("MCP tools turned off under their server's spelling", () => {
  it("is reported with the catalog's name for the tool", async () => {
    const run = (await docsRegistry([])).createRun({ disabledTools: ["mcp_docs_write-file", "mcp_docs_Delete"] });
    const warned = run.diagnostics().filter((each) => each.kind === "unknown_load_mode_tool");
    expect(warned).toMatchObject([
      { name: "mcp_docs_write-file", suggestions: expect.arrayContaining(["mcp_docs_write_file"]) },
      { name: "mcp_docs_Delete", suggestions: expect.arrayContaining(["mcp_docs_delete"]) },
    ]);
  });

  it("control: the catalog's names turn the tools off; nothing reaches the server", async () => {
    const ran: string[] = [];
    const run = (await docsRegistry(ran)).createRun({ disabledTools: ["mcp_docs_write_file", "mcp_docs_delete"] });
    expect(run.diagnostics().filter((each) => each.kind === "unknown_load_mode_tool")).toEqual([]);
    for (const name of ["mcp_docs_write_file", "mcp_docs_delete"]) {
      expect(await run.call(name, {})).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
    }
    expect(ran).toEqual([]);
  });
});
