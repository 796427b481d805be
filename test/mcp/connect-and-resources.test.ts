import { type AnyToolDefinition, createRegistry, type Registry } from "agent-tool-catalog";
import {
  type ConnectMcpOutput,
  connectMcpServer,
  connectMcpServers,
  createConnectMcpTool,
  createMcpResourceTools,
  McpServerSet,
  registerMcpGroup,
} from "agent-tool-catalog/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFixtureServer } from "./support/fixture-server.js";
import { type HttpFixture, startHttpFixture } from "./support/http-fixture.js";
import { stdioFixture } from "./support/stdio-fixture.js";
import { waitFor } from "./support/wait-for.js";

let http: HttpFixture;
let registry: Registry;

beforeAll(async () => {
  http = await startHttpFixture(() => createFixtureServer());
});

afterAll(async () => {
  await http.close();
});

afterEach(async () => {
  await registry.close();
});

describe("connect_mcp", () => {
  it("connects an allowed URL for the calling run only, lists the tools, and drops them when the run closes", async () => {
    registry = createRegistry();
    const group = new McpServerSet();
    registry.register(createConnectMcpTool(registry, { allowedUrls: [new URL(http.url).origin], group }));
    expect(registry.get("connect_mcp")).toMatchObject({ tier: "deferred", mutating: true });
    const run = registry.createRun({ runId: "asker" });
    const other = registry.createRun({ runId: "bystander" });
    // Deferred: not sent up front, found by find_tool's search, then activated.
    expect(run.search("connect an MCP server by URL").map((hit) => hit.name)[0]).toBe("connect_mcp");
    expect(await run.call("connect_mcp", { name: "live", url: http.url })).toMatchObject({
      ok: false,
      error: { code: "tool_not_activated" },
    });
    run.activate(["connect_mcp"]);
    const result = await run.call("connect_mcp", { name: "live", url: http.url });
    expect(result.ok).toBe(true);
    const output = (result.ok ? result.output : undefined) as ConnectMcpOutput;
    expect(output.tools.map((tool) => tool.name)).toContain("mcp_live_echo");
    expect(output.tools.find((tool) => tool.name === "mcp_live_echo")?.description).toBe("Echo a text back.");
    expect(output.message).toContain("select:");
    expect(run.search("echo text").map((hit) => hit.name)).toContain("mcp_live_echo");
    expect(other.search("echo text").map((hit) => hit.name)).not.toContain("mcp_live_echo");
    run.activate(["mcp_live_echo"]);
    expect(await run.call("mcp_live_echo", { text: "hello" })).toMatchObject({ ok: true, output: "hello" });
    expect(await run.call("connect_mcp", { name: "live", url: http.url })).toMatchObject({
      ok: false,
      error: { code: "mcp_server_exists" },
    });
    await run.close();
    await waitFor(() => !registry.has("mcp_live_echo"), "the run's server to close");
    expect(group.list("asker")).toEqual([]);
  });

  it("refuses URLs that are not allowed unless the host approves them", async () => {
    registry = createRegistry();
    const asked: string[] = [];
    registry.register(
      createConnectMcpTool(registry, {
        allowedUrls: ["https://mcp.example.com/v1"],
        approve: ({ url }) => {
          asked.push(url.href);
          return url.pathname === "/mcp";
        },
      }),
    );
    const run = registry.createRun();
    run.activate(["connect_mcp"]);
    const denied = await run.call("connect_mcp", { name: "elsewhere", url: `${new URL(http.url).origin}/other` });
    expect(denied).toMatchObject({ ok: false, error: { code: "mcp_url_not_allowed" } });
    expect(await run.call("connect_mcp", { name: "files", url: "file:///etc/passwd" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(await run.call("connect_mcp", { name: "approved", url: http.url })).toMatchObject({ ok: true });
    expect(asked).toEqual([`${new URL(http.url).origin}/other`, http.url]);
    expect(() => createConnectMcpTool(registry, {})).toThrowError(/allowedUrls or approve/);
  });

  it("reports a server that does not answer as a tool error, not a crash", async () => {
    registry = createRegistry();
    registry.register(createConnectMcpTool(registry, { approve: () => true, connectTimeoutMs: 2000 }));
    const run = registry.createRun();
    run.activate(["connect_mcp"]);
    const result = await run.call("connect_mcp", { name: "dead", url: "http://127.0.0.1:9/mcp" });
    expect(result).toMatchObject({ ok: false, error: { code: "mcp_connect_failed" } });
  });
});

describe("a second MCP server under a name in use", () => {
  it("fails the connect with duplicate_mcp_server, starts nothing, and frees the name on close", async () => {
    registry = createRegistry();
    const first = await connectMcpServer(registry, { name: "docs", url: http.url });
    const attempt = connectMcpServer(registry, stdioFixture("docs"));
    await expect(attempt).rejects.toMatchObject({ code: "duplicate_mcp_server", data: { name: "docs", existing: "docs" } });
    // Names that sanitize alike ("Docs" and "docs") make the same tool names, so they clash too.
    await expect(connectMcpServer(registry, { name: "Docs", url: http.url })).rejects.toMatchObject({
      code: "duplicate_mcp_server",
    });
    // A run-private server cannot shadow a shared one either.
    const run = registry.createRun({ runId: "r1" });
    await expect(connectMcpServer(registry, { name: "docs", url: http.url }, { run })).rejects.toMatchObject({
      code: "duplicate_mcp_server",
    });
    expect(first.status.state).toBe("connected");
    expect(registry.has("mcp_docs_echo")).toBe(true);
    await first.close();
    const again = await connectMcpServer(registry, { name: "docs", url: http.url });
    expect(again.status.state).toBe("connected");
  });

  it("allows the same name in two different runs, and refuses it twice in one run", async () => {
    registry = createRegistry();
    const a = registry.createRun({ runId: "a" });
    const b = registry.createRun({ runId: "b" });
    await connectMcpServer(registry, { name: "mine", url: http.url }, { run: a });
    await connectMcpServer(registry, { name: "mine", url: http.url }, { run: b });
    await expect(connectMcpServer(registry, { name: "mine", url: http.url }, { run: a })).rejects.toMatchObject({
      code: "duplicate_mcp_server",
    });
    // A shared server would clash with both.
    await expect(connectMcpServer(registry, { name: "mine", url: http.url })).rejects.toMatchObject({
      code: "duplicate_mcp_server",
    });
  });

  it("reaches the model as mcp_server_exists when connect_mcp asks for a name the host uses", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "host", url: http.url });
    registry.register(createConnectMcpTool(registry, { allowedUrls: [new URL(http.url).origin] }));
    const run = registry.createRun();
    run.activate(["connect_mcp"]);
    expect(await run.call("connect_mcp", { name: "host", url: http.url })).toMatchObject({
      ok: false,
      error: { code: "mcp_server_exists" },
    });
  });
});

