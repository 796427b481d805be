// Types for notification-flood-server.mjs, for the TypeScript script that serves it over HTTP.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** A server with the tools "flood" (kind, count) and "echo". */
export function buildNotificationFloodServer(): McpServer;
