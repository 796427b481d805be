/**
 * Spec conformance (/work/shared/spec/tool-profiles-and-loading.md) on the library's own
 * default catalog (`agent-tool-catalog/catalog`), as a host builds it: the core profile's
 * eighteen tools (with this library's names), the seven eager ones, the listing index's row
 * format and its freezing, load-mode overrides, and which sessions get no index. Statement
 * table and the deliberate differences: docs/spec-conformance.md.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type AnyToolDefinition,
  createRegistry,
  defineTool,
  INDEX_INSTRUCTION,
  parseToolConfig,
  type Run,
  type ToolProfileName,
} from "agent-tool-catalog";
import { createDefaultCatalog, type DefaultCatalog } from "agent-tool-catalog/catalog";
import { InMemoryQuestionBroker, InMemoryTranscriptStore, InProcessWorkflowService } from "agent-tool-catalog/host";
import { createConnectMcpTool } from "agent-tool-catalog/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { emptyPageFetcher, modelError, ok, okRunner } from "./support.js";

/** The spec's eighteen, as this library names them (agentgrep → grep, webfetch → web_fetch, ...). */
const SPEC_TO_LIBRARY: Record<string, string> = {
  bash: "bash",
  read: "read",
  write: "write",
  edit: "edit",
  replace: "replace",
  apply_patch: "apply_patch",
  agentgrep: "grep",
  ls: "ls",
  webfetch: "web_fetch",
  websearch: "web_search",
  skill_manage: "skill_manage",
  mcp: "connect_mcp",
  monitor: "monitor",
  undo: "undo",
  ask: "AskUserQuestion",
  todo: "todo",
  session_search: "session_search",
  swarm: "swarm",
};
const EAGER = ["read", "write", "edit", "apply_patch", "bash", "ls", "grep"];
const OTHER_ELEVEN = Object.values(SPEC_TO_LIBRARY).filter((name) => !EAGER.includes(name));

let workspace: string;
let catalog: DefaultCatalog;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-spec-profiles-"));
  const runner = okRunner;
  const fetcher = emptyPageFetcher;
  catalog = createDefaultCatalog({
    workspace,
    agentRunner: runner,
    webFetcher: fetcher,
    webSearcher: { search: async () => [] },
    skillsDir: workspace,
    questionBroker: new InMemoryQuestionBroker(),
    transcriptStore: new InMemoryTranscriptStore(),
    mcp: { connectTool: (registry) => createConnectMcpTool(registry, { allowedUrls: ["http://127.0.0.1/"] }) },
  });
});
afterAll(async () => {
  await catalog.registry.close();
  await rm(workspace, { recursive: true, force: true });
});

const sent = (run: Run) => run.definitions().map((tool) => tool.name);
const isBuiltin = (name: string) => catalog.registry.get(name)?.tags.includes("builtin") === true;
const indexRows = (run: Run) =>
  (run.systemPromptIndex() ?? "")
    .split("\n")
    .slice(2)
    .map((row) => /^- ([^:]+): (.*)$/.exec(row)?.slice(1) ?? [row, ""]);

describe("the core profile (default): eighteen tools, seven eager, the rest behind toolbox", () => {
  it("a full default catalog ships all eighteen under this library's names", () => {
    const shipped = new Set(catalog.registry.list().map((tool) => tool.name));
    expect(Object.values(SPEC_TO_LIBRARY).filter((name) => !shipped.has(name))).toEqual([]);
    expect(new Set(Object.values(SPEC_TO_LIBRARY)).size).toBe(18);
  });

  it("sends exactly the seven with schemas (plus find_tool and toolbox) and lists the others in the index", () => {
    const run = catalog.createRun({ environment: {} });
    expect(run.loading).toEqual({ profile: "core", listing: true });
    const eagerBuiltins = sent(run).filter(isBuiltin);
    expect(eagerBuiltins.sort()).toEqual([...EAGER].sort());
    expect(sent(run)).toContain("find_tool");
    expect(sent(run)).toContain("toolbox");
    for (const tool of run.definitions()) expect(tool.inputSchema, tool.name).toMatchObject({ type: "object" });
    const listed = indexRows(run).map(([name]) => name);
    // connect_mcp ("mcp") is a deferred MCP tool reached through find_tool, not the index (README).
    for (const name of OTHER_ELEVEN.filter((name) => name !== "connect_mcp")) expect(listed, name).toContain(name);
    expect(listed).not.toContain("connect_mcp");
    expect(run.reach("connect_mcp")).toBe("searchable");
    for (const name of EAGER) expect(listed).not.toContain(name);
  });

  it("reaches a listed tool through toolbox and refuses a direct call with use_toolbox", async () => {
    const run = catalog.createRun({ environment: {} });
    const direct = modelError(await run.call("todo", { action: "list" }), "use_toolbox");
    expect(direct.hint).toContain("toolbox");
    expect(ok(await run.call("toolbox", { action: "describe", tool: "todo" }))).toMatchObject({ name: "todo" });
  });
});

