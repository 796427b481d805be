// A real MCP server (the SDK's McpServer) whose tool "flood" sends `count` notifications of one
// kind during the call, then answers "flooded <count>". Over stdio when run as a script; a test
// serves `buildNotificationFloodServer()` over HTTP with the SDK's own server transport.
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const KINDS = ["progress", "logging", "list_changed", "resource_updated", "unknown"];

/** The `index`th notification of `kind` (without `jsonrpc`). */
export function notificationOf(kind, index, progressToken) {
  switch (kind) {
    case "progress":
      return {
        method: "notifications/progress",
        params: { progressToken: progressToken ?? 1, progress: index, total: 0, message: `step ${index}` },
      };
    case "logging":
      return { method: "notifications/message", params: { level: "info", logger: "flood", data: `log line ${index}` } };
    case "list_changed":
      return { method: "notifications/tools/list_changed" };
    case "resource_updated":
      return { method: "notifications/resources/updated", params: { uri: `file:///r/${index}` } };
    default:
      return { method: "notifications/x_unknown", params: { index } };
  }
}

/** A server with the tools "flood" (kind, count) and "echo". */
export function buildNotificationFloodServer() {
  const server = new McpServer(
    { name: "notification-flood", version: "1.0.0" },
    { capabilities: { logging: {}, resources: { subscribe: true } } },
  );
  server.registerTool(
    "flood",
    {
      description: "Sends notifications, then answers.",
      inputSchema: { kind: z.enum(KINDS), count: z.number().int(), batch: z.number().int().optional() },
    },
    async ({ kind, count, batch }, extra) => {
      const token = extra._meta?.progressToken;
      const each = batch ?? 1000;
      for (let index = 0; index < count; index++) {
        // Not awaited one by one: the server writes as fast as its transport takes them.
        const sent = extra.sendNotification(notificationOf(kind, index, token));
        if (index % each === each - 1) await sent;
      }
      return { content: [{ type: "text", text: `flooded ${count}` }] };
    },
  );
  server.registerTool("echo", { description: "Echoes.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await buildNotificationFloodServer().connect(new StdioServerTransport());
}
