// The notification-flood server over HTTP in a process of its own, so that a test measuring the
// host's CPU does not count the server's. Legacy SSE at /sse is the SDK's McpServer
// (notification-flood-server.mjs) on the SDK's SSEServerTransport. Streamable HTTP at /mcp is
// answered here with node:http alone, with the same tools and notifications: the SDK's
// StreamableHTTPServerTransport goes through web streams (@hono/node-server) and took 220 s at
// load 20 to send 100,000 events (over 120 s under tsx at load 35), where this takes seconds.
// Plain JavaScript so that no TypeScript loader runs. Prints the two URLs, one a line; exits
// when stdin closes.
import { createServer } from "node:http";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { buildNotificationFloodServer, notificationOf } from "./notification-flood-server.mjs";

const sse = new Map();
const TOOLS = [
  {
    name: "flood",
    description: "Sends notifications, then answers.",
    inputSchema: {
      type: "object",
      properties: { kind: { type: "string" }, count: { type: "integer" } },
      required: ["kind", "count"],
    },
  },
  {
    name: "echo",
    description: "Echoes.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const event = (message) => `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", ...message })}\n\n`;

/** Writes `count` notifications of `kind` as events, one write each (waiting for drain), then the answer. */
function flood(response, id, { kind, count }) {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let index = 0;
  const pump = () => {
    while (index < count && !response.destroyed) {
      if (!response.write(event(notificationOf(kind, index++)))) return void response.once("drain", pump);
    }
    response.end(event({ id, result: { content: [{ type: "text", text: `flooded ${count}` }] } }));
  };
  pump();
}

function streamableHttp(request, response, message) {
  if (request.method === "DELETE") return void response.writeHead(200).end();
  // No standalone notification stream: the client takes 405 as "none".
  if (request.method !== "POST") return void response.writeHead(405).end();
  if (message.id === undefined) return void response.writeHead(202).end();
  const json = (result) =>
    response
      .writeHead(200, { "content-type": "application/json", "mcp-session-id": "flood-session" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
  if (message.method === "initialize") {
    return json({
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: "notification-flood", version: "1.0.0" },
    });
  }
  if (message.method === "tools/list") return json({ tools: TOOLS });
  if (message.method !== "tools/call") return json({});
  const { name, arguments: args } = message.params;
  if (name === "flood") return flood(response, message.id, args);
  return json({ content: [{ type: "text", text: String(args?.text) }] });
}

async function route(request, response) {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/sse" && request.method === "GET") {
    const transport = new SSEServerTransport("/messages", response);
    sse.set(transport.sessionId, transport);
    await buildNotificationFloodServer().connect(transport);
    return;
  }
  if (url.pathname === "/messages" && request.method === "POST") {
    const transport = sse.get(url.searchParams.get("sessionId") ?? "");
    if (transport === undefined) return void response.writeHead(404).end("unknown session");
    return transport.handlePostMessage(request, response, await readJson(request));
  }
  if (url.pathname !== "/mcp") return void response.writeHead(404).end();
  streamableHttp(request, response, request.method === "POST" ? await readJson(request) : {});
}

const http = createServer((request, response) => {
  route(request, response).catch((error) => {
    if (!response.headersSent) response.writeHead(500).end(String(error));
  });
});
// An idle keep-alive connection stays open until the test ends it (stdin's end below): node's 5 s
// idle close raced a client's reuse of the connection at load ~45 ("other side closed" on a POST).
http.keepAliveTimeout = 0;
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address();
  process.stdout.write(`http://127.0.0.1:${port}/mcp\nhttp://127.0.0.1:${port}/sse\n`);
});
process.stdin.resume();
process.stdin.on("end", () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
