import { type AnyToolDefinition, createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, createMcpPromptTools, createMcpResourceTools, McpServerSet } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { modelError } from "../spec-conformance/support.js";
import { inMemoryFixture } from "./support/in-memory-fixture.js";

let registry: Registry;

afterEach(async () => {
  await registry.close();
});

describe("McpServerSet.get: a sanitized name finds only the one server it is", () => {
  it("names neither of two servers whose names sanitize alike by dropping characters", async () => {
    registry = createRegistry();
    const servers = new McpServerSet();
    // Both sanitize to "__" (accepted as distinct servers since their tool names carry a hash).
    servers.add(await connectMcpServer(registry, inMemoryFixture("日本")));
    servers.add(await connectMcpServer(registry, inMemoryFixture("中文")));
    servers.add(await connectMcpServer(registry, inMemoryFixture("my-docs")));
    for (const tool of [...createMcpResourceTools(servers), ...createMcpPromptTools(servers)]) {
      registry.register(tool as AnyToolDefinition);
    }
    const run = registry.createRun();
    run.activate(["list_mcp_resources", "read_mcp_resource", "list_mcp_prompts", "get_mcp_prompt"]);
    for (const name of ["中國", "韓国", "__"]) {
      expect(servers.get(name), name).toBeUndefined();
      modelError(await run.call("list_mcp_resources", { server: name }), "unknown_mcp_server");
      modelError(await run.call("read_mcp_resource", { server: name, uri: "notes://today" }), "unknown_mcp_server");
      modelError(await run.call("list_mcp_prompts", { server: name }), "unknown_mcp_server");
      modelError(await run.call("get_mcp_prompt", { server: name, name: "p" }), "unknown_mcp_server");
    }
    // Positive controls: each raw name finds its own server; "my_docs" (the name its tools are
    // made of) still finds "my-docs", as it did before.
    expect(servers.get("日本")?.name).toBe("日本");
    expect(servers.get("中文")?.name).toBe("中文");
    expect(servers.get("my_docs")?.name).toBe("my-docs");
    const read = await run.call("read_mcp_resource", { server: "中文", uri: "notes://today" });
    expect(read.ok && String(read.output)).toContain("buy milk");
    const listed = await run.call("list_mcp_resources", { server: "my_docs" });
    expect(listed.ok && String(listed.output)).toContain('"server":"my-docs"');
  });

  it("finds a server by a friendly spelling that folds to exactly one server (My Docs, MY_DOCS)", async () => {
    registry = createRegistry();
    const servers = new McpServerSet();
    servers.add(await connectMcpServer(registry, inMemoryFixture("my-docs")));
    servers.add(await connectMcpServer(registry, inMemoryFixture("日本")));
    for (const tool of createMcpResourceTools(servers)) registry.register(tool as AnyToolDefinition);
    const run = registry.createRun();
    run.activate(["list_mcp_resources"]);
    // Stop 36 answered unknown_mcp_server for every spelling but "my-docs" and "my_docs".
    for (const name of ["My Docs", "MY_DOCS", "my docs", "My-Docs", "my.docs"]) {
      expect(servers.get(name)?.name, name).toBe("my-docs");
    }
    const listed = await run.call("list_mcp_resources", { server: "My Docs" });
    expect(listed.ok && String(listed.output)).toContain('"server":"my-docs"');
    // Controls: a spelling that loses more than case and separators, or that folds to a lossy
    // server's name, names nothing.
    for (const name of ["My Döcs", "my  docs", "mydocs", "__", "中國", "my docs!"]) {
      expect(servers.get(name), name).toBeUndefined();
    }
    modelError(await run.call("list_mcp_resources", { server: "中國" }), "unknown_mcp_server");
  });

  it("names no server when a friendly spelling folds to two (my-docs and my.docs)", async () => {
    registry = createRegistry();
    const servers = new McpServerSet();
    servers.add(await connectMcpServer(registry, inMemoryFixture("my-docs")));
    await expect(connectMcpServer(registry, inMemoryFixture("my.docs"))).rejects.toThrow();
    // Two servers folding alike cannot both register their tools in one registry; in two
    // registries sharing a set they can, and then a folded name is ambiguous.
    const other = createRegistry();
    try {
      servers.add(await connectMcpServer(other, inMemoryFixture("my.docs")));
      expect(servers.get("My Docs")).toBeUndefined();
      expect(servers.get("my_docs")).toBeUndefined();
      // Controls: the exact names still find each.
      expect(servers.get("my-docs")?.name).toBe("my-docs");
      expect(servers.get("my.docs")?.name).toBe("my.docs");
    } finally {
      await other.close();
    }
  });
});
