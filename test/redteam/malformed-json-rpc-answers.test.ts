/**
 * Red team round 15: a stdio (and a streamable HTTP) MCP server that answers a call with a message that is not a JSON-RPC
 * response (`result: null`, an `error` whose `code` is a string, both `result` and `error`). The
 * SDK drops such a line, so the call waited for its whole timeout and failed as `mcp_timeout`
 * ("did not answer"), although the server had answered, at once, wrongly.
 *
 * Round 18: an answer with an extra top-level member (`"extra": 1` beside a good `result` or
 * `error`) in an event stream still waited out the timeout (the SDK's response schemas are strict,
 * and the event check passed it as well-formed); now it is `mcp_malformed_result` naming the
 * member. A string id for a numeric request ("7" for 7) is accepted: the SDK client matches
 * answers by `Number(id)`, and so does this library.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { closeServer } from "../support/close-server.js";

const script = fileURLToPath(new URL("../mcp/servers/hostile-protocol-server.mjs", import.meta.url));
// Far above the answer's time even at high load, and the old code's result arrived only after it.
// At 20 s (a bound of 10 s) a malformed answer, told apart at once, took 21.5 s to come at load 35
// (2 cores, 8 busy loops beside): the bound is half the timeout, the claim that the call does not
// wait for it.
const TIMEOUT_MS = 60_000;

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

async function callHostile(mode: string) {
  registry = createRegistry();
  await connectMcpServer(registry, { name: "wrong", command: process.execPath, args: [script, mode], timeoutMs: TIMEOUT_MS });
  const run = registry.createRun();
  run.activate(["mcp_wrong_hostile", "mcp_wrong_echo"]);
  // A first call starts what every call needs (the schema check's worker thread): 35 s at load 20
  // with 8 busy loops beside, which the hostile answer's time must not count.
  expect(await run.call("mcp_wrong_echo", { text: "warm" })).toMatchObject({ ok: true });
  const started = Date.now();
  const result = await run.call("mcp_wrong_hostile", {});
  return { result, elapsed: Date.now() - started, echo: await run.call("mcp_wrong_echo", { text: "still here" }) };
}

describe("an MCP server answering a call with a message that is not a JSON-RPC response", () => {
  it.each([
    ["null-result", '"result" is null, not an object'],
    ["odd-error", '"error.code" is a string, not an integer'],
    ["both", 'it has both "result" and "error"'],
    ["extra", 'it has a member "extra" a JSON-RPC response does not have'],
  ])(
    "%s: mcp_malformed_result saying what is wrong, long before the timeout; the next call works",
    async (mode, reason) => {
      const { result, elapsed, echo } = await callHostile(mode);
      expect(result).toMatchObject({
        ok: false,
        error: {
          code: "mcp_malformed_result",
          message: expect.stringContaining(reason),
          hint: expect.stringContaining("server"),
        },
      });
      expect(elapsed).toBeLessThan(TIMEOUT_MS / 2);
      expect(echo).toMatchObject({ ok: true, output: "still here" });
    },
    150_000,
  );

  it("control: the request's numeric id answered as a string is accepted, as the SDK client does", async () => {
    const { result, elapsed } = await callHostile("string-id");
    expect(result).toMatchObject({ ok: true, output: "under a string id" });
    expect(elapsed).toBeLessThan(TIMEOUT_MS / 2);
  }, 150_000);

  it("control: a well-formed error response (a 5 MB message) is the server's own: mcp_server_error, clipped", async () => {
    const { result, echo } = await callHostile("big-error");
    expect(result).toMatchObject({ ok: false, error: { code: "mcp_server_error" } });
    expect(result.ok ? "" : result.error.message.length).toBeLessThan(3000);
    expect(echo).toMatchObject({ ok: true, output: "still here" });
  }, 150_000);
});

/**
 * A raw streamable HTTP server answering every call with an event stream: for "echo" a progress
 * notification and the answer, written a few bytes at a time with `\r\n` line ends (so event ends
 * straddle chunks), for "hostile" the malformed answer `mode` names.
 */
