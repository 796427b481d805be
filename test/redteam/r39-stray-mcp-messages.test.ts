/**
 * Red team round 39: an MCP server that sends what nobody asked for while a call runs (a real
 * stdio process, `r39-stray-messages-server.mjs`): a progress notification for a token no request
 * gave, responses to request ids the client never used, 2,000 log messages, 200 list_changed
 * notifications and a notification of an unknown method. The client read "is this an overflow?"
 * from the text of the SDK's error, which quotes the stray response whole: a response saying
 * "exceeded maximum size" made the connection reset itself and the call answer
 * `mcp_output_too_large` ("a message over the transport's size limit"), though every message
 * was small and the server's answer was on its way.
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "r39-stray-messages-server.mjs");
let registry: Registry | undefined;

afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function connected() {
  registry = createRegistry();
  const handle = await connectMcpServer(registry, { name: "stray", command: process.execPath, args: [SERVER] });
  const run = registry.createRun();
  run.activate(["mcp_stray_noisy", "mcp_stray_plain", "mcp_stray_crash"]);
  return { handle, run };
}

describe("an MCP server sending unasked messages mid-call", () => {
  it("the call gets the server's answer; forged overflow words in a stray response reset nothing", async () => {
    const { handle, run } = await connected();
    const noisy = await run.call("mcp_stray_noisy", {});
    expect(noisy.ok ? noisy.output : noisy.error).toBe("noisy ran");
    expect(handle.status.state).toBe("connected");
    expect(await run.call("mcp_stray_plain", {})).toMatchObject({ ok: true, output: "plain ran" });
    expect([...handle.status.tools].sort()).toEqual(["mcp_stray_crash", "mcp_stray_noisy", "mcp_stray_plain"]);
  });

  it("control: a server that dies mid-call is reported closed, and the next call restarts it", async () => {
    const { run } = await connected();
    const crash = await run.call("mcp_stray_crash", {});
    expect(crash.ok ? undefined : crash.error.code).toBe("mcp_server_closed");
    expect(await run.call("mcp_stray_plain", {})).toMatchObject({ ok: true, output: "plain ran" });
  });
});
