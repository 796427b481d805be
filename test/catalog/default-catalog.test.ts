import { CORE_ESSENTIAL_TOOLS, CORE_LISTED_TOOLS, CORE_SET_TAG, createRegistry, defineTool } from "agent-tool-catalog";
import { createDefaultCatalog, type DefaultCatalogOptions } from "agent-tool-catalog/catalog";
import { gitToolGroup } from "agent-tool-catalog/git";
import {
  DirectorySkillStore,
  DirectorySkillVerifier,
  InMemoryPackRegistry,
  InMemoryQuestionBroker,
  InMemoryTranscriptStore,
  InProcessCallbackManager,
  InProcessCronScheduler,
  InProcessSubagentManager,
  InProcessWorkflowService,
  type WebFetcher,
} from "agent-tool-catalog/host";
import { createConnectMcpTool, createMcpResourceTools, McpServerGroup } from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedRunner, temporaryDirectory } from "../host/support/host-test-kit.js";

const runner = new ScriptedRunner(() => ({ output: "ok" }));
const fetcher: WebFetcher = {
  fetch: async ({ url }) => ({ url, status: 200, contentType: "text/plain", text: "", bytes: 0, truncated: false }),
};

function names(options: DefaultCatalogOptions): Set<string> {
  return new Set(
    createDefaultCatalog(options)
      .registry.list()
      .map((tool) => tool.name),
  );
}

