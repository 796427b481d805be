import {
  type AnyToolDefinition,
  createRegistry,
  defineTool,
  INDEX_INSTRUCTION,
  parseToolConfig,
  type Registry,
  type Run,
  type ToolCallResult,
} from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const builtin = (name: string, description = `The ${name} tool.`, tier: "core" | "deferred" = "core"): AnyToolDefinition =>
  defineTool({
    name,
    description,
    tier,
    tags: ["builtin"],
    inputSchema: z.object({ x: z.string().optional() }),
    handler: ({ x }) => `${name}:${x ?? ""}`,
  });
const host = (name: string, tier: "core" | "deferred" = "core"): AnyToolDefinition =>
  defineTool({ name, description: `Host tool ${name}.`, tier, inputSchema: z.object({}), handler: () => name });

const ESSENTIAL = ["read", "write", "edit", "apply_patch", "bash", "ls", "grep"];

function registry(): Registry {
  return createRegistry({
    tools: [
      ...ESSENTIAL.map((name) => builtin(name)),
      builtin("undo", "Undo the last file change. Refused when the file changed since."),
      builtin("todo", "Keep a todo list\nfor the session."),
      builtin("web_fetch", "Fetch a web page over HTTP and return its readable text, links and metadata for the model."),
      builtin("AskUserQuestion", "Ask the user a question."),
      builtin("glob", "Find files by pattern."),
      builtin("git_log_search", "Search commit history.", "deferred"),
      host("deploy"),
      host("billing_report", "deferred"),
    ],
  });
}

const names = (run: Run) => run.definitions().map((tool) => tool.name);
const ok = (result: ToolCallResult) => {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.output;
};
const errorCode = (result: ToolCallResult) => (result.ok ? undefined : result.error.code);

describe("the core profile (default): listing mode", () => {
  it("sends the seven essential built-ins, host core tools, find_tool and toolbox; lists the rest", () => {
    const run = registry().createRun({ environment: {} });
    expect(run.loading).toEqual({ profile: "core", listing: true });
    expect(names(run)).toEqual(["find_tool", "toolbox", ...ESSENTIAL, "deploy"]);
    expect(run.systemPromptIndex()).toBe(
      [
        "# Additional tools",
        INDEX_INSTRUCTION,
        "- undo: Undo the last file change.",
        "- todo: Keep a todo list",
        "- web_fetch: Fetch a web page over HTTP and return its readable text,...",
        "- AskUserQuestion: Ask the user a question.",
        "- glob: Find files by pattern.",
      ].join("\n"),
    );
    expect(INDEX_INSTRUCTION).toBe('Call one with toolbox: action "run", tool "<name>", args {}.');
  });

  it("reaches listed tools through toolbox describe and run, and refuses direct calls with a hint", async () => {
    const run = registry().createRun({ environment: {} });
    expect(ok(await run.call("toolbox", { action: "describe", tool: "todo" }))).toMatchObject({
      name: "todo",
      input_schema: { type: "object" },
    });
    expect(ok(await run.call("toolbox", { action: "run", tool: "todo", args: { x: "1" } }))).toBe("todo:1");
    const direct = await run.call("todo", {});
    expect(direct.ok ? undefined : direct.error).toMatchObject({
      code: "use_toolbox",
      hint: expect.stringContaining('"action":"describe"'),
    });
    expect(errorCode(await run.call("toolbox", { action: "run", tool: "read" }))).toBe("unknown_tool");
    expect(errorCode(await run.call("toolbox", { action: "run", tool: "todo", args: { x: 5 } }))).toBe("invalid_input");
  });

  it("keeps deferred tools behind find_tool, and find_tool never activates a listed tool", async () => {
    const run = registry().createRun({ environment: {} });
    ok(await run.call("find_tool", { query: "commit history undo todo" }));
    expect(names(run)).toContain("git_log_search");
    expect(names(run)).not.toContain("undo");
  });
});

