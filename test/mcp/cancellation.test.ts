import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpCustomServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./support/wait-for.js";

// MCP cancellation: a client that gives up on a request sends notifications/cancelled, which the
// SDK's server turns into an abort of the handler's signal. A server built with the SDK's
// low-level Server records what its handler's signal saw.

function waitingServer(log: string[]): McpCustomServerConfig & { timeoutMs: number } {
  return {
    name: "waiting",
    timeoutMs: 1_000,
    transport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      const server = new Server({ name: "waiting", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: "wait", inputSchema: { type: "object" } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, (_request, extra) => {
        log.push("started");
        return new Promise((resolve) => {
          const done = setTimeout(() => {
            log.push("finished");
            resolve({ content: [{ type: "text", text: "done" }] });
          }, 10_000);
          extra.signal.addEventListener("abort", () => {
            clearTimeout(done);
            log.push(`cancelled: ${String(extra.signal.reason)}`);
            resolve({ content: [] });
          });
        });
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

describe("MCP cancellation reaches the server", () => {
  it("aborting the call sends notifications/cancelled: the server's handler is aborted", async () => {
    registry = createRegistry();
    const log: string[] = [];
    await connectMcpServer(registry, waitingServer(log));
    const run = registry.createRun();
    run.activate(["mcp_waiting_wait"]);
    const controller = new AbortController();
    const pending = run.call("mcp_waiting_wait", {}, { signal: controller.signal });
    await waitFor(() => log.includes("started"), "the server to start the call");
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: "aborted" } });
    await waitFor(() => log.length > 1, "the server to hear of the cancellation");
    expect(log[1]).toMatch(/^cancelled/);
  });

  it("a call past timeoutMs is cancelled on the server too, and fails with mcp_timeout", async () => {
    registry = createRegistry();
    const log: string[] = [];
    await connectMcpServer(registry, waitingServer(log));
    const run = registry.createRun();
    run.activate(["mcp_waiting_wait"]);
    expect(await run.call("mcp_waiting_wait", {})).toMatchObject({ ok: false, error: { code: "mcp_timeout" } });
    await waitFor(() => log.length > 1, "the server to hear of the cancellation");
    expect(log[1]).toMatch(/^cancelled/);
  });
});
