import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { McpSseServerConfig } from "../mcp-server-config.js";
import { cappedFetch, MAX_HTTP_MESSAGE_BYTES } from "./capped-fetch.js";
import { malformedEventFetch } from "./malformed-event-fetch.js";
import type { McpTransportDriver } from "./mcp-transport.js";

/**
 * The legacy HTTP+SSE transport, for servers that predate streamable HTTP.
 *
 * @public
 */
export function sseTransportDriver(config: McpSseServerConfig): McpTransportDriver {
  return {
    kind: "sse",
    create: () => ({
      transport: new SSEClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
        // Drops notifications nobody acts on before the SDK parses them (see malformedEventFetch).
        fetch: malformedEventFetch(cappedFetch(MAX_HTTP_MESSAGE_BYTES), { standIns: false }),
        ...(config.auth === undefined ? {} : { authProvider: config.auth }),
      }),
      pid: () => undefined,
      diagnostics: () => "",
    }),
  };
}
