import { createRegistry, type FindToolOutput, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFixtureServer, type FixtureState } from "./support/fixture-server.js";
import { type HttpFixture, startHttpFixture } from "./support/http-fixture.js";
import { waitFor } from "./support/wait-for.js";

const state: FixtureState = { started: 0, cancelled: 0, completed: 0 };
let http: HttpFixture;
let registry: Registry;

beforeAll(async () => {
  http = await startHttpFixture(() => createFixtureServer({ state }));
});

afterAll(async () => {
  await http.close();
});

afterEach(async () => {
  await registry.close();
});

describe("an MCP server over streamable HTTP", () => {
  it("is found through find_tool by what its tools do and by the server's name", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "acme", url: http.url });
    const run = registry.createRun();
    expect(run.definitions().map((tool) => tool.name)).not.toContain("mcp_acme_read_notes");
    const found = await run.call("find_tool", { query: "acme notes" });
    expect(found.ok).toBe(true);
    const activated = (found.ok ? (found.output as FindToolOutput) : undefined)?.activated.map((tool) => tool.name);
    expect(activated).toContain("mcp_acme_read_notes");
    expect(run.definitions().map((tool) => tool.name)).toContain("mcp_acme_read_notes");
    expect(await run.call("mcp_acme_read_notes", {})).toMatchObject({ ok: true, output: "note: buy milk" });
  });

  it("sends the configured headers", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "auth", url: http.url, headers: { Authorization: "Bearer t0ken" } });
    expect(http.lastHeaders.authorization).toBe("Bearer t0ken");
  });

  it("prefers structuredContent, and passes images on as content parts with a text fallback", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "media", url: http.url });
    const run = registry.createRun();
    run.activate(["mcp_media_weather", "mcp_media_picture"]);
    expect(await run.call("mcp_media_weather", {})).toMatchObject({ ok: true, output: '{"temperature":21,"unit":"C"}' });
    const picture = await run.call("mcp_media_picture", {});
    // The text form stays the output (the fallback for text-only providers); the image is a part.
    expect(picture).toMatchObject({ ok: true, output: "a red pixel\n[image: image/png, 70 bytes, not shown]" });
    expect(picture.ok && picture.content).toEqual([
      { type: "text", text: "a red pixel" },
      { type: "image", data: expect.stringMatching(/^iVBOR/), mediaType: "image/png" },
    ]);
  });

  it("cancels the server's work when the call's AbortSignal fires", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "cancel", url: http.url });
    const run = registry.createRun();
    run.activate(["mcp_cancel_slow", "mcp_cancel_echo"]);
    const before = state.cancelled;
    const begun = state.started;
    const controller = new AbortController();
    const pending = run.call("mcp_cancel_slow", { ms: 20_000 }, { signal: controller.signal });
    // Abort once the server runs the call: a fixed 100 ms timer fired, at high load, before the
    // request was even sent (the first call waits for the schema check thread), and then there was
    // nothing on the server to cancel.
    await waitFor(() => state.started > begun, "the server to start the call");
    controller.abort();
    const started = Date.now();
    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
    // Answered at the abort, not at the slow call's end 20 s on: half of that, so a loaded machine
    // (2 s was the bound, at load 20 on 2 cores) does not decide it.
    expect(Date.now() - started).toBeLessThan(10_000);
    await waitFor(() => state.cancelled > before, "the server to see notifications/cancelled");
    expect(await run.call("mcp_cancel_echo", { text: "next" })).toMatchObject({ ok: true, output: "next" });
  });

  it("renews a session the server forgot (a restart) and sends the call again, since it never ran", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, { name: "restart", url: http.url });
    const run = registry.createRun();
    run.activate(["mcp_restart_echo"]);
    await http.dropSessions();
    expect(await run.call("mcp_restart_echo", { text: "one" })).toMatchObject({ ok: true, output: "one" });
    expect(handle.status.state).toBe("connected");
  });

  it("keeps activations of tools that survive a list change; a removed tool is just not visible", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "lc", url: http.url });
    const run = registry.createRun();
    run.activate(["mcp_lc_add_tool", "mcp_lc_remove_tool", "mcp_lc_echo"]);
    await run.call("mcp_lc_add_tool", { name: "extra" });
    await waitFor(() => registry.has("mcp_lc_extra"), "the added tool");
    run.activate(["mcp_lc_extra"]);
    expect(await run.call("mcp_lc_extra", {})).toMatchObject({ ok: true, output: "extra" });
    await run.call("mcp_lc_remove_tool", { name: "extra" });
    await waitFor(() => !registry.has("mcp_lc_extra"), "the removal");
    const visible = run.definitions().map((tool) => tool.name);
    expect(visible).toContain("mcp_lc_echo");
    expect(visible).not.toContain("mcp_lc_extra");
    expect(await run.call("mcp_lc_extra", {})).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
  });
});

describe("trusted and untrusted servers under approval: destructive", () => {
  it("lets only a trusted server's readOnlyHint skip approval; destructiveHint always asks", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "trusted", url: http.url, trusted: true });
    await connectMcpServer(registry, { name: "untrusted", url: http.url });
    expect(registry.get("mcp_trusted_read_notes")).toMatchObject({ mutating: false, annotations: { readOnlyHint: true } });
    expect(registry.get("mcp_trusted_wipe_notes")?.mutating).toBe(true);
    const untrusted = registry.get("mcp_untrusted_read_notes");
    expect(untrusted?.mutating).toBe(true);
    expect(untrusted?.annotations).toEqual({});
    const asked: string[] = [];
    registry.events.on("approval.requested", (request) => {
      asked.push(request.toolName);
      registry.approvals.deny(request.id, "not now");
    });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.activate(["mcp_trusted_read_notes", "mcp_trusted_wipe_notes", "mcp_untrusted_read_notes"]);
    expect(await run.call("mcp_trusted_read_notes", {})).toMatchObject({ ok: true });
    expect(await run.call("mcp_trusted_wipe_notes", {})).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    expect(await run.call("mcp_untrusted_read_notes", {})).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    expect(asked).toEqual(["mcp_trusted_wipe_notes", "mcp_untrusted_read_notes"]);
  });
});
