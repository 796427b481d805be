/**
 * README error table: `mcp_request_failed` ("a request to the MCP server failed") and
 * `mcp_server_unavailable` ("the MCP server is not available"). A real MCP server over streamable
 * HTTP on 127.0.0.1 answers a call, then goes away (its listener closed): the call in hand fails
 * as `mcp_request_failed` (the request never got an answer), and the next call, after the
 * connection is found dead and cannot be opened again, is `mcp_server_unavailable`. Control: the
 * first call, over the same connection, answers.
 */
import { createRegistry, type Registry, type ToolCallResult } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { createFixtureServer, type FixtureState } from "./support/fixture-server.js";
import { type HttpFixture, startHttpFixture } from "./support/http-fixture.js";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

let registry: Registry | undefined;
let http: HttpFixture | undefined;
afterEach(async () => {
  await registry?.close();
  await http?.close().catch(() => undefined);
  registry = undefined;
  http = undefined;
});

describe("an MCP server that went away", () => {
  it("fails the call in hand as mcp_request_failed, then the next as mcp_server_unavailable", async () => {
    const state: FixtureState = { started: 0, cancelled: 0, completed: 0 };
    http = await startHttpFixture(() => createFixtureServer({ state }));
    registry = createRegistry();
    await connectMcpServer(registry, { name: "gone", url: http.url });
    const run = registry.createRun();
    run.activate(["mcp_gone_echo"]);
    expect(await run.call("mcp_gone_echo", { text: "one" })).toMatchObject({ ok: true, output: "one" });

    await http.close();
    const inHand = await run.call("mcp_gone_echo", { text: "two" });
    expect(code(inHand), JSON.stringify(inHand)).toBe("mcp_request_failed");
    const next = await run.call("mcp_gone_echo", { text: "three" });
    expect(code(next), JSON.stringify(next)).toBe("mcp_server_unavailable");
    expect(!next.ok && next.error.message).toContain('"gone"');
  });
});
