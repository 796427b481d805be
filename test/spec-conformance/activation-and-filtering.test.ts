/**
 * Spec conformance (/work/shared/spec/agent-tool-catalog.md): tiers, find_tool and select:,
 * activation per run, MCP tool naming, AlwaysAvailableTools, per-run allowed_tools and the
 * default permission model, through the root entry as a host uses it. Statement table:
 * docs/spec-conformance.md.
 */
import {
  ALWAYS_AVAILABLE_TOOLS,
  type AnyToolDefinition,
  createRegistry,
  DEFAULT_PERMISSIONS,
  defineTool,
  InMemoryApprovalBroker,
  type Run,
  TIER_CORE,
  TIER_DEFERRED,
} from "agent-tool-catalog";
import { connectMcpServer, MCP_TOOL_NAME_PREFIX, MCP_TOOL_TAGS, mcpToolName } from "agent-tool-catalog/mcp";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inMemoryFixture } from "../mcp/support/in-memory-fixture.js";
import { modelError, ok } from "./support.js";

const tool = (
  name: string,
  tier: "core" | "deferred",
  extra: { description?: string; tags?: string[]; mutating?: boolean } = {},
): AnyToolDefinition =>
  defineTool({
    name,
    description: extra.description ?? `The ${name.replaceAll("_", " ")} tool.`,
    tier,
    tags: extra.tags ?? [],
    mutating: extra.mutating ?? false,
    inputSchema: z.object({ text: z.string().optional() }),
    handler: ({ text }) => `${name}:${text ?? ""}`,
  });

/** A host catalog: no built-ins, so the profile leaves every tool to its tier. */
function catalog() {
  return createRegistry({
    tools: [
      tool("read_note", "core"),
      tool("git_log_search", "deferred", { description: "Search commit history by message or diff content." }),
      tool("git_blame_context", "deferred", { description: "Blame annotations with surrounding context lines." }),
      tool("weather_report", "deferred", { description: "Report conditions.", tags: ["meteorology"] }),
      tool("AskUserQuestion", "core"),
      tool("skill", "core"),
      tool("delete_note", "core", { mutating: true }),
    ],
  });
}
const names = (run: Run) => run.definitions().map((definition) => definition.name);

describe("tiers", () => {
  it('TierCore = "core" is sent on every run; TierDeferred = "deferred" is hidden until activated', async () => {
    expect(TIER_CORE).toBe("core");
    expect(TIER_DEFERRED).toBe("deferred");
    const run = catalog().createRun();
    expect(names(run)).toEqual(["find_tool", "read_note", "AskUserQuestion", "skill", "delete_note"]);
    const hidden = modelError(await run.call("git_log_search", {}), "tool_not_activated");
    expect(hidden.hint).toContain("select:git_log_search");
  });

  it("find_tool is a core meta-tool, sent even when there is no deferred tool", () => {
    const run = createRegistry({ tools: [tool("only_core", "core")] }).createRun();
    expect(names(run)).toEqual(["find_tool", "only_core"]);
    expect(createRegistry().get("find_tool")?.tier).toBe("core");
  });
});