describe("the listing index", () => {
  it("is # Additional tools, the instruction line, then one - <name>: <description> row per tool", () => {
    const run = catalog.createRun({ environment: {} });
    const lines = (run.systemPromptIndex() ?? "").split("\n");
    expect(lines[0]).toBe("# Additional tools");
    expect(lines[1]).toBe('Call one with toolbox: action "run", tool "<name>", args {}.');
    expect(INDEX_INSTRUCTION).toBe(lines[1]);
    for (const [name, description] of indexRows(run)) {
      expect(catalog.registry.get(name ?? ""), `${name}`).toBeDefined();
      expect([...(description ?? "")].length, `${name}`).toBeLessThanOrEqual(60);
      expect(description ?? "", `${name}`).not.toContain("\n");
    }
  });

  const row = (description: string) => {
    const probe = defineTool({ name: "probe", description, tags: ["builtin"], inputSchema: z.object({}), handler: () => "" });
    return indexRows(createRegistry({ tools: [probe] }).createRun({ environment: {} }))[0]?.[1];
  };

  it("keeps a first sentence of exactly 60 characters whole and cuts 61 to 57 + ... (60 in all)", () => {
    const sixty = `${"a".repeat(59)}.`;
    expect(row(sixty)).toBe(sixty);
    expect(row(`${sixty} Second sentence.`)).toBe(sixty);
    const sixtyOne = `${"b".repeat(60)}.`;
    expect(row(sixtyOne)).toBe(`${"b".repeat(57)}...`);
    expect([...(row(sixtyOne) ?? "")].length).toBe(60);
    // Counting characters, not UTF-16 units or bytes.
    expect(row(`${"é".repeat(59)}.`)).toBe(`${"é".repeat(59)}.`);
    expect(row("🙂".repeat(60))).toBe("🙂".repeat(60));
    expect(row("🙂".repeat(61))).toBe(`${"🙂".repeat(57)}...`);
  });

  it("takes the first sentence of the first non-empty line (CRLF, blank and space-only lines skipped)", () => {
    expect(row("\r\n  \r\nFirst line. More.\r\nSecond line.")).toBe("First line.");
    expect(row("Questions? Ask here.")).toBe("Questions?");
    expect(row("No full stop at all")).toBe("No full stop at all");
    expect(row("Version 1.5 is here. Next.")).toBe("Version 1.5 is here.");
  });

  it("an abbreviation's full stop (e.g., i.e., vs.) does not end the first sentence", () => {
    expect(row('Find files, e.g. "*.go" or "src". Second sentence.')).toBe('Find files, e.g. "*.go" or "src".');
    expect(row("Compare two refs (i.e. branches). More.")).toBe("Compare two refs (i.e. branches).");
    expect(row("Tabs vs. spaces are kept. More.")).toBe("Tabs vs. spaces are kept.");
    // A word that merely ends in a letter and a full stop still ends the sentence.
    expect(row("Call the API. More.")).toBe("Call the API.");
    expect(row("Ends with e.g.")).toBe("Ends with e.g.");
    // The default catalog's glob row was "Find files whose paths match a glob pattern, e.g."; its
    // description now ends the first sentence before the examples (a shorter row every turn).
    const glob = indexRows(catalog.createRun({ environment: {} })).find(([name]) => name === "glob")?.[1] ?? "";
    expect(glob).toBe("Find files whose paths match a glob pattern.");
    expect([...glob].length).toBeLessThanOrEqual(60);
  });

  const extra = (name: string): AnyToolDefinition =>
    defineTool({ name, description: `The ${name} tool.`, tags: ["builtin"], inputSchema: z.object({}), handler: () => name });

  it("freezes when the first tool list is locked: a tool registered before that is listed, after it is not", async () => {
    const registry = createRegistry({ tools: [extra("first_listed")] });
    const run = registry.createRun({ environment: {} });
    registry.register(extra("joined_before_lock"));
    sent(run); // the first tool list: locks the index
    registry.register(extra("joined_after_lock"));
    const index = run.systemPromptIndex() ?? "";
    expect(index).toContain("- first_listed:");
    expect(index).toContain("- joined_before_lock:");
    expect(index).not.toContain("joined_after_lock");
    // Not lost: the late tool is reached through find_tool instead.
    expect(run.reach("joined_after_lock")).toBe("searchable");
    ok(await run.call("find_tool", { query: "select:joined_after_lock" }));
    expect(ok(await run.call("joined_after_lock", {}))).toBe("joined_after_lock");
    for (let turn = 0; turn < 3; turn++) expect(run.systemPromptIndex()).toBe(index);
  });

  it("/clear (compacting the conversation) keeps the index; a session restored from activations rebuilds it", () => {
    const registry = createRegistry({ tools: [extra("kept_tool")] });
    const run = registry.createRun({ environment: {} });
    const index = run.systemPromptIndex();
    registry.register(extra("later_tool"));
    run.compact({ keep: "none" });
    expect(run.systemPromptIndex()).toBe(index);
    // The same session continued elsewhere (its whole state) keeps what the model was shown.
    expect(registry.createRun({ state: run.toJSON(), environment: {} }).systemPromptIndex()).toBe(index);
    // A restored session (a new run from the saved activations) rebuilds it.
    const restored = registry.createRun({ activation: run.toJSON().activation, environment: {} });
    expect(restored.systemPromptIndex()).toContain("- later_tool:");
  });
});

