/**
 * Red team round 26: a host turns an MCP tool off by the name its server lists (`write-file`,
 * `Delete`) rather than the name the catalog gives it (`mcp_docs_write_file`). Round 26 found that
 * such an entry turned nothing off (only a warning); since stop 48 a deny entry covers every name
 * it folds to (test/escape/tool-lists-server-spellings.test.ts), so it turns the tool off and is
 * not reported. An entry that folds to no tool is still reported, with the closest name.
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
  it("turns the tool off, unreported; an entry folding to no tool is still reported", async () => {
    const ran: string[] = [];
    const run = (await docsRegistry(ran)).createRun({
      disabledTools: ["mcp_docs_write-file", "mcp_docs_Delete", "mcp_docs_wirte-file"],
    });
    for (const name of ["mcp_docs_write_file", "mcp_docs_delete"]) {
      expect(await run.call(name, {})).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
    }
    expect(ran).toEqual([]);
    expect(run.diagnostics().filter((each) => each.kind === "unknown_load_mode_tool")).toMatchObject([
      { name: "mcp_docs_wirte-file", suggestions: expect.arrayContaining(["mcp_docs_write_file"]) },
    ]);
    // Control: not denied, the tool runs.
    const open = registry?.createRun() as ReturnType<Registry["createRun"]>;
    open.activate(["mcp_docs_write_file"]);
    expect(await open.call("mcp_docs_write_file", {})).toMatchObject({ ok: true });
    expect(ran).toEqual(["write-file"]);
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
