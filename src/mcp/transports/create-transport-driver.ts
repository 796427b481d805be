import type {
  McpCustomServerConfig,
  McpHttpServerConfig,
  McpServerConfig,
  McpSseServerConfig,
  McpStdioServerConfig,
} from "../mcp-server-config.js";
import type { ResolvedMcpServerConfig } from "../resolve-mcp-server-config.js";
import type { McpTransportDriver } from "./mcp-transport.js";
import { sseTransportDriver } from "./sse-transport.js";
import { stdioTransportDriver } from "./stdio-transport.js";
import { streamableHttpTransportDriver } from "./streamable-http-transport.js";

/** The driver a checked config selects. */
export function createTransportDriver(resolved: ResolvedMcpServerConfig): McpTransportDriver {
  const config: McpServerConfig = resolved.config;
  switch (resolved.kind) {
    case "stdio":
      return stdioTransportDriver(config as McpStdioServerConfig);
    case "sse":
      return sseTransportDriver(config as McpSseServerConfig);
    case "http":
      return streamableHttpTransportDriver(config as McpHttpServerConfig);
    case "custom": {
      const make = (config as McpCustomServerConfig).transport;
      return { kind: "custom", create: () => ({ transport: make(), pid: () => undefined, diagnostics: () => "" }) };
    }
  }
}
