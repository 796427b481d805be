/**
 * Red team round 42: an MCP server's JSON-RPC error worded as the SDK words its own local errors
 * (`-32001 "Request timed out"`, `-32000 "Connection closed"`) became an identical `McpError`,
 * and the catalog told the model `mcp_timeout` ("did not answer within 60 s") or
 * `mcp_server_closed` ("the server is restarted") for an answer that came at once from a healthy
 * server, and marked it suspect (a health check before the next call). What happened is now
 * decided by what the client saw: the call's own deadline passing, the transport closing.
 */
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "r42-spoof-server.mjs");

describe("an MCP server's error text cannot choose the error code", () => {
  it("errors worded as the SDK's timeout and closed connection are the server's own errors; a real timeout is mcp_timeout", async () => {
    const registry = createRegistry();
    try {
      await connectMcpServer(registry, { name: "spoof", command: process.execPath, args: [SERVER], timeoutMs: 1_500 });
      const run = registry.createRun({ profile: "full" });
      run.activate(["mcp_spoof_fails", "mcp_spoof_hangs"]);
      const timedOut = await run.call("mcp_spoof_fails", { code: -32001, text: "Request timed out" });
      expect(timedOut).toMatchObject({ ok: false, error: { code: "mcp_server_error" } });
      const closed = await run.call("mcp_spoof_fails", { code: -32000, text: "Connection closed" });
      expect(closed).toMatchObject({ ok: false, error: { code: "mcp_server_error" } });
      // Positive control: the server really not answering within timeoutMs is still mcp_timeout.
      const hung = await run.call("mcp_spoof_hangs", {});
      expect(hung).toMatchObject({ ok: false, error: { code: "mcp_timeout" } });
    } finally {
      await registry.close();
    }
  }, 20_000);
});
