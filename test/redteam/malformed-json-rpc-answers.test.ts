/**
 * Red team round 15: a stdio MCP server that answers a call with a message that is not a JSON-RPC
 * response (`result: null`, an `error` whose `code` is a string, both `result` and `error`). The
 * SDK drops such a line, so the call waited for its whole timeout and failed as `mcp_timeout`
 * ("did not answer"), although the server had answered, at once, wrongly.
 */
import { fileURLToPath } from "node:url";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../mcp/servers/hostile-protocol-server.mjs", import.meta.url));
// Far above the answer's time even at high load, and the old code's result arrived only after it.
const TIMEOUT_MS = 20_000;

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

async function callHostile(mode: string) {
  registry = createRegistry();
  await connectMcpServer(registry, { name: "wrong", command: process.execPath, args: [script, mode], timeoutMs: TIMEOUT_MS });
  const run = registry.createRun();
  run.activate(["mcp_wrong_hostile", "mcp_wrong_echo"]);
  const started = Date.now();
  const result = await run.call("mcp_wrong_hostile", {});
  return { result, elapsed: Date.now() - started, echo: await run.call("mcp_wrong_echo", { text: "still here" }) };
}

describe("an MCP server answering a call with a message that is not a JSON-RPC response", () => {
  it.each([
    ["null-result", '"result" is null, not an object'],
    ["odd-error", '"error.code" is a string, not an integer'],
    ["both", 'it has both "result" and "error"'],
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
    60_000,
  );

  it("control: a well-formed error response (a 5 MB message) is the server's own: mcp_server_error, clipped", async () => {
    const { result, echo } = await callHostile("big-error");
    expect(result).toMatchObject({ ok: false, error: { code: "mcp_server_error" } });
    expect(result.ok ? "" : result.error.message.length).toBeLessThan(3000);
    expect(echo).toMatchObject({ ok: true, output: "still here" });
  }, 60_000);
});
