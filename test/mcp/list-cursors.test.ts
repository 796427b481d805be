import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListPromptsRequestSchema, ListResourcesRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry, type Run } from "agent-tool-catalog";
import { type McpCustomServerConfig, registerMcpGroup } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

// An MCP cursor is opaque and belongs to the server that issued it. Two servers built with the
// SDK's low-level Server page their resources and prompts two at a time with cursors of one
// format ("page:1"), so a cursor sent to the wrong server is read as one of its own.

function pagedServer(name: string, cursors: (string | undefined)[]): McpCustomServerConfig {
  const page = (cursor: string | undefined) => (cursor === undefined ? 0 : Number(cursor.split(":")[1]));
  return {
    name,
    transport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      const server = new Server({ name, version: "1" }, { capabilities: { resources: {}, prompts: {} } });
      server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
        cursors.push(request.params?.cursor);
        const at = page(request.params?.cursor);
        const resources = [0, 1].map((offset) => ({ uri: `${name}://r${at * 2 + offset}`, name: `${name} r${at * 2 + offset}` }));
        return { resources, ...(at < 2 ? { nextCursor: `page:${at + 1}` } : {}) };
      });
      server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
        cursors.push(request.params?.cursor);
        const at = page(request.params?.cursor);
        const prompts = [0, 1].map((offset) => ({ name: `${name}_p${at * 2 + offset}` }));
        return { prompts, ...(at < 2 ? { nextCursor: `page:${at + 1}` } : {}) };
      });
      void server.connect(serverSide);
      return client;
    },
  };
}

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

async function setUp(): Promise<{ run: Run; alphaCursors: (string | undefined)[]; betaCursors: (string | undefined)[] }> {
  registry = createRegistry();
  const alphaCursors: (string | undefined)[] = [];
  const betaCursors: (string | undefined)[] = [];
  await registerMcpGroup(registry, { servers: [pagedServer("alpha", alphaCursors), pagedServer("beta", betaCursors)] });
  const run = registry.createRun();
  run.activate(["list_mcp_resources", "list_mcp_prompts"]);
  return { run, alphaCursors, betaCursors };
}

function output(result: Awaited<ReturnType<Run["call"]>>): { servers: { server: string; next_cursor?: string }[] } {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return JSON.parse(String(result.output));
}

describe("list_mcp_resources and list_mcp_prompts: a cursor goes only to the server that gave it", () => {
  for (const tool of ["list_mcp_resources", "list_mcp_prompts"]) {
    it(`${tool}: refuses a cursor without its server, and no other server ever sees it`, async () => {
      const { run, betaCursors } = await setUp();
      const first = output(await run.call(tool, {}));
      const cursor = first.servers.find((entry) => entry.server === "alpha")?.next_cursor;
      expect(cursor).toBe("page:1");
      const refused = await run.call(tool, { cursor });
      expect(refused).toMatchObject({ ok: false, error: { code: "invalid_input" } });
      expect(!refused.ok && refused.error.hint).toContain('"server"');
      // Like every invalid_input, it names the field to fix (it had no issues).
      expect(!refused.ok && refused.error.issues?.map((issue) => issue.path)).toEqual(["server"]);
      expect(betaCursors).toEqual([undefined]);
    });

    it(`${tool}: positive control: with its server, the cursor gives that server's next page`, async () => {
      const { run, alphaCursors, betaCursors } = await setUp();
      const next = await run.call(tool, { server: "alpha", cursor: "page:1" });
      expect(JSON.stringify(output(next))).toContain(tool === "list_mcp_resources" ? "alpha://r2" : "alpha_p2");
      expect(alphaCursors).toEqual(["page:1"]);
      expect(betaCursors).toEqual([]);
    });
  }
});
