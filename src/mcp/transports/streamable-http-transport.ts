import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpHttpServerConfig } from "../mcp-server-config.js";
import { cappedFetch, MAX_HTTP_MESSAGE_BYTES } from "./capped-fetch.js";
import { malformedEventFetch } from "./malformed-event-fetch.js";
import type { McpTransportDriver } from "./mcp-transport.js";

/**
 * Streamable HTTP. A closing connection ends its session with `DELETE` so the server can free
 * it; a session the server forgot (a restart) is renewed and the request sent again.
 * @public
 */
export function streamableHttpTransportDriver(config: McpHttpServerConfig): McpTransportDriver {
  return {
    kind: "http",
    create: () => {
      const transport = new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
        // A malformed answer fails its call at once (the SDK would drop it and wait for the timeout).
        fetch: malformedEventFetch(cappedFetch(MAX_HTTP_MESSAGE_BYTES)),
        ...(config.auth === undefined ? {} : { authProvider: config.auth }),
        // One retry of the notification stream, then give up: a dead server is reported, not polled.
        reconnectionOptions: {
          maxRetries: 1,
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1,
        },
      });
      return {
        transport,
        pid: () => undefined,
        diagnostics: () => "",
        terminate: () => transport.terminateSession(),
        // The MCP spec: a 404 to a request with a session id means "start a new session".
        sessionExpired: (error) => error instanceof StreamableHTTPError && error.code === 404,
      };
    },
  };
}