describe("find_tool", () => {
  it("query searches deferred tool names, descriptions and tags", async () => {
    for (const [query, expected] of [
      ["git log search", "git_log_search"],
      ["surrounding context lines", "git_blame_context"],
      ["meteorology", "weather_report"],
    ] as const) {
      const run = catalog().createRun();
      const found = ok(await run.call("find_tool", { query })) as { activated: { name: string }[] };
      expect(
        found.activated.map((entry) => entry.name),
        query,
      ).toContain(expected);
      expect(names(run)).toContain(expected);
    }
  });

  it('"select:<name>" activates exactly that tool; it is visible from the next turn on, for that run only', async () => {
    const registry = catalog();
    const run = registry.createRun();
    const other = registry.createRun();
    const before = names(run);
    const found = ok(await run.call("find_tool", { query: "select:git_log_search" })) as { activated: { name: string }[] };
    expect(found.activated.map((entry) => entry.name)).toEqual(["git_log_search"]);
    expect(names(run)).toEqual([...before, "git_log_search"]);
    expect(ok(await run.call("git_log_search", { text: "x" }))).toBe("git_log_search:x");
    // Stays for the duration of the run: later turns, other find_tool calls, other tool calls.
    ok(await run.call("find_tool", { query: "select:git_blame_context" }));
    ok(await run.call("read_note", {}));
    for (let turn = 0; turn < 3; turn++) expect(names(run)).toContain("git_log_search");
    // The run's state carries it to a resumed run.
    expect(
      registry
        .createRun({ state: run.toJSON() })
        .definitions()
        .map((definition) => definition.name),
    ).toContain("git_log_search");
    // Per run: another run of the same registry does not see it.
    expect(names(other)).not.toContain("git_log_search");
    modelError(await other.call("git_log_search", {}), "tool_not_activated");
  });

  it("select: variants: several names, case of the prefix, spaces, already available, unknown, empty, mixed", async () => {
    const run = catalog().createRun();
    const two = ok(await run.call("find_tool", { query: "SELECT: git_log_search , weather_report" })) as {
      activated: { name: string }[];
    };
    expect(two.activated.map((entry) => entry.name)).toEqual(["git_log_search", "weather_report"]);
    const again = ok(await run.call("find_tool", { query: "select:git_log_search,read_note" })) as {
      activated: unknown[];
      already_available: { name: string }[];
    };
    expect(again.activated).toEqual([]);
    expect(again.already_available.map((entry) => entry.name)).toEqual(["git_log_search", "read_note"]);
    const unknown = modelError(await run.call("find_tool", { query: "select:git_log_serch" }), "unknown_tool");
    expect(unknown.message).toContain("git_log_search");
    modelError(await run.call("find_tool", { query: "select:" }), "invalid_input");
    modelError(await run.call("find_tool", { query: "select: , " }), "invalid_input");
    modelError(await run.call("find_tool", { queries: ["select:git_blame_context", "weather"] }), "invalid_input");
    // Exact names only: a prefix of a name is not a name.
    modelError(await run.call("find_tool", { query: "select:git_blame" }), "unknown_tool");
  });

  it("bad queries are model errors naming the field", async () => {
    const run = catalog().createRun();
    modelError(await run.call("find_tool", {}), "invalid_input");
    modelError(await run.call("find_tool", { query: "" }), "invalid_input", "query");
    modelError(await run.call("find_tool", { query: "   " }), "invalid_input", "query");
    modelError(await run.call("find_tool", { query: 7 }), "invalid_input", "query");
    modelError(await run.call("find_tool", { query: "x".repeat(2001) }), "invalid_input", "query");
    ok(await run.call("find_tool", { query: "x".repeat(2000) }));
    modelError(await run.call("find_tool", { query: "git", limit: 21 }), "invalid_input", "limit");
    ok(await run.call("find_tool", { query: "git", limit: 20 }));
  });

  it("announces each activation as tool.activated (the spec reserves the event; this library emits it)", async () => {
    const run = catalog().createRun();
    const seen: string[] = [];
    run.events.on("tool.activated", (event) => seen.push(`${event.name}:${event.via}`));
    ok(await run.call("find_tool", { query: "select:weather_report" }));
    expect(seen).toEqual(["weather_report:find_tool"]);
  });
});