describe("non-listing profiles", () => {
  it("acp sends every core-profile tool eagerly with no index", () => {
    const run = registry().createRun({ profile: "acp" });
    expect(names(run)).toEqual(["find_tool", ...ESSENTIAL, "undo", "todo", "web_fetch", "AskUserQuestion", "glob", "deploy"]);
    expect(run.systemPromptIndex()).toBeUndefined();
  });

  it("full sends every tool by its tier", () => {
    const run = registry().createRun({ profile: "full" });
    expect(names(run)).toEqual(["find_tool", ...ESSENTIAL, "undo", "todo", "web_fetch", "AskUserQuestion", "glob", "deploy"]);
    expect(run.activate(["git_log_search"]).activated).toEqual(["git_log_search"]);
  });

  it.each(["minimal", "lite"] as const)(
    "%s keeps only the seven essential built-ins and the always-available tools (host tools by tier)",
    async (profile) => {
      const run = registry().createRun({ profile });
      // AskUserQuestion is always available (issue 19.4): no profile but none turns it off.
      expect(names(run)).toEqual(["find_tool", ...ESSENTIAL, "AskUserQuestion", "deploy"]);
      expect(errorCode(await run.call("undo", {}))).toBe("tool_disabled");
      expect(run.activate(["git_log_search"]).activated).toEqual([]);
      expect(run.activate(["billing_report"]).activated).toEqual(["billing_report"]);
    },
  );

  it("none sends nothing and calls nothing", async () => {
    const run = registry().createRun({ profile: "none" });
    expect(names(run)).toEqual([]);
    expect(errorCode(await run.call("read", {}))).toBe("tool_disabled");
  });

  it("an explicit allow-list makes a non-listing run: listed tools come back eager", () => {
    const run = registry().createRun({ allowedTools: ["read", "undo"], environment: {} });
    expect(run.loading.listing).toBe(false);
    expect(names(run)).toEqual(["find_tool", "read", "undo", "AskUserQuestion"]);
    expect(run.systemPromptIndex()).toBeUndefined();
  });
});

describe("choosing a profile", () => {
  it("takes the option, then AGENT_TOOL_PROFILE, then the config file, then core", () => {
    const config = parseToolConfig('[tools]\nprofile = "minimal"\n');
    expect(registry().createRun({ profile: "acp", environment: { AGENT_TOOL_PROFILE: "full" }, config }).loading.profile).toBe(
      "acp",
    );
    expect(registry().createRun({ environment: { AGENT_TOOL_PROFILE: "full" }, config }).loading.profile).toBe("full");
    expect(registry().createRun({ environment: {}, config }).loading.profile).toBe("minimal");
    expect(registry().createRun({ environment: {} }).loading.profile).toBe("core");
  });

  it("refuses unknown profiles, modes and malformed config with the field named", () => {
    expect(() => registry().createRun({ profile: "max" as never })).toThrowError(
      /profile must be one of core, full, acp, minimal, lite, none; got "max"/,
    );
    expect(() => registry().createRun({ environment: { AGENT_TOOL_PROFILE: "huge" } })).toThrowError(
      /AGENT_TOOL_PROFILE must be one of/,
    );
    expect(() => registry().createRun({ loadModes: { read: "lazy" as never } })).toThrowError(
      /loadModes.read must be one of essential, discoverable, off/,
    );
    expect(() => parseToolConfig("[tools]\nprofile = 3")).toThrowError(/tools.profile must be one of/);
    expect(() => parseToolConfig('[tools.load_mode]\nbatch = "sometimes"')).toThrowError(
      /tools.load_mode.batch must be one of essential, discoverable, off/,
    );
    expect(() => parseToolConfig("[tools\nprofile=")).toThrowError(/not valid TOML/);
    expect(() => parseToolConfig("[tools]\ndisabled = [1]")).toThrowError(/tools.disabled must be an array of tool names/);
  });

  it("parses the whole [tools] table", () => {
    expect(
      parseToolConfig(
        '[tools]\nprofile = "core"\nredo = true\nhashline_edit = false\ndisabled = ["glob"]\n[tools.load_mode]\nbatch = "off"\nmemory = "essential"\n',
      ),
    ).toEqual({
      profile: "core",
      redo: true,
      hashlineEdit: false,
      disabled: ["glob"],
      loadModes: { batch: "off", memory: "essential" },
    });
    expect(parseToolConfig("[other]\nx = 1")).toEqual({});
  });
});

describe("load-mode overrides", () => {
  it("moves single tools: off, essential (also a deferred one), discoverable", async () => {
    const run = registry().createRun({
      environment: {},
      loadModes: { glob: "off", git_log_search: "essential", AskUserQuestion: "essential", deploy: "discoverable" },
    });
    expect(names(run)).toEqual(["find_tool", "toolbox", ...ESSENTIAL, "AskUserQuestion", "git_log_search"]);
    expect(run.systemPromptIndex()).toContain("- deploy: Host tool deploy.");
    expect(run.systemPromptIndex()).not.toContain("glob");
    expect(errorCode(await run.call("glob", {}))).toBe("tool_disabled");
  });

  it("toolbox off turns listing off and puts the listed tools back on the eager surface", () => {
    for (const run of [
      registry().createRun({ environment: {}, loadModes: { toolbox: "off" } }),
      registry().createRun({ environment: {}, disabledTools: ["toolbox"] }),
      registry().createRun({ environment: {}, config: parseToolConfig('[tools]\ndisabled = ["toolbox"]') }),
    ]) {
      expect(run.loading.listing).toBe(false);
      expect(names(run)).toEqual(["find_tool", ...ESSENTIAL, "undo", "todo", "web_fetch", "AskUserQuestion", "glob", "deploy"]);
    }
  });

  it("promotes an explicit discoverable toolbox to essential", () => {
    const run = registry().createRun({ environment: {}, loadModes: { toolbox: "discoverable" } });
    expect(names(run)).toContain("toolbox");
    expect(run.systemPromptIndex()).toContain("- undo:");
  });
});

