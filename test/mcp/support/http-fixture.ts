import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { closeServer } from "../../support/close-server.js";
import { corruptingTransport } from "./fixture-server.js";

/** A running HTTP fixture: streamable HTTP at `url`, legacy SSE at `sseUrl`. */
export interface HttpFixture {
  /** The streamable HTTP endpoint. */
  readonly url: string;
  /** The legacy SSE endpoint. */
  readonly sseUrl: string;
  /** The live MCP servers, one per session. */
  readonly servers: McpServer[];
  /** Headers of the last request, to check what the client sent. */
  lastHeaders: IncomingMessage["headers"];
  /** Drops every session (as a restarted server would) without stopping the listener. */
  dropSessions(): Promise<void>;
  /** Stops everything. */
  close(): Promise<void>;
}

/**
 * Serves MCP on 127.0.0.1 (a random port) with the SDK's own server transports: one
 * `StreamableHTTPServerTransport` per session at `/mcp`, `SSEServerTransport` at `/sse`.
 * Every session gets a fresh server from `build`.
 */
export async function startHttpFixture(build: () => McpServer, options: { hostile?: boolean } = {}): Promise<HttpFixture> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const servers: McpServer[] = [];
  const connect = async (transport: StreamableHTTPServerTransport | SSEServerTransport) => {
    const server = build();
    servers.push(server);
    await server.connect(corruptingTransport(transport, options.hostile === true));
  };
  const fixture: HttpFixture = {
    url: "",
    sseUrl: "",
    servers,
    lastHeaders: {},
    dropSessions: async () => {
      const transports = [...streamable.values(), ...sse.values()];
      streamable.clear();
      sse.clear();
      await Promise.all(transports.map((transport) => transport.close()));
      servers.length = 0;
    },
    close: async () => {
      await fixture.dropSessions();
      await closeServer(http);
    },
  };
  const http: Server = createServer((request, response) => {
    fixture.lastHeaders = request.headers;
    route(request, response, { streamable, sse, connect }).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return Object.assign(fixture, { url: `http://127.0.0.1:${port}/mcp`, sseUrl: `http://127.0.0.1:${port}/sse` });
}

interface Routes {
  readonly streamable: Map<string, StreamableHTTPServerTransport>;
  readonly sse: Map<string, SSEServerTransport>;
  readonly connect: (transport: StreamableHTTPServerTransport | SSEServerTransport) => Promise<void>;
}

async function route(request: IncomingMessage, response: ServerResponse, routes: Routes): Promise<void> {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/sse" && request.method === "GET") {
    const transport = new SSEServerTransport("/messages", response);
    routes.sse.set(transport.sessionId, transport);
    await routes.connect(transport);
    return;
  }
  if (url.pathname === "/messages" && request.method === "POST") {
    const transport = routes.sse.get(url.searchParams.get("sessionId") ?? "");
    if (transport === undefined) return void response.writeHead(404).end("unknown session");
    return transport.handlePostMessage(request, response, await readJson(request));
  }
  if (url.pathname !== "/mcp") return void response.writeHead(404).end();
  const sessionId = request.headers["mcp-session-id"];
  const existing = typeof sessionId === "string" ? routes.streamable.get(sessionId) : undefined;
  const body = request.method === "POST" ? await readJson(request) : undefined;
  if (existing !== undefined) return existing.handleRequest(request, response, body);
  if (request.method !== "POST" || !isInitializeRequest(body)) return void response.writeHead(404).end("session not found");
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      routes.streamable.set(id, transport);
    },
  });
  await routes.connect(transport);
  await transport.handleRequest(request, response, body);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}