describe("sessions that are not listing sessions send every core tool eagerly and get no index", () => {
  it.each(["acp", "minimal", "lite", "none", "full"] as ToolProfileName[])("%s: no index", (profile) => {
    const run = catalog.createRun({ profile });
    expect(run.loading.listing).toBe(false);
    expect(run.systemPromptIndex()).toBeUndefined();
    expect(sent(run)).not.toContain("toolbox");
  });

  it("acp sends all seventeen built-in core-profile tools eagerly (connect_mcp stays deferred)", () => {
    const eager = sent(catalog.createRun({ profile: "acp" }));
    for (const name of Object.values(SPEC_TO_LIBRARY).filter((name) => name !== "connect_mcp"))
      expect(eager, name).toContain(name);
  });

  it("minimal and lite are the same profile: the seven plus the always-available tools", () => {
    const minimal = sent(catalog.createRun({ profile: "minimal" }));
    expect(sent(catalog.createRun({ profile: "lite" }))).toEqual(minimal);
    expect(minimal.filter(isBuiltin).sort()).toEqual([...EAGER, "AskUserQuestion", "skill"].sort());
  });

  it("none sends nothing", () => {
    expect(sent(catalog.createRun({ profile: "none" }))).toEqual([]);
  });

  it("an explicit allow-list (also the SDK's enabled list) makes a non-listing run", () => {
    const run = catalog.createRun({ allowedTools: ["read", "todo", "undo"], environment: {} });
    expect(run.loading.listing).toBe(false);
    expect(run.systemPromptIndex()).toBeUndefined();
    expect(sent(run)).toEqual(expect.arrayContaining(["read", "todo", "undo"]));
  });
});