describe("MCP tool naming: mcp_<server>_<tool>, both parts sanitized", () => {
  it("lower-cases and turns -, /, . and space into _ (single underscore, mcp_ prefix)", () => {
    expect(MCP_TOOL_NAME_PREFIX).toBe("mcp_");
    expect(mcpToolName("filesystem", "read_file")).toBe("mcp_filesystem_read_file");
    expect(mcpToolName("My-Server", "Read.File")).toBe("mcp_my_server_read_file");
    expect(mcpToolName("a/b c", "x-y/z.w v")).toBe("mcp_a_b_c_x_y_z_w_v");
    expect(mcpToolName("docs", "search")).not.toContain("__");
  });

  it("server names with separators, other characters and great length: one valid, distinct name per tool", () => {
    // Separators inside the server name stay single underscores; a server and tool split
    // differently can make the same name (reported at connect as name_taken, see below).
    expect(mcpToolName("my.server/v2", "Read File")).toBe("mcp_my_server_v2_read_file");
    expect(mcpToolName("a_b", "c")).toBe(mcpToolName("a", "b_c"));
    // Characters beyond the spec's four would all fold to "_": a hash of the raw names keeps them apart.
    const japanese = mcpToolName("日本", "echo");
    const chinese = mcpToolName("中文", "echo");
    expect(japanese).not.toBe(chinese);
    for (const name of [japanese, chinese]) expect(name).toMatch(/^mcp____echo_[0-9a-f]{10}$/);
    // Over 64 characters: cut to 53 plus the hash, distinct for tools sharing the first 53.
    const long = "s".repeat(70);
    const [one, two] = [mcpToolName(long, "tool_one"), mcpToolName(long, "tool_two")];
    expect(one).toHaveLength(64);
    expect(two).toHaveLength(64);
    expect(one).not.toBe(two);
    expect(mcpToolName("s".repeat(55), "t")).toBe(`mcp_${"s".repeat(55)}_t`); // 61, under 64: no hash
  });

  it("two servers whose names differ only in characters sanitizing drops both connect, each with its own tools", async () => {
    const registry = createRegistry();
    try {
      const first = await connectMcpServer(registry, inMemoryFixture("日本"));
      // This server's tools are all hashed with its raw name, so none is the first one's: it was
      // refused as duplicate_mcp_server ("make the same tool names").
      const second = await connectMcpServer(registry, inMemoryFixture("中文"));
      const firstEcho = mcpToolName("日本", "echo");
      const secondEcho = mcpToolName("中文", "echo");
      expect(first.tools().map((entry) => entry.name)).toContain(firstEcho);
      expect(second.tools().map((entry) => entry.name)).toContain(secondEcho);
      // Always deferred, tagged with the server's own (raw) name.
      for (const [name, server] of [
        [firstEcho, "日本"],
        [secondEcho, "中文"],
      ] as const) {
        expect(registry.get(name)?.tier).toBe("deferred");
        expect(registry.get(name)?.tags).toEqual([...MCP_TOOL_TAGS, `mcp_server:${server}`]);
      }
      const run = registry.createRun();
      run.activate([firstEcho, secondEcho]);
      expect(ok(await run.call(firstEcho, { text: "one" }))).toBe("one");
      expect(ok(await run.call(secondEcho, { text: "two" }))).toBe("two");
      // Control: the same raw name twice, and names equal under the spec's rule, still clash.
      await expect(connectMcpServer(registry, inMemoryFixture("日本"))).rejects.toMatchObject({ code: "duplicate_mcp_server" });
      await connectMcpServer(registry, inMemoryFixture("my-docs"));
      await expect(connectMcpServer(registry, inMemoryFixture("My Docs"))).rejects.toMatchObject({
        code: "duplicate_mcp_server",
      });
      // A collision between servers (a_b + echo_x would be a + b_echo_x) is not hidden: the
      // second server's tool is reported name_taken, its other tools register.
      const taken = createRegistry({
        tools: [
          defineTool({
            name: mcpToolName("my", "docs_echo"),
            description: "Taken.",
            inputSchema: z.object({}),
            handler: () => "",
          }),
        ],
      });
      try {
        const third = await connectMcpServer(taken, inMemoryFixture("my_docs"));
        expect(third.status.rejected).toMatchObject([{ mcpName: "echo", reason: "name_taken" }]);
        expect(third.tools().length).toBeGreaterThan(3);
      } finally {
        await taken.close();
      }
    } finally {
      await registry.close();
    }
  });

  it("tags MCP tools mcp, integration, external, dynamic (plus mcp_server:<name> per server)", () => {
    expect([...MCP_TOOL_TAGS]).toEqual(["mcp", "integration", "external", "dynamic"]);
  });
});

