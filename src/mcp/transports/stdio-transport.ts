import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpStdioServerConfig } from "../mcp-server-config.js";
import type { McpTransportDriver } from "./mcp-transport.js";

const STDERR_TAIL_BYTES = 4096;
// The SDK's default; a single message over this closes the connection.
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Spawns the server (no shell) with stderr piped: its last 4 KiB explain a crash in the error
 * the model gets, and nothing the server logs lands in the host's terminal.
 */
export function stdioTransportDriver(config: McpStdioServerConfig): McpTransportDriver {
  return {
    kind: "stdio",
    create: () => {
      const transport = new StdioClientTransport({
        command: config.command,
        args: [...(config.args ?? [])],
        ...(config.env === undefined ? {} : { env: { ...config.env } }),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderr: "pipe",
        maxBufferSize: MAX_MESSAGE_BYTES,
      });
      let tail = Buffer.alloc(0);
      // Reading stderr also keeps a chatty server from blocking on a full pipe.
      transport.stderr?.on("data", (chunk: Buffer | string) => {
        const next = Buffer.concat([tail, typeof chunk === "string" ? Buffer.from(chunk) : chunk]);
        tail = next.length > STDERR_TAIL_BYTES ? next.subarray(next.length - STDERR_TAIL_BYTES) : next;
      });
      return {
        transport,
        pid: () => transport.pid ?? undefined,
        diagnostics: () => tail.toString("utf8").trim(),
      };
    },
  };
}