describe("load_mode overrides", () => {
  it("takes the spec's [tools.load_mode] example; names this catalog lacks are diagnosed with the closest name", () => {
    const config = parseToolConfig('[tools.load_mode]\nbatch = "off"\nmemory = "essential"\nask = "essential"\n');
    expect(config.loadModes).toEqual({ batch: "off", memory: "essential", ask: "essential" });
    const run = catalog.createRun({ config, environment: {} });
    const named = run.diagnostics().map((diagnostic) => ("name" in diagnostic ? diagnostic.name : undefined));
    expect(named).toEqual(expect.arrayContaining(["batch", "memory", "ask"]));
  });

  it("AskUserQuestion = essential moves the spec's ask from the index to the eager surface", () => {
    const run = catalog.createRun({ loadModes: { AskUserQuestion: "essential" }, environment: {} });
    expect(sent(run)).toContain("AskUserQuestion");
    expect(run.systemPromptIndex()).not.toContain("- AskUserQuestion:");
  });

  it('toolbox = "off" (or toolbox in [tools] disabled) turns listing off and puts all eighteen core tools back eager', () => {
    for (const run of [
      catalog.createRun({ loadModes: { toolbox: "off" }, environment: {} }),
      catalog.createRun({ config: parseToolConfig('[tools]\ndisabled = ["toolbox"]'), environment: {} }),
      catalog.createRun({ config: parseToolConfig('[tools.load_mode]\ntoolbox = "off"'), environment: {} }),
    ]) {
      expect(run.loading.listing).toBe(false);
      expect(run.systemPromptIndex()).toBeUndefined();
      for (const name of Object.values(SPEC_TO_LIBRARY).filter((name) => name !== "connect_mcp")) {
        expect(sent(run), name).toContain(name);
      }
    }
  });

  it("an explicit discoverable toolbox is promoted to essential (listing stays reachable)", async () => {
    const run = catalog.createRun({ config: parseToolConfig('[tools.load_mode]\ntoolbox = "discoverable"'), environment: {} });
    expect(run.loading.listing).toBe(true);
    expect(sent(run)).toContain("toolbox");
    expect(ok(await run.call("toolbox", { action: "describe", tool: "undo" }))).toMatchObject({ name: "undo" });
  });

  it("a session fixes its tiers at start: a configuration reload never moves a tool mid-session", () => {
    const loadModes: Record<string, "essential" | "off"> = {};
    const run = catalog.createRun({ loadModes, environment: {} });
    const before = JSON.stringify(run.definitions());
    loadModes.todo = "essential";
    loadModes.read = "off";
    expect(JSON.stringify(run.definitions())).toBe(before);
    expect(run.reach("todo")).toBe("listed");
    expect(run.reach("read")).toBe("sent");
  });
});

describe("the rest of the catalog: LSP absent, profile tools, workflow parameters", () => {
  it("has no LSP tools, not even through find_tool", async () => {
    const names = catalog.registry.list().map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith("lsp_"))).toEqual([]);
    const run = catalog.createRun({ environment: {} });
    modelError(await run.call("find_tool", { query: "select:lsp_diagnostics" }), "unknown_tool");
  });

  it("registers the six profile tools always, and create/update/delete_profile only with a profiles directory", () => {
    const bare = new Set(
      createDefaultCatalog({})
        .registry.list()
        .map((tool) => tool.name),
    );
    for (const name of [
      "list_profiles",
      "get_profile",
      "get_profile_manifest",
      "validate_profile",
      "recommend_profile",
      "get_efficiency_report",
      "create_prompt_extension",
    ]) {
      expect(bare, name).toContain(name);
    }
    for (const name of ["create_profile", "update_profile", "delete_profile"]) expect(bare, name).not.toContain(name);
    const withDirectory = new Set(
      createDefaultCatalog({ profiles: { profilesDir: workspace } })
        .registry.list()
        .map((tool) => tool.name),
    );
    for (const name of ["create_profile", "update_profile", "delete_profile"]) expect(withDirectory, name).toContain(name);
  });

  it("create_workflow takes name, description, source, scope; run_workflow name, args, wait, timeout_seconds, resume_run_id", () => {
    const registry = createDefaultCatalog({
      workflowService: new InProcessWorkflowService({ runner: { runPrompt: async () => ({ output: "" }) } }),
    }).registry;
    const properties = (name: string) =>
      Object.keys(
        (registry.get(name)?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {},
      ).sort();
    expect(properties("create_workflow")).toEqual(["description", "name", "scope", "source"]);
    expect(properties("run_workflow")).toEqual(["args", "name", "resume_run_id", "timeout_seconds", "wait"]);
  });
});
