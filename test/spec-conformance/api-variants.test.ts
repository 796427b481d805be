/**
 * Spec conformance, variants round 2 (/work/shared/spec/agent-tool-catalog.md "Default
 * permissions", "find_tool", "Enabling conditions"; tool-profiles-and-loading.md "Three loading
 * tiers"): the statements behind the public API that round 1 did not vary: the approval broker's
 * timeouts and what a decision covers, defineTool's checks, the `[tools]` table, the fake-model
 * helpers of `agent-tool-catalog/testing`. Each area is also checked once through the built
 * package from CommonJS (`require`), as a CommonJS user loads it. Statement table:
 * docs/spec-conformance.md.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRegistry,
  defineTool,
  InMemoryApprovalBroker,
  parseToolConfig,
  resolvePermissionConfig,
  toolContent,
} from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { InMemoryQuestionBroker, ManualClock, parseAgentProfile } from "agent-tool-catalog/host";
import {
  openAIChatRequest,
  openAIChatTools,
  openAIResponsesRequest,
  runOpenAIChatToolCalls,
  runOpenAIResponsesFunctionCalls,
} from "agent-tool-catalog/openai";
import {
  expectCalled,
  expectToolsHidden,
  expectToolsVisible,
  runToolLoop,
  ScriptedModel,
  ScriptMismatchError,
} from "agent-tool-catalog/testing";
import { createBashTool, createFileTools, createReadTool, createWriteTool, fileToolGroup } from "agent-tool-catalog/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { commonJsBatch, modelError, ok } from "./support.js";

// The "from CommonJS" tests' scripts run in one node for the file, not one each.
const commonJs = commonJsBatch();

const mutatingTool = defineTool({
  name: "write_note",
  description: "Write a note.",
  mutating: true,
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => `wrote ${text}`,
});

describe("approval broker: timeouts and what one decision covers", () => {
  it("a timeout under a second, or of a fraction of a second, is said as it was set (not 'within 0 s')", async () => {
    const registry = createRegistry({ tools: [mutatingTool] });
    const said = async (approvalTimeoutMs: number) => {
      const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs });
      return modelError(await run.call("write_note", { text: "a" }), "approval_denied").message;
    };
    // Whole seconds read as before (the broker's own timeout, without a run).
    const broker = new InMemoryApprovalBroker({ timeoutMs: 1_000 });
    const [short, fraction, whole] = await Promise.all([
      said(150),
      said(1_100),
      broker.request({ runId: "r", callId: "c", toolName: "write_note", input: {}, mutating: true, policy: "destructive" }),
    ]);
    expect(short).toContain("nobody approved it within 150 ms.");
    expect(fraction).toContain("nobody approved it within 1.1 s.");
    expect(whole).toMatchObject({ decision: "denied", resolvedBy: "timeout", reason: "nobody approved it within 1 s" });
  });

  it("a question nobody answers says the wait that was set", async () => {
    const clock = new ManualClock(0);
    const broker = new InMemoryQuestionBroker({ clock, timeoutMs: 400 });
    const question = { id: "q1", runId: "r", conversationId: "c", question: "Deploy?", options: [], multiSelect: false };
    const asked = broker.ask(question, new AbortController().signal).then(
      () => "answered",
      (error: unknown) => error,
    );
    await clock.advance(400);
    await expect(asked).resolves.toMatchObject({ code: "question_timeout", message: "The user did not answer within 400 ms." });
  });

  it("an approval covers its own call only: the next identical call asks again (no 'always allow')", async () => {
    const registry = createRegistry({ tools: [mutatingTool] });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const requested: string[] = [];
    registry.approvals.events.on("approval.requested", (request) => {
      requested.push(request.id);
      registry.approvals.approve(request.id);
    });
    expect(ok(await run.call("write_note", { text: "a" }))).toBe("wrote a");
    expect(ok(await run.call("write_note", { text: "a" }))).toBe("wrote a");
    expect(requested).toHaveLength(2);
    expect(new Set(requested).size).toBe(2);
  });

  const timeoutFromCjs = commonJs.script(`
      const { createRegistry, defineTool } = require("agent-tool-catalog");
      const tool = defineTool({ name: "w", description: "W.", mutating: true, inputSchema: { type: "object" }, handler: () => "w" });
      createRegistry({ tools: [tool] }).createRun({ permissions: { approval: "all" }, approvalTimeoutMs: 120 })
        .call("w", {}).then((result) => console.log(JSON.stringify(result.error.message)));`);
  it("from CommonJS: the same short timeout message", () => {
    const message = timeoutFromCjs();
    expect(message).toContain("within 120 ms");
  });
});

describe("defineTool: what a definition must be", () => {
  const base = { name: "note", description: "A note.", inputSchema: { type: "object" }, handler: () => "ran" } as const;
  const refusal = (definition: object): { code: string; message: string; data: unknown } => {
    try {
      defineTool(definition as never);
    } catch (error) {
      return error as { code: string; message: string; data: unknown };
    }
    throw new Error(`accepted ${JSON.stringify(definition)}`);
  };

  it("names providers refuse, duplicates (also of find_tool, also inside one group) and broken schemas are refused with their field", () => {
    expect(refusal({ ...base, name: "a b" })).toMatchObject({ code: "invalid_tool_name" });
    expect(refusal({ ...base, name: "x".repeat(65) }).message).toContain("at most 64");
    expect(refusal({ ...base, name: "ünïcode" })).toMatchObject({ code: "invalid_tool_name" });
    expect(refusal({ ...base, description: "  " })).toMatchObject({ code: "invalid_tool_description" });
    expect(refusal({ ...base, tier: "Core" })).toMatchObject({ code: "invalid_tool_tier" });
    expect(refusal({ ...base, inputSchema: { type: "array" } })).toMatchObject({ code: "invalid_input_schema" });
    expect(
      refusal({ ...base, inputSchema: { type: "object", properties: { p: { type: "string", pattern: "(" } } } }).message,
    ).toContain("not a valid regular expression");
    expect(refusal({ ...base, inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/nope" } } } }).message).toContain(
      "does not exist",
    );
    const registry = createRegistry({ tools: [defineTool(base)] });
    for (const name of ["note", "find_tool"]) {
      expect(() => registry.register(defineTool({ ...base, name }))).toThrowError(
        expect.objectContaining({ code: "duplicate_tool_name" }),
      );
    }
    expect(() =>
      registry.registerGroup({ name: "pair", tools: [defineTool({ ...base, name: "a" }), defineTool({ ...base, name: "a" })] }),
    ).toThrowError(expect.objectContaining({ code: "duplicate_tool_name" }));
    // Nothing of the refused group was registered; names differing in case are two tools.
    expect(registry.list().map((tool) => tool.name)).not.toContain("a");
    expect(() => registry.register(defineTool({ ...base, name: "Note" }))).not.toThrow();
  });

  it("mutating must be a boolean: 'yes' or 1 was read as not mutating, and the tool ran without approval", async () => {
    for (const mutating of ["yes", "true", 1, null]) {
      const error = refusal({ ...base, mutating });
      expect(error.code, String(mutating)).toBe("invalid_tool_field");
      expect(error.data).toMatchObject({ field: "mutating" });
      expect(error.message).toContain("mutating must be true or false");
      // The registry checks a plain object the same way (no defineTool).
      expect(() => createRegistry({ tools: [{ ...base, mutating } as never] })).toThrowError(
        expect.objectContaining({ code: "invalid_tool_field" }),
      );
    }
    // Positive control: true asks (and is denied at the timeout), false runs unasked.
    const registry = createRegistry({
      tools: [defineTool({ ...base, mutating: true }), defineTool({ ...base, name: "read_note", mutating: false })],
    });
    const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 50 });
    modelError(await run.call("note", {}), "approval_denied");
    expect(ok(await run.call("read_note", {}))).toBe("ran");
  });

  it("tags must be non-empty strings", () => {
    expect(refusal({ ...base, tags: "git" })).toMatchObject({ code: "invalid_tool_field", data: { field: "tags" } });
    expect(refusal({ ...base, tags: ["git", 7] })).toMatchObject({ code: "invalid_tool_field", data: { field: "tags[1]" } });
    expect(refusal({ ...base, tags: ["git", " "] })).toMatchObject({ code: "invalid_tool_field", data: { field: "tags[1]" } });
    expect(defineTool({ ...base, tags: ["git", "git"] }).tags).toEqual(["git", "git"]);
    // Review finding: a Set of tags (any iterable of words) worked before the check and still does.
    const registry = createRegistry({ tools: [defineTool({ ...base, tags: new Set(["git", "notes"]) as never })] });
    expect(registry.list().find((tool) => tool.name === "note")?.tags).toEqual(["git", "notes"]);
    expect(refusal({ ...base, tags: new Set(["git", 7]) })).toMatchObject({
      code: "invalid_tool_field",
      data: { field: "tags[1]" },
    });
  });

  const refusalsFromCjs = commonJs.script(`
      const { defineTool, ToolDefinitionError } = require("agent-tool-catalog");
      const base = { name: "note", description: "A note.", inputSchema: { type: "object" }, handler: () => "ran" };
      const code = (extra) => { try { defineTool({ ...base, ...extra }); return "accepted"; } catch (e) { return [e instanceof ToolDefinitionError, e.code]; } };
      console.log(JSON.stringify([code({ mutating: "yes" }), code({ name: "a b" }), code({ mutating: true })]));`);
  it("from CommonJS: the same refusals", () => {
    const codes = refusalsFromCjs();
    expect(codes).toEqual([[true, "invalid_tool_field"], [true, "invalid_tool_name"], "accepted"]);
  });
});

describe("the [tools] table: odd files, unknown profiles, conflicting settings", () => {
  const configError = (text: string): { code: string; message: string; data?: unknown } => {
    try {
      parseToolConfig(text);
    } catch (error) {
      return error as { code: string; message: string };
    }
    throw new Error(`accepted ${JSON.stringify(text)}`);
  };

  it('a misspelled [tools] key is refused with the closest key (it left its default: profle = "full" ran the core profile)', () => {
    expect(configError('[tools]\nprofle = "full"')).toMatchObject({
      code: "invalid_tool_config",
      data: { field: "tools.profle" },
      message: expect.stringContaining('did you mean "profile"'),
    });
    expect(configError('[tools]\ndisable = ["bash"]').message).toContain('did you mean "disabled"');
    expect(configError('[tools."load-mode"]\nbash = "off"').message).toContain('did you mean "load_mode"');
    // Positive control: the five keys, and other tables of the same file, are read or left alone.
    expect(
      parseToolConfig(
        '[tools]\nprofile = "full"\ndisabled = ["bash"]\nredo = true\nhashline_edit = false\n[tools.load_mode]\nls = "off"\n[tool]\nprofile = "none"\n[model]\nname = "x"',
      ),
    ).toEqual({ profile: "full", disabled: ["bash"], redo: true, hashlineEdit: false, loadModes: { ls: "off" } });
    expect(parseToolConfig("")).toEqual({});
  });

  it("a profile file with a misspelled [tools] key fails validation, as a misspelled top-level key does", () => {
    const parsed = parseAgentProfile('description = "Reviewer"\n[tools]\nprofle = "minimal"\n', "reviewer");
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.issues).toEqual([
      { field: "tools", message: expect.stringContaining('did you mean "profile"') },
    ]);
    // Control: spelled right, it is read.
    const good = parseAgentProfile('description = "Reviewer"\n[tools]\nprofile = "minimal"\n', "reviewer");
    expect(good.ok && good.profile.tools).toEqual({ profile: "minimal" });
  });

  it("unknown profiles are refused with the valid names, in the file and in createRun; case and spaces are not forgiven", () => {
    for (const profile of ["Core", "fulll", "", " core", "3"]) {
      expect(configError(`[tools]\nprofile = ${JSON.stringify(profile)}`)).toMatchObject({ code: "invalid_tool_profile" });
      expect(() => createRegistry().createRun({ profile: profile as never })).toThrowError(
        expect.objectContaining({
          code: "invalid_tool_profile",
          message: expect.stringContaining("core, full, acp, minimal, lite, none"),
        }),
      );
    }
    expect(configError("[tools]\nprofile = 3")).toMatchObject({ code: "invalid_tool_profile" });
    // A key given twice is not valid TOML, not "the last one wins".
    expect(configError('[tools]\nprofile = "core"\nprofile = "full"')).toMatchObject({ code: "invalid_tool_config" });
  });

  it("a tool both essential and disabled is off (off wins over any load mode)", async () => {
    const config = parseToolConfig('[tools]\ndisabled = ["note"]\n[tools.load_mode]\nnote = "essential"');
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "note",
          description: "A note.",
          tier: "deferred",
          inputSchema: { type: "object" },
          handler: () => "n",
        }),
      ],
    });
    const run = registry.createRun({ loadModes: config.loadModes ?? {}, disabledTools: config.disabled ?? [] });
    expect(run.definitions().map((tool) => tool.name)).toEqual(["find_tool"]);
    modelError(await run.call("note", {}), "tool_disabled");
    // Control: essential alone sends it.
    expect(
      registry
        .createRun({ loadModes: config.loadModes ?? {} })
        .definitions()
        .map((tool) => tool.name),
    ).toContain("note");
  });

  const misspelledKeyFromCjs = commonJs.script(`
      const { parseToolConfig } = require("agent-tool-catalog");
      try { parseToolConfig('[tools]\\nprofle = "full"'); console.log(JSON.stringify("accepted")); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`);
  it("from CommonJS: the misspelled key", () => {
    const error = misspelledKeyFromCjs();
    expect(error).toMatchObject({ code: "invalid_tool_config", message: expect.stringContaining('did you mean "profile"') });
  });
});

describe("file and shell tool factories: the workspace is the run's, an unknown option is refused", () => {
  it("createFileTools({ workspace }) is refused, saying where the workspace goes (it was ignored: writes landed in the process's directory)", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "spec-av-"));
    const elsewhere = mkdtempSync(join(tmpdir(), "spec-av-cwd-"));
    const options = { workspace } as object;
    for (const factory of [createFileTools, fileToolGroup, createWriteTool, createReadTool, createBashTool] as const) {
      expect(() => factory(options as never), factory.name).toThrowError(
        expect.objectContaining({
          code: "invalid_option",
          data: { field: "workspace" },
          message: expect.stringContaining("createRun({ permissions: { workspace } })"),
        }),
      );
    }
    expect(() => createFileTools({ rooot: workspace } as never)).toThrowError(
      expect.objectContaining({ message: expect.stringContaining('Did you mean "root"?') }),
    );
    expect(() => createBashTool({ shel: "/bin/sh" } as never)).toThrowError(expect.objectContaining({ data: { field: "shel" } }));
    // Positive controls: the run's workspace, or root, decides where a relative path goes.
    const byRun = createRegistry({ tools: createFileTools({ root: elsewhere }) }).createRun({
      profile: "full",
      permissions: { sandbox: "unrestricted", workspace },
    });
    ok(await byRun.call("write", { path: "a.txt", content: "run" }));
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("run");
    const byRoot = createRegistry({ tools: createFileTools({ root: elsewhere, redo: true }) }).createRun({
      profile: "full",
    });
    ok(await byRoot.call("write", { path: "b.txt", content: "root" }));
    expect(readFileSync(join(elsewhere, "b.txt"), "utf8")).toBe("root");
    expect(existsSync(join(workspace, "b.txt"))).toBe(false);
  });

  it("the tools' own argument checks name the field: bash, ls, grep", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "spec-av-"));
    writeFileSync(join(workspace, "f.txt"), "x\n");
    const run = createRegistry({ tools: [createBashTool(), ...createFileTools()] }).createRun({
      profile: "full",
      permissions: { sandbox: "unrestricted", workspace },
    });
    modelError(await run.call("bash", { command: "" }), "invalid_input", "command");
    modelError(await run.call("bash", { command: "true", timeout_seconds: 0.5 }), "invalid_input", "timeout_seconds");
    modelError(await run.call("bash", { command: "true", timeout_seconds: 1801 }), "invalid_input", "timeout_seconds");
    modelError(await run.call("bash", { command: "true", timeout_seconds: "5" }), "invalid_input", "timeout_seconds");
    expect(modelError(await run.call("bash", { command: "true", cwd: "nope" }), "invalid_command").message).toContain(
      "does not exist",
    );
    expect(modelError(await run.call("bash", { command: "true", cwd: "f.txt" }), "invalid_command").message).toContain(
      "is not a directory",
    );
    modelError(await run.call("grep", { pattern: "(" }), "invalid_pattern");
    modelError(await run.call("ls", { path: "nope" }), "file_not_found");
    // Control: a valid call of each.
    expect(String(ok(await run.call("bash", { command: "echo hi", timeout_seconds: 5 })))).toContain("hi");
  });

  const workspaceOptionFromCjs = commonJs.script(`
      const { createFileTools } = require("agent-tool-catalog/tools");
      try { createFileTools({ workspace: "/tmp" }); console.log(JSON.stringify("accepted")); }
      catch (e) { console.log(JSON.stringify({ code: e.code, field: e.data.field })); }`);
  it("from CommonJS: the same refusal", () => {
    const error = workspaceOptionFromCjs();
    expect(error).toEqual({ code: "invalid_option", field: "workspace" });
  });
});

describe("adapters: request options and result shapes", () => {
  const adapterRegistry = () =>
    createRegistry({
      tools: [
        defineTool({
          name: "count",
          description: "Count.",
          inputSchema: z.object({ n: z.number().optional() }),
          handler: ({ n }) => `n=${n}`,
        }),
        defineTool({ name: "later", description: "Later.", tier: "deferred", inputSchema: z.object({}), handler: () => "l" }),
      ],
    });

  it("allowedToolsMode and the switches are checked: 'Required' reached OpenAI (a 400 for the whole request), strict: 'yes' sent nothing strict", () => {
    const run = adapterRegistry().createRun();
    for (const build of [openAIChatRequest, openAIResponsesRequest] as const) {
      expect(() => build(run, { allowedToolsChoice: true, allowedToolsMode: "Required" as never }), build.name).toThrowError(
        expect.objectContaining({ code: "invalid_option", data: expect.objectContaining({ field: "allowedToolsMode" }) }),
      );
      expect(() => build(run, { strict: "yes" as never })).toThrowError(
        expect.objectContaining({ code: "invalid_option", data: { field: "strict" } }),
      );
      // A mode without allowedToolsChoice would be dropped (no tool_choice is sent).
      expect(() => build(run, { allowedToolsMode: "required" })).toThrowError(
        expect.objectContaining({ code: "conflicting_options" }),
      );
      // Review finding: `allowedToolsChoice: flag` with a fixed mode is a host switching it off
      // knowingly (accepted before the check): no tool_choice is sent, nothing is refused.
      expect(
        (build(run, { allowedToolsChoice: false, allowedToolsMode: "required" }) as { tool_choice?: unknown }).tool_choice,
      ).toBe(undefined);
    }
    expect(() => openAIChatTools(run, { strict: 1 as never })).toThrowError(
      expect.objectContaining({ data: { field: "strict" } }),
    );
    expect(() => createAiSdkTools(run, { approvalFlow: "ai_sdk" as never })).toThrowError(
      expect.objectContaining({ code: "invalid_option", data: expect.objectContaining({ field: "approvalFlow" }) }),
    );
    // Positive controls: the valid values build the request they name.
    expect(openAIChatRequest(run, { allowedToolsChoice: true, allowedToolsMode: "required" }).tool_choice).toMatchObject({
      type: "allowed_tools",
      allowed_tools: { mode: "required", tools: [{ function: { name: "find_tool" } }, { function: { name: "count" } }] },
    });
    expect(
      openAIResponsesRequest(run, { allowedToolsChoice: true, strict: true }).tools?.map((tool) =>
        "name" in tool ? tool.name : tool.type,
      ),
    ).toEqual(["find_tool", "count", "later"]);
    expect(Object.keys(createAiSdkTools(run, { approvalFlow: "ai-sdk" }).tools)).toEqual(["find_tool", "count", "later"]);
  });

  it("one turn with parallel calls: every call answered in order, errors flagged, a repeated id not run, an image in each provider's shape", async () => {
    const registry = createRegistry({
      tools: [
        registryTool("count"),
        registryTool("later"),
        defineTool({
          name: "picture",
          description: "Picture.",
          inputSchema: z.object({}),
          handler: () => toolContent([{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }]),
        }),
      ],
    });
    const run = registry.createRun();
    const anthropic = await runAnthropicToolUses(run, [
      { type: "tool_use", id: "a", name: "count", input: { n: 1 } },
      { type: "tool_use", id: "b", name: "later", input: {} },
      { type: "tool_use", id: "a", name: "count", input: { n: 2 } },
      { type: "tool_use", id: "c", name: "picture", input: {} },
    ] as never);
    expect(anthropic.map((block) => [block.tool_use_id, block.is_error === true])).toEqual([
      ["a", false],
      ["b", true],
      ["a", true],
      ["c", false],
    ]);
    expect(JSON.stringify(anthropic[1]?.content)).toContain("tool_not_activated");
    expect(JSON.stringify(anthropic[2]?.content)).toContain("duplicate_call_id");
    expect(anthropic[3]?.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ]);
    const responses = await runOpenAIResponsesFunctionCalls(run, [
      { type: "function_call", call_id: "x", name: "count", arguments: '{"n":null}' },
      { type: "function_call", call_id: "y", name: "picture", arguments: "{}" },
    ] as never);
    // A strict model's null for an optional field is dropped before validation.
    expect(responses[0]).toEqual({ type: "function_call_output", call_id: "x", output: "n=undefined" });
    expect(responses[1]).toMatchObject({
      call_id: "y",
      output: [{ type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" }],
    });
    const chat = await runOpenAIChatToolCalls(run, [
      { id: "p", type: "function", function: { name: "picture", arguments: "{}" } },
      { id: "q", type: "function", function: { name: "count", arguments: "{bad" } },
    ]);
    expect(chat.map((message) => message.role)).toEqual(["tool", "tool", "user"]);
    expect(JSON.stringify(chat[1])).toContain("not valid JSON");
  });

  const adaptersFromCjs = commonJs.script(`
      const { createRegistry } = require("agent-tool-catalog");
      const { openAIChatRequest } = require("agent-tool-catalog/openai");
      const { anthropicTools } = require("agent-tool-catalog/anthropic");
      const { createAiSdkTools } = require("agent-tool-catalog/ai-sdk");
      const run = createRegistry().createRun();
      const code = (f) => { try { f(); return "accepted"; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        mode: code(() => openAIChatRequest(run, { allowedToolsChoice: true, allowedToolsMode: "bogus" })),
        flow: code(() => createAiSdkTools(run, { approvalFlow: "bogus" })),
        anthropic: anthropicTools(run).map((tool) => tool.name),
      }));`);
  it("from CommonJS: the adapters load and check their options", () => {
    const result = adaptersFromCjs();
    expect(result).toEqual({ mode: "invalid_option", flow: "invalid_option", anthropic: ["find_tool"] });
  });
});

function registryTool(name: string) {
  return name === "count"
    ? defineTool({
        name,
        description: "Count.",
        inputSchema: z.object({ n: z.number().optional() }),
        handler: ({ n }) => `n=${n}`,
      })
    : defineTool({ name, description: "Later.", tier: "deferred", inputSchema: z.object({}), handler: () => "l" });
}

describe("find_tool, host groups at run time, the fake-model helpers", () => {
  const deferred = (name: string) =>
    defineTool({
      name,
      description: `The ${name.replaceAll("_", " ")} tool.`,
      tier: "deferred",
      inputSchema: z.object({}),
      handler: () => name,
    });

  it("find_tool: limit bounds keywords (1..20), select: takes several names whatever the limit, and the result has the fixed fields", async () => {
    const registry = createRegistry({ tools: Array.from({ length: 8 }, (_, index) => deferred(`alpha_${index}`)) });
    const run = registry.createRun();
    const found = ok(await run.call("find_tool", { query: "alpha tool", limit: 2 })) as Record<string, unknown>;
    expect(Object.keys(found).sort()).toEqual(["activated", "already_available", "message", "not_found", "via_toolbox"]);
    expect(found.activated).toHaveLength(2);
    modelError(await run.call("find_tool", { query: "alpha", limit: 0 }), "invalid_input", "limit");
    modelError(await run.call("find_tool", { query: "alpha", limit: 21 }), "invalid_input", "limit");
    const selected = ok(await run.call("find_tool", { query: "select:alpha_5,alpha_6,alpha_7", limit: 1 })) as {
      activated: { name: string }[];
    };
    expect(selected.activated.map((tool) => tool.name)).toEqual(["alpha_5", "alpha_6", "alpha_7"]);
    modelError(await run.call("find_tool", { queries: ["select:alpha_1", "alpha"] }), "invalid_input");
  });

  it("a group tool disabled at run time is refused and hidden, enabled again it is back and still active; a group name taken by a core tool registers nothing", async () => {
    const registry = createRegistry({
      tools: [defineTool({ name: "read", description: "Read.", inputSchema: z.object({}), handler: () => "r" })],
    });
    const handles = registry.registerGroup({ name: "notes", tools: [deferred("note_find")] });
    const run = registry.createRun();
    ok(await run.call("find_tool", { query: "select:note_find" }));
    expect(run.definitions().map((tool) => tool.name)).toContain("note_find");
    handles?.[0]?.disable();
    expect(run.definitions().map((tool) => tool.name)).not.toContain("note_find");
    modelError(await run.call("note_find", {}), "unknown_tool");
    handles?.[0]?.enable();
    expect(ok(await run.call("note_find", {}))).toBe("note_find");
    expect(() => registry.registerGroup({ name: "clash", tools: [deferred("clash_ok"), deferred("read")] })).toThrowError(
      expect.objectContaining({ code: "duplicate_tool_name", message: expect.stringContaining('Group "clash"') }),
    );
    expect(registry.list().map((tool) => tool.name)).not.toContain("clash_ok");
    expect(registry.registerGroup({ name: "off", enabled: () => false, tools: [deferred("never")] })).toBeUndefined();
  });

  it("runToolLoop: a scripted turn with two calls in parallel, the assertions, and a script that ends early or runs out", async () => {
    const run = createRegistry({ tools: [deferred("slow_b")] }).createRun();
    const model = new ScriptedModel([
      { expectHidden: ["slow_b"], respond: { toolCalls: [{ name: "find_tool", args: { query: "select:slow_b" } }] } },
      {
        expectVisible: ["slow_b"],
        respond: {
          toolCalls: [
            { name: "slow_b", args: {} },
            { id: "same", name: "slow_b", args: "{}" },
            { id: "same", name: "slow_b" },
          ],
        },
      },
      { respond: { text: "done" } },
    ]);
    const transcript = await runToolLoop(run, model, { prompt: "go", parallelCalls: true });
    expect(transcript.calls.map((call) => (call.result.ok ? "ok" : call.result.error.code))).toEqual([
      "ok",
      "ok",
      "ok",
      "duplicate_call_id",
    ]);
    expectToolsHidden(transcript, 1, ["slow_b"]);
    expectToolsVisible(transcript, 2, ["slow_b"]);
    expect(expectCalled(transcript, "slow_b")).toHaveLength(2);
    expect(() => expectToolsVisible(transcript, 4, ["slow_b"])).toThrowError(ScriptMismatchError);
    await expect(
      runToolLoop(run, new ScriptedModel([{ respond: { text: "a" } }, { respond: { text: "b" } }]), { prompt: "x" }),
    ).rejects.toThrowError(/1 scripted step was never played/);
    await expect(
      runToolLoop(run, new ScriptedModel([{ respond: { toolCalls: [{ name: "slow_b" }] } }]), { prompt: "x" }),
    ).rejects.toThrowError(/Unexpected turn 2/);
  });

  const testingEntryFromCjs = commonJs.script(`
      const { createRegistry, defineTool } = require("agent-tool-catalog");
      const { ScriptedModel, runToolLoop, expectCalled } = require("agent-tool-catalog/testing");
      const tool = defineTool({ name: "ping", description: "Ping.", tier: "deferred", inputSchema: { type: "object" }, handler: () => "pong" });
      const run = createRegistry({ tools: [tool] }).createRun();
      const model = new ScriptedModel([
        { respond: { toolCalls: [{ name: "find_tool", args: { query: "select:ping" } }] } },
        { expectVisible: ["ping"], respond: { toolCalls: [{ name: "ping", args: {} }] } },
        { respond: { text: "done" } },
      ]);
      runToolLoop(run, model, { prompt: "go" }).then((transcript) =>
        console.log(JSON.stringify({ calls: expectCalled(transcript, "ping").length, text: transcript.finalText })));`);
  it("from CommonJS: the testing entry drives a run", () => {
    const result = testingEntryFromCjs();
    expect(result).toEqual({ calls: 1, text: "done" });
  });
});

describe("permission config: defaults and odd values", () => {
  it("null for a field, or an array for the whole, is refused (null approval was read as the default: no approval asked)", async () => {
    for (const field of ["sandbox", "approval", "workspace"]) {
      expect(() => resolvePermissionConfig({ [field]: null } as never), field).toThrowError(
        expect.objectContaining({ code: "invalid_permission_config", data: { field: `permissions.${field}` } }),
      );
      expect(() => createRegistry().createRun({ permissions: { [field]: null } as never })).toThrowError(
        expect.objectContaining({ code: "invalid_permission_config" }),
      );
    }
    expect(() => resolvePermissionConfig([] as never)).toThrowError(
      expect.objectContaining({ message: expect.stringContaining("an array") }),
    );
    // Positive controls: left out is the spec's default; each value as given; case is not forgiven.
    expect(resolvePermissionConfig({})).toEqual({ sandbox: "unrestricted", approval: "none", workspace: undefined });
    expect(resolvePermissionConfig({ approval: "all", sandbox: "local" })).toMatchObject({ approval: "all", sandbox: "local" });
    expect(() => resolvePermissionConfig({ approval: "All" as never })).toThrowError(
      expect.objectContaining({ code: "invalid_permission_config" }),
    );
    expect(() => resolvePermissionConfig({ aproval: "all" } as never)).toThrowError(
      expect.objectContaining({ message: expect.stringContaining('did you mean "approval"') }),
    );
  });

  const nullApprovalFromCjs = commonJs.script(`
      const { resolvePermissionConfig } = require("agent-tool-catalog");
      try { resolvePermissionConfig({ approval: null }); console.log(JSON.stringify("accepted")); }
      catch (e) { console.log(JSON.stringify(e.code)); }`);
  it("from CommonJS: null is refused", () => {
    const code = nullApprovalFromCjs();
    expect(code).toBe("invalid_permission_config");
  });
});

describe("toolbox: a listed tool's invalid input", () => {
  it("names the listed tool's fields under args (the issues were dropped: only the message came through)", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "spec-av-"));
    const run = createRegistry({ tools: createFileTools() }).createRun({ permissions: { workspace } });
    expect(run.systemPromptIndex()).toContain("- glob: ");
    const missing = modelError(await run.call("toolbox", { action: "run", tool: "glob" }), "invalid_input", "args.pattern");
    expect(missing.message).toContain('Invalid input for "glob"');
    modelError(await run.call("toolbox", { action: "run", tool: "glob", args: { pattern: 7 } }), "invalid_input", "args.pattern");
    // toolbox's own fields keep their names; a valid call runs.
    modelError(await run.call("toolbox", { action: "Run", tool: "glob", args: {} }), "invalid_input", "action");
    expect(ok(await run.call("toolbox", { action: "run", tool: "glob", args: { pattern: "*" } }))).toBeDefined();
  });

  const toolboxIssuesFromCjs = commonJs.script(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      const run = createRegistry({ tools: createFileTools() }).createRun({ permissions: { workspace: require("node:os").tmpdir() } });
      run.call("toolbox", { action: "run", tool: "glob" }).then((result) =>
        console.log(JSON.stringify(result.error.issues.map((issue) => issue.path))));`);
  it("from CommonJS: the same issues", () => {
    const paths = toolboxIssuesFromCjs();
    expect(paths).toEqual(["args.pattern"]);
  });
});