describe("AlwaysAvailableTools and per-run allowed_tools", () => {
  it("are exactly AskUserQuestion, find_tool and skill", () => {
    expect([...ALWAYS_AVAILABLE_TOOLS].sort()).toEqual(["AskUserQuestion", "find_tool", "skill"]);
  });

  it("a non-empty allowedTools offers the listed names plus the three; empty or omitted offers all", async () => {
    const registry = catalog();
    const scoped = registry.createRun({ allowedTools: ["read_note", "git_log_search"] });
    expect(names(scoped)).toEqual(["find_tool", "read_note", "AskUserQuestion", "skill"]);
    modelError(await scoped.call("delete_note", {}), "tool_not_allowed");
    // Listing a deferred tool does not change its tier: it still needs find_tool.
    modelError(await scoped.call("git_log_search", {}), "tool_not_activated");
    ok(await scoped.call("find_tool", { query: "select:git_log_search" }));
    expect(names(scoped)).toContain("git_log_search");
    // find_tool finds only what the list allows.
    modelError(await scoped.call("find_tool", { query: "select:weather_report" }), "unknown_tool");
    const all = ["find_tool", "read_note", "AskUserQuestion", "skill", "delete_note"];
    expect(names(registry.createRun({ allowedTools: [] }))).toEqual(all);
    expect(names(registry.createRun())).toEqual(all);
  });

  it("the three bypass a skill constraint too", () => {
    const run = catalog().createRun();
    run.applySkillConstraint("review", ["read_note"]);
    expect(names(run)).toEqual(["find_tool", "read_note", "AskUserQuestion", "skill"]);
  });
});

describe("default permissions: unrestricted, no approval", () => {
  it("defaults to { sandbox: unrestricted, approval: none }: a mutating tool runs without asking", async () => {
    expect(DEFAULT_PERMISSIONS).toMatchObject({ sandbox: "unrestricted", approval: "none" });
    const approvals = new InMemoryApprovalBroker();
    const asked: string[] = [];
    approvals.events.on("approval.requested", (request) => asked.push(request.toolName));
    const run = createRegistry({ tools: [tool("delete_note", "core", { mutating: true })], approvals }).createRun();
    expect(run.permissions).toMatchObject({ sandbox: "unrestricted", approval: "none" });
    expect(ok(await run.call("delete_note", {}))).toBe("delete_note:");
    expect(asked).toEqual([]);
  });

  it('"destructive" asks before mutating calls only; "all" asks before every call', async () => {
    for (const [approval, expected] of [
      ["destructive", ["delete_note"]],
      ["all", ["read_note", "delete_note"]],
    ] as const) {
      const approvals = new InMemoryApprovalBroker();
      const asked: string[] = [];
      approvals.events.on("approval.requested", (request) => {
        asked.push(request.toolName);
        approvals.approve(request.id);
      });
      const registry = createRegistry({
        tools: [tool("read_note", "core"), tool("delete_note", "core", { mutating: true })],
        approvals,
      });
      const run = registry.createRun({ permissions: { approval } });
      ok(await run.call("read_note", {}));
      ok(await run.call("delete_note", {}));
      expect(asked, approval).toEqual(expected);
    }
  });

  it("a denied call is approval_denied and the tool does not run", async () => {
    const approvals = new InMemoryApprovalBroker();
    approvals.events.on("approval.requested", (request) => approvals.deny(request.id, "no"));
    let ran = false;
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "drop_table",
          description: "Drop a table.",
          mutating: true,
          inputSchema: z.object({}),
          handler: () => {
            ran = true;
          },
        }),
      ],
      approvals,
    });
    modelError(await registry.createRun({ permissions: { approval: "destructive" } }).call("drop_table", {}), "approval_denied");
    expect(ran).toBe(false);
  });
});
