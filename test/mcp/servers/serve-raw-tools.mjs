// The JSON-RPC loop of a raw MCP test server over stdio (no SDK) whose only point is its tools: it
// answers initialize and tools/list, a tools/call with "<name> ran" (or what `result` gives), any
// other request with an empty result, and exits when stdin closes. A tool may ask the client
// requests of the server's own (sampling, elicitation, roots) while its call runs.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

const RAW = Symbol("raw JSON text");

/**
 * A call's result given as JSON text, sent as it is: for values JSON.stringify cannot write (nested
 * deeper than the server's own stack).
 */
export const rawJson = (text) => ({ [RAW]: text });

const ERROR = Symbol("JSON-RPC error");

/** A call answered with the JSON-RPC error `{ code, message }` instead of a result. */
export const jsonRpcError = (code, message) => ({ [ERROR]: { code, message } });

/**
 * Serves `tools` (an array, or a function giving the current list) as the server `name` on
 * stdin/stdout. `onCall(toolName, notify)` runs before a tools/call is answered; `notify(method,
 * params)` sends a notification (such as notifications/tools/list_changed). `result(toolName,
 * args, { ask })`, when given, is the call's result or a promise of it (default: a text block
 * "<name> ran"; `rawJson(text)` for a result given as JSON text, `jsonRpcError(code, message)` for an error answer, a promise that never settles for no answer); `ask(method, params)` sends the client a request of the server's own and resolves
 * with `{ result }` or `{ error: code }` when the client answers, `{ timeout: true }` after 5 s.
 */
export function serveRawTools(name, tools, { onCall, result } = {}) {
  const replies = new Map();
  let asked = 0;
  const ask = (method, params) => {
    const id = `srv-${++asked}`;
    send({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve) => {
      replies.set(id, resolve);
      setTimeout(() => resolve({ timeout: true }), 5_000).unref();
    });
  };
  const answer = (id, tool, value) =>
    value?.[RAW] !== undefined
      ? process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${value[RAW]}}\n`)
      : value?.[ERROR] !== undefined
        ? send({ jsonrpc: "2.0", id, error: value[ERROR] })
        : send({ jsonrpc: "2.0", id, result: value ?? { content: [{ type: "text", text: `${tool} ran` }] } });
  const lines = createInterface({ input: process.stdin });
  lines.on("close", () => process.exit(0));
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (message.method === undefined && replies.has(message.id)) {
      replies.get(message.id)(message.error === undefined ? { result: message.result } : { error: message.error.code });
    } else if (message.method === "initialize") {
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name, version: "1" },
        },
      });
    } else if (message.method === "tools/list") {
      send({ jsonrpc: "2.0", id: message.id, result: { tools: typeof tools === "function" ? tools() : tools } });
    } else if (message.method === "tools/call") {
      const tool = message.params.name;
      onCall?.(tool, (method, params) => send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }));
      const value = result?.(tool, message.params.arguments, { ask });
      // A synchronous result is answered at once, so that answers keep the order of their calls.
      if (typeof value?.then === "function") value.then((resolved) => answer(message.id, tool, resolved));
      else answer(message.id, tool, value);
    } else if (message.id !== undefined) {
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  });
}