describe("createDefaultCatalog", () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await temporaryDirectory("catalog-");
  });
  afterEach(() => dir.remove());

  it("with no options: the core tools, find_tool, the always-registered tools, and no optional group", () => {
    const present = names({});
    for (const name of [
      "read",
      "write",
      "edit",
      "replace",
      "apply_patch",
      "file_inspect",
      "download",
      "ls",
      "glob",
      "grep",
      "undo",
      "bash",
      "monitor",
      "todo",
      "find_tool",
      "create_prompt_extension",
      "list_profiles",
      "validate_profile",
    ]) {
      expect(present, name).toContain(name);
    }
    for (const name of [
      "agent",
      "spawn_agent",
      "swarm",
      "web_fetch",
      "cron_create",
      "set_delayed_callback",
      "run_agent",
      "skill",
      "skill_manage",
      "session_search",
      "AskUserQuestion",
      "sourcegraph",
      "run_workflow",
      "run_recipe",
      "create_profile",
      "git_log_search",
      "list_mcp_resources",
      "connect_mcp",
    ]) {
      expect(present, name).not.toContain(name);
    }
  });

  // The spec's table: each row's tools appear when its dependency is given, and vanish, silently,
  // when its switch is off.
  const rows: [string, () => DefaultCatalogOptions, DefaultCatalogOptions, readonly string[]][] = [
    ["agents", () => ({ agentRunner: runner }), { enableAgent: false }, ["agent", "spawn_agent", "swarm"]],
    ["web", () => ({ webFetcher: fetcher }), { enableWebOps: false }, ["web_fetch"]],
    ["web needs EnableAgent", () => ({ webFetcher: fetcher }), { enableAgent: false }, ["web_fetch"]],
    ["cron", () => ({ cronClient: new InProcessCronScheduler() }), { enableCron: false }, ["cron_create", "cron_list"]],
    [
      "callbacks",
      () => ({ callbackManager: new InProcessCallbackManager({ onFire: () => undefined }) }),
      { enableCallbacks: false },
      ["set_delayed_callback"],
    ],
    [
      "mcp resources",
      () => ({ mcp: { resourceTools: createMcpResourceTools(new McpServerGroup()) } }),
      { enableMcp: false },
      ["list_mcp_resources", "read_mcp_resource"],
    ],
  ];
  for (const [row, given, off, tools] of rows) {
    it(`${row}: present with its dependency, absent with its switch off`, () => {
      const on = names(given());
      for (const tool of tools) expect(on, tool).toContain(tool);
      const without = names({ ...given(), ...off });
      for (const tool of tools) expect(without, tool).not.toContain(tool);
    });
  }

  it("dependency-only groups: subagents, skills, workflows, recipes, profiles dir, sourcegraph, ask, sessions, git, connect_mcp", () => {
    const present = names({
      agentRunner: runner,
      webFetcher: fetcher,
      subagentManager: new InProcessSubagentManager({ runner }),
      skillsDir: dir.path,
      skillVerifier: new DirectorySkillVerifier(new DirectorySkillStore(dir.path)),
      packRegistry: new InMemoryPackRegistry([]),
      workflowService: new InProcessWorkflowService({ runner }),
      recipesDir: dir.path,
      profiles: { profilesDir: dir.path },
      sourcegraph: { endpoint: "https://sourcegraph.example" },
      questionBroker: new InMemoryQuestionBroker(),
      transcriptStore: new InMemoryTranscriptStore(),
      git: gitToolGroup(),
      mcp: { connectTool: (registry) => createConnectMcpTool(registry, { allowedUrls: ["http://127.0.0.1/"] }) },
      enableMcp: false,
    });
    for (const name of [
      "run_agent",
      "skill",
      "create_skill",
      "skill_manage",
      "verify_skill",
      "manage_skill_packs",
      "run_workflow",
      "run_recipe",
      "create_profile",
      "sourcegraph",
      "AskUserQuestion",
      "session_search",
      "git_log_search",
      "connect_mcp",
      "agentic_fetch",
    ]) {
      expect(present, name).toContain(name);
    }
  });

  it("every tool a profile names is a shipped tool, and the new core tools are placed by their own tag", () => {
    const catalog = createDefaultCatalog({
      agentRunner: runner,
      webFetcher: fetcher,
      webSearcher: { search: async () => [] },
      skillsDir: dir.path,
      questionBroker: new InMemoryQuestionBroker(),
      transcriptStore: new InMemoryTranscriptStore(),
      mcp: { connectTool: (registry) => createConnectMcpTool(registry, { allowedUrls: ["http://127.0.0.1/"] }) },
    });
    const shipped = new Set(catalog.registry.list().map((tool) => tool.name));
    const named = [...CORE_ESSENTIAL_TOOLS, ...CORE_LISTED_TOOLS];
    expect(named.filter((name) => !shipped.has(name))).toEqual([]);
    const tagged = catalog.registry
      .list()
      .filter((tool) => tool.tags.includes(CORE_SET_TAG))
      .map((tool) => tool.name)
      .sort();
    expect(tagged).toEqual(["monitor", "session_search", "skill_manage", "swarm"]);
    // 7 eager + 11 listed: the spec's eighteen, all present in a full catalog
    expect(CORE_ESSENTIAL_TOOLS.size + CORE_LISTED_TOOLS.size + tagged.length).toBe(18);
    const index = catalog.createRun({ profile: "core" }).systemPromptIndex() ?? "";
    // (connect_mcp is left out: it does not carry the builtin tag, so profiles leave it to its tier)
    const builtinListed = [...CORE_LISTED_TOOLS].filter((name) =>
      catalog.registry
        .list()
        .find((tool) => tool.name === name)
        ?.tags.includes("builtin"),
    );
    for (const name of [...tagged, ...builtinListed]) expect(index, name).toContain(`- ${name}:`);
    // a tool that is not built-in never gets placed by the tag (profiles decide about built-ins only)
    const hostTool = defineTool({
      name: "host_tool",
      description: "A host tool that claims the tag.",
      inputSchema: z.object({}),
      tier: "deferred",
      tags: [CORE_SET_TAG],
      handler: () => "ok",
    });
    const host = createRegistry({ tools: [hostTool] });
    expect(host.createRun({ profile: "core" }).systemPromptIndex() ?? "").not.toContain("- host_tool:");
    // positive control: the same tool as a built-in is listed by the tag alone
    const builtin = createRegistry({ tools: [{ ...hostTool, name: "builtin_tool", tags: ["builtin", CORE_SET_TAG] }] });
    expect(builtin.createRun({ profile: "core" }).systemPromptIndex() ?? "").toContain("- builtin_tool:");
  });

  it("gives runs the catalog's permissions; a run may narrow them, never widen", () => {
    const catalog = createDefaultCatalog({
      workspace: dir.path,
      permissions: { sandbox: "workspace", approval: "destructive" },
    });
    const run = catalog.createRun();
    expect(run.permissions).toEqual({ sandbox: "workspace", approval: "destructive", workspace: dir.path });
    const wider = catalog.createRun({ permissions: { sandbox: "unrestricted", approval: "none" } });
    expect(wider.permissions).toEqual({ sandbox: "workspace", approval: "destructive", workspace: dir.path });
    expect(catalog.createRun({ permissions: { approval: "all" } }).permissions.approval).toBe("all");
    expect(run.depth).toBe(0);
    expect(catalog.groups.find((group) => group.name === "agents")).toEqual({ name: "agents", present: false, tools: [] });
  });
});