describe("the index description cut", () => {
  const indexRow = (description: string) => {
    const run = createRegistry({ tools: [builtin("probe", description)] }).createRun({ environment: {} });
    return (run.systemPromptIndex() ?? "").split("\n").at(-1) ?? "";
  };

  it.each([
    ["Short one.", "- probe: Short one."],
    ["First sentence here. Second sentence is not shown.", "- probe: First sentence here."],
    ["\n\n   \nFirst non-empty line wins\nnot this one.", "- probe: First non-empty line wins"],
    ["A".repeat(80), `- probe: ${"A".repeat(57)}...`],
    [
      "Élégante dépêche: télécharger les données météorologiques détaillées de la région.",
      "- probe: Élégante dépêche: télécharger les données météorologiques...",
    ],
    ["天気予報を取得します。詳細は別。", "- probe: 天気予報を取得します。詳細は別。"],
    ["🙂".repeat(70), `- probe: ${"🙂".repeat(57)}...`],
  ])("cuts %j to at most 60 characters", (description, expected) => {
    const row = indexRow(description);
    expect(row).toBe(expected);
    expect([...row.slice("- probe: ".length)].length).toBeLessThanOrEqual(60);
  });
});

describe("stability across turns", () => {
  it("keeps the bytes of the tool list and the index unless a tool is activated", () => {
    const shared = registry();
    const run = shared.createRun({ environment: {} });
    const tools = JSON.stringify(run.definitions());
    const index = run.systemPromptIndex();
    for (let turn = 0; turn < 5; turn++) {
      expect(JSON.stringify(run.definitions())).toBe(tools);
      expect(run.systemPromptIndex()).toBe(index);
    }
    run.activate(["git_log_search"]);
    expect(JSON.stringify(run.definitions())).not.toBe(tools);
    expect(run.systemPromptIndex()).toBe(index);
  });

  it("freezes the index and the tiers at the first tool list; a restored run rebuilds them", () => {
    const shared = registry();
    const loadModes: Record<string, "off" | "essential"> = {};
    const run = shared.createRun({ environment: {}, loadModes });
    const index = run.systemPromptIndex();
    loadModes.todo = "off"; // a configuration reload after the run started
    shared.register(builtin("monitor", "Watch a process."));
    expect(run.systemPromptIndex()).toBe(index);
    expect(names(run)).not.toContain("monitor");
    const restored = shared.createRun({ environment: {}, activation: run.toJSON().activation, loadModes });
    expect(restored.systemPromptIndex()).toContain("- monitor: Watch a process.");
    expect(restored.systemPromptIndex()).not.toContain("- todo:");
  });
});

describe("skill constraints", () => {
  it("narrow the visible tools while active, keeping AskUserQuestion, find_tool and skill", async () => {
    const run = registry().createRun({ profile: "acp" });
    const release = run.applySkillConstraint("review", ["read", "grep"]);
    expect(names(run)).toEqual(["find_tool", "read", "grep", "AskUserQuestion"]);
    expect(errorCode(await run.call("write", { x: "a" }))).toBe("tool_not_allowed");
    const inner = run.applySkillConstraint("nested", ["read"]);
    expect(names(run)).toEqual(["find_tool", "read", "AskUserQuestion"]);
    inner();
    release();
    expect(run.activeSkills()).toEqual([]);
    expect(names(run)).toContain("write");
    expect(() => run.applySkillConstraint("bad", "read" as never)).toThrowError(/allowed-tools must be a list/);
  });
});

describe("always-available tools in a listing run", () => {
  it("keeps toolbox reachable under a skill constraint, so listed AskUserQuestion still works", async () => {
    const run = registry().createRun({ environment: {} });
    run.applySkillConstraint("review", ["read"]);
    expect(names(run)).toEqual(["find_tool", "toolbox", "read"]);
    expect(ok(await run.call("toolbox", { action: "run", tool: "AskUserQuestion", args: {} }))).toBe("AskUserQuestion:");
    expect(errorCode(await run.call("toolbox", { action: "run", tool: "todo", args: {} }))).toBe("unknown_tool");
  });
});
