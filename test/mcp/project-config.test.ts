import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRegistry } from "agent-tool-catalog";
import {
  connectMcpServers,
  InMemoryMcpTrustStore,
  JsonFileMcpTrustStore,
  loadProjectMcpConfig,
  type McpTrustStore,
} from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stdioFixture } from "./support/stdio-fixture.js";

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "mcp-project-"));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const fixture = stdioFixture("local");
const mcpJson = JSON.stringify({
  mcpServers: {
    local: { command: fixture.command, args: fixture.args, env: { FIXTURE_MODE: "project" } },
    remote: { type: "sse", url: "https://mcp.example.com/sse", headers: { "X-Team": "a" } },
    hosted: { url: "https://mcp.example.com/mcp" },
  },
});

describe.each<[string, () => McpTrustStore]>([
  ["in memory", () => new InMemoryMcpTrustStore()],
  ["in a JSON file", () => new JsonFileMcpTrustStore(join(workspace, "state", "trust.json"))],
])("loadProjectMcpConfig with a trust store %s", (_label, makeStore) => {
  it("hands out no servers until the file's digest is trusted, and none again after the file changes", async () => {
    const trustStore = makeStore();
    await writeFile(join(workspace, ".mcp.json"), mcpJson);
    const first = await loadProjectMcpConfig(workspace, { trustStore });
    const digest = createHash("sha256").update(mcpJson).digest("hex");
    expect(first).toMatchObject({ found: true, trusted: false, digest, servers: [], serverNames: ["local", "remote", "hosted"] });

    await trustStore.trust(first.path, digest);
    const trusted = await loadProjectMcpConfig(workspace, { trustStore });
    expect(trusted.trusted).toBe(true);
    expect(trusted.servers).toEqual([
      { name: "local", command: fixture.command, args: fixture.args, env: { FIXTURE_MODE: "project" }, cwd: workspace },
      { name: "remote", url: "https://mcp.example.com/sse", headers: { "X-Team": "a" }, transport: "sse" },
      { name: "hosted", url: "https://mcp.example.com/mcp" },
    ]);

    await writeFile(join(workspace, ".mcp.json"), mcpJson.replace("project", "changed"));
    const changed = await loadProjectMcpConfig(workspace, { trustStore });
    expect(changed).toMatchObject({ trusted: false, servers: [] });
    expect(changed.digest).not.toBe(digest);
  });
});

describe("project MCP config", () => {
  it("reports a missing file as not found", async () => {
    expect(await loadProjectMcpConfig(workspace, { trustStore: new InMemoryMcpTrustStore() })).toMatchObject({
      found: false,
      trusted: false,
      digest: undefined,
      servers: [],
    });
  });

  it("keeps trust across store instances in the JSON file, written with mode 0600", async () => {
    const file = join(workspace, "trust.json");
    await new JsonFileMcpTrustStore(file).trust("/w/.mcp.json", "abc");
    expect(await new JsonFileMcpTrustStore(file).isTrusted("/w/.mcp.json", "abc")).toBe(true);
    expect(await new JsonFileMcpTrustStore(file).isTrusted("/w/.mcp.json", "abd")).toBe(false);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await new JsonFileMcpTrustStore(file).revoke("/w/.mcp.json");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ version: 1, files: {} });
    expect(await new JsonFileMcpTrustStore(file).isTrusted("constructor", "abc")).toBe(false);
  });

  it("loses no decision when several are made at once", async () => {
    const store = new JsonFileMcpTrustStore(join(workspace, "trust.json"));
    const paths = ["/a", "/b", "/c", "/d", "/e"];
    await Promise.all(paths.map((path) => store.trust(path, `digest-${path}`)));
    const reopened = new JsonFileMcpTrustStore(join(workspace, "trust.json"));
    for (const path of paths) expect(await reopened.isTrusted(path, `digest-${path}`)).toBe(true);
  });

  it("throws a ConfigurationError naming the field when a trusted file is invalid", async () => {
    const trustStore = new InMemoryMcpTrustStore();
    const text = JSON.stringify({ mcpServers: { bad: { command: "x", args: "not-a-list" } } });
    await writeFile(join(workspace, ".mcp.json"), text);
    await trustStore.trust(join(workspace, ".mcp.json"), createHash("sha256").update(text).digest("hex"));
    await expect(loadProjectMcpConfig(workspace, { trustStore })).rejects.toMatchObject({
      code: "invalid_mcp_config",
      message: expect.stringContaining("mcpServers.bad.args must be an array of strings"),
    });
  });

  it("connects the servers of a trusted file, as untrusted servers", async () => {
    const trustStore = new InMemoryMcpTrustStore();
    const text = JSON.stringify({ mcpServers: { proj: { command: fixture.command, args: fixture.args } } });
    await writeFile(join(workspace, ".mcp.json"), text);
    const untrusted = await loadProjectMcpConfig(workspace, { trustStore });
    await trustStore.trust(untrusted.path, untrusted.digest ?? "");
    const { servers } = await loadProjectMcpConfig(workspace, { trustStore });
    const registry = createRegistry();
    const group = await connectMcpServers(registry, servers);
    expect(group.failures).toEqual([]);
    expect(group.status().map((status) => [status.name, status.trusted, status.state])).toEqual([["proj", false, "connected"]]);
    expect(registry.get("mcp_proj_read_notes")?.mutating).toBe(true);
    await registry.close();
  });
});
