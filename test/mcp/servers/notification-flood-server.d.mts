// Types for notification-flood-server.mjs.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** A server with the tools "flood" (kind, count) and "echo". */
export function buildNotificationFloodServer(): McpServer;

/** The `index`th notification of `kind` (without `jsonrpc`). */
export function notificationOf(
  kind: string,
  index: number,
  progressToken?: string | number,
): { method: string; params?: Record<string, unknown> };