describe("registerMcpGroup and the resource tools", () => {
  it("connects the group's servers, lists and reads resources (bounded), and reports a failed server", async () => {
    registry = createRegistry();
    const group = await registerMcpGroup(registry, {
      servers: [
        { name: "web", url: http.url },
        stdioFixture("local"),
        { name: "down", command: process.execPath, args: ["-e", "process.exit(1)"] },
      ],
    });
    expect(
      group
        ?.list()
        .map((handle) => handle.name)
        .sort(),
    ).toEqual(["local", "web"]);
    expect(group?.failures.map((failure) => failure.name)).toEqual(["down"]);
    expect(registry.get("list_mcp_resources")?.tier).toBe("deferred");
    const run = registry.createRun();
    run.activate(["list_mcp_resources", "read_mcp_resource"]);
    const listed = await run.call("list_mcp_resources", {});
    expect(listed.ok).toBe(true);
    const servers = JSON.parse(String(listed.ok ? listed.output : "{}")).servers as {
      server: string;
      resources: { uri: string }[];
    }[];
    expect(servers.map((entry) => entry.server).sort()).toEqual(["local", "web"]);
    expect(servers[0]?.resources.map((resource) => resource.uri)).toEqual(["notes://today", "blob://logo"]);
    expect(await run.call("read_mcp_resource", { server: "web", uri: "notes://today" })).toMatchObject({
      ok: true,
      output: "[notes://today (text/plain)]\nbuy milk",
    });
    const blob = await run.call("read_mcp_resource", { server: "local", uri: "blob://logo" });
    expect(blob).toMatchObject({ ok: true, output: expect.stringContaining("bytes of binary data, not shown") });
    expect(await run.call("read_mcp_resource", { server: "nowhere", uri: "x://y" })).toMatchObject({
      ok: false,
      error: { code: "unknown_mcp_server", hint: expect.stringContaining('"web"') },
    });
    await group?.close();
    expect(registry.has("list_mcp_resources")).toBe(false);
    expect(registry.has("mcp_web_echo")).toBe(false);
  });

  it("bounds the listing: resources per server and bytes per call", async () => {
    registry = createRegistry();
    const group = new McpServerSet();
    group.add(await connectMcpServer(registry, { name: "one", url: http.url }));
    group.add(await connectMcpServer(registry, { name: "two", url: http.url }));
    const [list] = createMcpResourceTools(group, { maxResourcesPerServer: 1, maxOutputBytes: 350 });
    registry.register(list as AnyToolDefinition);
    const run = registry.createRun();
    run.activate(["list_mcp_resources"]);
    const result = await run.call("list_mcp_resources", {});
    const text = String(result.ok ? result.output : "");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(350);
    const parsed = JSON.parse(text) as { servers: { resources: unknown[] }[]; truncated?: string };
    expect(parsed.servers.every((server) => server.resources.length <= 1)).toBe(true);
    expect(parsed.truncated).toMatch(/left out/);
  });

  it("checks every config before connecting any, and reports a duplicate name as a failure", async () => {
    registry = createRegistry();
    await expect(
      connectMcpServers(registry, [
        { name: "web", url: http.url },
        { name: "bad", url: "ftp://x" },
      ]),
    ).rejects.toMatchObject({ code: "invalid_mcp_config" });
    expect(registry.has("mcp_web_echo")).toBe(false);
    const group = await connectMcpServers(registry, [
      { name: "web", url: http.url },
      { name: "web", url: http.sseUrl, transport: "sse" },
    ]);
    expect(group.list().map((handle) => handle.status.transport)).toEqual(["http"]);
    expect(group.failures).toMatchObject([{ name: "web", error: { code: "duplicate_mcp_server" } }]);
  });

  it("registers nothing when disabled", async () => {
    registry = createRegistry();
    const group = await registerMcpGroup(registry, { enabled: () => false, servers: [{ name: "web", url: http.url }] });
    expect(group).toBeUndefined();
    expect(registry.list().some((tool) => tool.name.startsWith("mcp_") || tool.name.includes("mcp"))).toBe(false);
  });
});

describe("McpServerSet", () => {
  it("keeps McpServerGroup as a deprecated alias of the same class", async () => {
    registry = createRegistry();
    const { McpServerGroup, McpServerSet } = await import("agent-tool-catalog/mcp");
    expect(McpServerGroup).toBe(McpServerSet);
    expect(new McpServerGroup()).toBeInstanceOf(McpServerSet);
  });
});
