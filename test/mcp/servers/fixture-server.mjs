// The tools of the MCP test fixture server, in plain JavaScript so that a stdio fixture server
// (stdio-fixture-server.mjs) starts as plain node, not under tsx (about 0.8 s of CPU less per
// start). Types: fixture-server.d.mts; test/mcp/support/fixture-server.ts re-exports it.
import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const MALFORMED = "__make_this_result_malformed__";
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * A real MCP server (the SDK's `McpServer`) with the tools the integration tests need: plain,
 * slow, huge, failing, crashing, structured, binary and malformed results, annotations, resources,
 * and tools that add or remove tools (which sends `notifications/tools/list_changed`).
 */
export function createFixtureServer(options = {}) {
  const server = new McpServer({ name: "fixture", version: "1.2.3" }, { capabilities: { tools: { listChanged: true } } });
  const echo = registerPlainTools(server, options.state ?? { started: 0, cancelled: 0, completed: 0 }, options.onSlowStarted);
  registerResultTools(server);
  registerDynamicTools(server, echo);
  server.registerResource("today", "notes://today", { mimeType: "text/plain", description: "Today's notes" }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "buy milk" }],
  }));
  server.registerResource("logo", "blob://logo", { mimeType: "image/png" }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: "image/png", blob: PIXEL }],
  }));
  if (options.hostile === true) registerHostileTools(server);
  return server;
}

const text = (value) => ({ content: [{ type: "text", text: value }] });

function registerPlainTools(server, state, onSlowStarted) {
  const echo = server.registerTool(
    "echo",
    { title: "Echo text", description: "Echo a text back.", inputSchema: { text: z.string() } },
    ({ text: value }) => text(value),
  );
  server.registerTool("pid", { description: "The server's process id." }, () => text(String(process.pid)));
  server.registerTool("read_notes", { description: "Read the notes.", annotations: { readOnlyHint: true } }, () =>
    text("note: buy milk"),
  );
  server.registerTool(
    "wipe_notes",
    { description: "Delete every note.", annotations: { readOnlyHint: true, destructiveHint: true } },
    () => text("wiped"),
  );
  server.registerTool(
    "slow",
    { description: "Wait, then answer.", inputSchema: { ms: z.number().int().min(0).max(60_000) } },
    async ({ ms }, extra) => {
      state.started++;
      onSlowStarted?.();
      try {
        await sleep(ms, undefined, { signal: extra.signal });
      } catch {
        state.cancelled++;
        return text("cancelled");
      }
      state.completed++;
      return text(`waited ${ms} ms`);
    },
  );
  return echo;
}

function registerResultTools(server) {
  server.registerTool(
    "huge",
    { description: "A very long output.", inputSchema: { bytes: z.number().int().min(0).max(20_000_000) } },
    ({ bytes }) => text(`${"0123456789".repeat(Math.ceil(bytes / 10)).slice(0, bytes - 4)}TAIL`),
  );
  server.registerTool("endless", { description: "Writes one line that never ends to stdout." }, async () => {
    // Breaks the protocol on purpose: bytes without a newline until the client resets it.
    const timer = setInterval(() => process.stdout.write("x".repeat(65_536)), 1);
    await sleep(30_000);
    clearInterval(timer);
    return text("unreachable");
  });
  server.registerTool("fail", { description: "Always fails." }, () => ({
    content: [{ type: "text", text: "no such file: /nope" }],
    isError: true,
  }));
  server.registerTool("crash", { description: "Exits the process mid-call." }, async () => {
    process.stderr.write("fatal: the fixture crashed on purpose\n");
    setTimeout(() => process.exit(3), 20);
    await sleep(10_000);
    return text("unreachable");
  });
  server.registerTool(
    "weather",
    {
      description: "Structured weather.",
      outputSchema: { temperature: z.number(), unit: z.string() },
    },
    () => ({
      content: [{ type: "text", text: "It is 21 degrees." }],
      structuredContent: { temperature: 21, unit: "C" },
    }),
  );
  server.registerTool("picture", { description: "An image with a caption." }, () => ({
    content: [
      { type: "text", text: "a red pixel" },
      { type: "image", data: PIXEL, mimeType: "image/png" },
    ],
  }));
  server.registerTool("malformed", { description: "Returns a broken result." }, () => text(MALFORMED));
}

function registerDynamicTools(server, echo) {
  const added = new Map();
  server.registerTool("add_tool", { description: "Adds a tool.", inputSchema: { name: z.string() } }, ({ name }) => {
    added.set(
      name,
      server.registerTool(name, { description: `Dynamic tool ${name}.` }, () => ({ content: [{ type: "text", text: name }] })),
    );
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
  server.registerTool("remove_tool", { description: "Removes a tool.", inputSchema: { name: z.string() } }, ({ name }) => {
    added.get(name)?.remove();
    added.delete(name);
    return { content: [{ type: "text", text: `removed ${name}` }] };
  });
  server.registerTool("redescribe_echo", { description: "Changes echo's description." }, () => {
    echo.update({ description: "Echo a text back, louder." });
    return { content: [{ type: "text", text: "ok" }] };
  });
}

/** Names a registry must survive. */
export const HOSTILE_NAMES = {
  collidingA: "Read-File",
  collidingB: "read.file",
  unicode: "日本語ツール",
  accented: "café crème",
  longA: `${"a".repeat(199)}1`,
  longB: `${"a".repeat(199)}2`,
};

function registerHostileTools(server) {
  for (const name of Object.values(HOSTILE_NAMES)) {
    server.registerTool(name, { description: `Hostile name ${name.slice(0, 20)}.` }, () => ({
      content: [{ type: "text", text: `called ${name}` }],
    }));
  }
}

/**
 * Wraps a server transport so that some answers come out wrong, as a buggy or hostile server's
 * would: `malformed` results lose their shape, and `tools/list` (in hostile mode) gains entries
 * with broken schemas. The SDK's server validates its own results, so this happens on the wire.
 */
export function corruptingTransport(inner, hostile) {
  const send = inner.send.bind(inner);
  inner.send = (message, options) => send(corrupt(message, hostile), options);
  return inner;
}

function corrupt(message, hostile) {
  if (!("result" in message)) return message;
  const result = message.result;
  if (result.content?.[0]?.text === MALFORMED) return { ...message, result: { content: "not a list", isError: "maybe" } };
  if (hostile && Array.isArray(result.tools)) {
    const broken = [
      { name: "string_schema", description: "Input is a string.", inputSchema: { type: "string" } },
      {
        name: "bad_json_schema",
        description: "Invalid JSON Schema.",
        inputSchema: { type: "object", properties: { a: { type: 12 } } },
      },
      {
        name: "dangling_ref",
        description: "A $ref to nothing.",
        inputSchema: { type: "object", properties: { a: { $ref: "#/x" } } },
      },
      { description: "A tool without a name.", inputSchema: { type: "object" } },
    ];
    return { ...message, result: { ...result, tools: [...result.tools, ...broken] } };
  }
  return message;
}