function sseServer(mode: string): Promise<string> {
  const listening = createServer(async (request, response) => {
    let body = "";
    for await (const part of request) body += part;
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const message = JSON.parse(body);
    const json = (result: unknown) =>
      response
        .writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    if (message.id === undefined) response.writeHead(202).end();
    else if (message.method === "initialize")
      json({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "sse", version: "1" },
      });
    else if (message.method === "tools/list")
      json({ tools: ["hostile", "echo"].map((name) => ({ name, inputSchema: { type: "object" } })) });
    else {
      response.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s1" });
      const answers: Record<string, unknown> = {
        "null-result": { jsonrpc: "2.0", id: message.id, result: null },
        "odd-error": { jsonrpc: "2.0", id: message.id, error: { code: "bad", message: { nested: true } } },
        both: { jsonrpc: "2.0", id: message.id, result: { content: [] }, error: { code: 1, message: "e" } },
        extra: { jsonrpc: "2.0", id: message.id, result: { content: [] }, extra: 1 },
        "extra-error": { jsonrpc: "2.0", id: message.id, error: { code: 1, message: "e" }, extra: 1 },
        "string-id": {
          jsonrpc: "2.0",
          id: String(message.id),
          result: { content: [{ type: "text", text: "under a string id" }] },
        },
      };
      const text =
        message.params.name === "echo"
          ? `event: message\r\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })}\r\n\r\nid: 7\r\nevent: message\r\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "still here" }] } })}\r\n\r\n`
          : `event: message\ndata: ${JSON.stringify(answers[mode])}\n\n`;
      const pieces = text.match(/[\s\S]{1,3}/g) ?? [];
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) response.end();
        else response.write(piece, () => setImmediate(next));
      };
      next();
    }
  });
  servers.push(listening);
  return new Promise((resolve) =>
    listening.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/mcp`)),
  );
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

describe("a streamable HTTP server answering a call with an event that is not a JSON-RPC response", () => {
  it.each([
    ["null-result", '"result" is null, not an object'],
    ["odd-error", '"error.code" is a string, not an integer'],
    ["both", 'it has both "result" and "error"'],
    ["extra", 'it has a member "extra" a JSON-RPC response does not have'],
    ["extra-error", 'it has a member "extra" a JSON-RPC response does not have'],
  ])(
    "%s: mcp_malformed_result saying what is wrong, long before the timeout; the next call works",
    async (mode, reason) => {
      registry = createRegistry();
      await connectMcpServer(registry, { name: "sse", url: await sseServer(mode), timeoutMs: TIMEOUT_MS });
      const run = registry.createRun();
      run.activate(["mcp_sse_hostile", "mcp_sse_echo"]);
      // Warmed as callHostile is: the hostile answer's time alone.
      expect(await run.call("mcp_sse_echo", {})).toMatchObject({ ok: true, output: "still here" });
      const started = Date.now();
      expect(await run.call("mcp_sse_hostile", {})).toMatchObject({
        ok: false,
        error: { code: "mcp_malformed_result", message: expect.stringContaining(reason) },
      });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
      // Control: two events in three-byte pieces, event ends straddling them, arrive unchanged.
      expect(await run.call("mcp_sse_echo", {})).toMatchObject({ ok: true, output: "still here" });
    },
    150_000,
  );

  it("control: the request's numeric id answered as a string in an event is accepted, as the SDK client does", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "sse", url: await sseServer("string-id"), timeoutMs: TIMEOUT_MS });
    const run = registry.createRun();
    run.activate(["mcp_sse_hostile"]);
    const started = Date.now();
    expect(await run.call("mcp_sse_hostile", {})).toMatchObject({ ok: true, output: "under a string id" });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
  }, 150_000);
});
