import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sampleTools } from "../../test/support/sample-tools.js";
import { ToolError } from "../errors/tool-error.js";
import type { CatalogEvents } from "../events/catalog-events.js";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import { formatToolResult, type ToolCallFailure, type ToolCallResult } from "../tool/tool-call-result.js";

const names = (run: { definitions(): readonly { name: string }[] }) => run.definitions().map((tool) => tool.name);

function expectFailure(result: ToolCallResult): ToolCallFailure["error"] {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.output)}`);
  return result.error;
}

describe("Run.definitions", () => {
  it("sends core tools, then activated deferred tools in activation order", () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    expect(names(run)).toEqual(["find_tool", "read", "write"]);
    run.activate(["web_fetch"]);
    run.activate(["git_log_search", "web_fetch"]);
    expect(names(run)).toEqual(["find_tool", "read", "write", "web_fetch", "git_log_search"]);
  });

  it("returns the same array until something changes (stable bytes for prompt caching)", () => {
    const registry = createRegistry({ tools: sampleTools() });
    const run = registry.createRun();
    const first = run.definitions();
    expect(run.definitions()).toBe(first);
    run.activate(["read"]);
    expect(run.definitions()).toBe(first);
    run.activate(["web_fetch"]);
    expect(run.definitions()).not.toBe(first);
    const second = run.definitions();
    registry.register(defineTool({ name: "late", description: "Late core tool.", inputSchema: z.object({}), handler: () => "" }));
    expect(run.definitions()).not.toBe(second);
    expect(names(run)).toContain("late");
  });

  it("filters by allowedTools, keeping the always-available tools", () => {
    const run = createRegistry({ tools: sampleTools() }).createRun({ allowedTools: ["read", "git_log_search"] });
    expect(names(run)).toEqual(["find_tool", "read"]);
    expect(run.activate(["web_fetch", "git_log_search"])).toEqual({
      activated: ["git_log_search"],
      alreadyAvailable: [],
      notFound: [{ name: "web_fetch", suggestions: [], reason: "not_allowed" }],
    });
    expect(names(run)).toEqual(["find_tool", "read", "git_log_search"]);
  });

  it("treats an empty allowedTools as all tools", () => {
    const run = createRegistry({ tools: sampleTools() }).createRun({ allowedTools: [] });
    expect(names(run)).toEqual(["find_tool", "read", "write"]);
  });

  it("drops a removed tool from runs and keeps other activations", () => {
    const registry = createRegistry({ tools: sampleTools() });
    const handle = registry.register(
      defineTool({
        name: "temp_tool",
        description: "Temporary.",
        tier: "deferred",
        inputSchema: z.object({}),
        handler: () => "",
      }),
    );
    const run = registry.createRun();
    run.activate(["temp_tool", "web_fetch"]);
    handle.remove();
    expect(names(run)).toEqual(["find_tool", "read", "write", "web_fetch"]);
  });

  it("refuses a bad allowedTools or permissions at creation", () => {
    const registry = createRegistry();
    expect(() => registry.createRun({ allowedTools: "read" as never })).toThrowError(
      expect.objectContaining({ code: "invalid_allowed_tools" }),
    );
    expect(() => registry.createRun({ permissions: { sandbox: "docker" as never } })).toThrowError(
      "permissions.sandbox must be one of unrestricted, local, workspace",
    );
    expect(() => registry.createRun({ permissions: { sandbox: "workspace" } })).toThrowError(/permissions.workspace is required/);
  });

  it("defaults permissions to unrestricted / none", () => {
    expect(createRegistry().createRun().permissions).toEqual({ sandbox: "unrestricted", approval: "none", workspace: undefined });
  });
});

describe("Run.call", () => {
  it("runs a visible tool with validated input, from an object or a JSON string", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    expect(await run.call("read", { path: "a.txt" })).toMatchObject({ ok: true, tool: "read", output: "contents of a.txt" });
    expect(await run.call("write", '{"path":"b","content":"xyz"}', { callId: "c1" })).toEqual({
      ok: true,
      tool: "write",
      callId: "c1",
      output: { path: "b", bytes: 3 },
    });
  });

  it("tells the model to use find_tool for a deferred tool that is not active", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const error = expectFailure(await run.call("git_log_search", { query: "x" }));
    expect(error.code).toBe("tool_not_activated");
    expect(error.hint).toContain('{"query":"select:git_log_search"}');
    run.activate(["git_log_search"]);
    expect((await run.call("git_log_search", { query: "x" })).ok).toBe(true);
  });

  it("suggests the closest names for an unknown tool, also for prototype keys", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const error = expectFailure(await run.call("git_log_serch", {}));
    expect(error).toMatchObject({ code: "unknown_tool", suggestions: ["git_log_search"] });
    expect(error.hint).toBe('Did you mean "git_log_search"?');
    expect(expectFailure(await run.call("constructor", {})).code).toBe("unknown_tool");
    expect(expectFailure(await run.call("__proto__", {})).code).toBe("unknown_tool");
    expect(expectFailure(await run.call(42 as never, {})).code).toBe("unknown_tool");
  });

  it("refuses a tool outside allowedTools without suggesting it", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun({ allowedTools: ["read"] });
    expect(expectFailure(await run.call("write", { path: "a", content: "" })).code).toBe("tool_not_allowed");
    expect(expectFailure(await run.call("writ", {})).suggestions).toEqual([]);
  });

  it("names each wrong field for bad input", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const error = expectFailure(await run.call("write", { path: 5 }));
    expect(error.code).toBe("invalid_input");
    expect(error.issues?.map((issue) => issue.path)).toEqual(["path", "content"]);
    expect(error.message).toMatch(/^Invalid input for "write": path: .+; content: .+\.$/);
  });

  it("reports malformed JSON, non-object input and oversized input", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun({ maxInputLength: 1000 });
    expect(expectFailure(await run.call("read", '{"path": ')).message).toMatch(/not valid JSON/);
    expect(expectFailure(await run.call("read", [1, 2])).code).toBe("invalid_input");
    expect(expectFailure(await run.call("read", "7")).code).toBe("invalid_input");
    const huge = JSON.stringify({ path: "x".repeat(5000) });
    const error = expectFailure(await run.call("read", huge));
    expect(error.code).toBe("input_too_large");
    expect(error.message.length).toBeLessThan(200);
  });

  it("does not echo a huge string back in a validation error", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const error = expectFailure(await run.call("write", { path: "a", content: 1, extra: "y".repeat(1_000_000) }));
    expect(error.code).toBe("invalid_input");
    expect(formatToolResult({ ok: false, tool: "write", callId: "x", error }).length).toBeLessThan(500);
  });

  it("treats empty arguments as {}", async () => {
    const ping = defineTool({ name: "ping", description: "Ping.", inputSchema: z.object({}), handler: () => "pong" });
    const run = createRegistry({ tools: [ping] }).createRun();
    for (const args of [undefined, null, ""]) expect(await run.call("ping", args)).toMatchObject({ ok: true, output: "pong" });
  });

  it("turns a ToolError into a readable result and any other exception into tool_failed", async () => {
    const failing = [
      defineTool({
        name: "conflict",
        description: "Fails with a ToolError.",
        inputSchema: z.object({}),
        handler: () => {
          throw new ToolError("version_conflict", "The file changed since you read it.", { hint: "Read it again." });
        },
      }),
      defineTool({
        name: "crash",
        description: "Throws.",
        inputSchema: z.object({}),
        handler: async () => {
          throw new TypeError("boom");
        },
      }),
    ];
    const run = createRegistry({ tools: failing }).createRun();
    expect(expectFailure(await run.call("conflict", {}))).toEqual({
      code: "version_conflict",
      message: "The file changed since you read it.",
      hint: "Read it again.",
    });
    expect(expectFailure(await run.call("crash", {}))).toEqual({ code: "tool_failed", message: 'The tool "crash" failed: boom' });
  });

  it("ends a call when its signal aborts, even if the handler ignores it", async () => {
    const stuck = defineTool({
      name: "stuck",
      description: "Never ends.",
      inputSchema: z.object({}),
      handler: () => new Promise(() => {}),
    });
    const registry = createRegistry({ tools: [stuck] });
    const run = registry.createRun();
    const controller = new AbortController();
    const pending = run.call("stuck", {}, { signal: controller.signal });
    controller.abort();
    expect(expectFailure(await pending).code).toBe("aborted");
    const closing = registry.createRun();
    const inFlight = closing.call("stuck", {});
    closing.close();
    expect(expectFailure(await inFlight).code).toBe("aborted");
  });

  it("gives the handler its context", async () => {
    let seen: unknown;
    const probe = defineTool({
      name: "probe",
      description: "Sees its context.",
      inputSchema: z.object({}),
      handler: (_input, context) => {
        seen = { runId: context.runId, callId: context.callId, toolName: context.toolName, host: context.hostContext.user };
        return "";
      },
    });
    const run = createRegistry({ tools: [probe] }).createRun({ runId: "r1", context: { user: "ada" } });
    await run.call("probe", {}, { callId: "call-7" });
    expect(seen).toEqual({ runId: "r1", callId: "call-7", toolName: "probe", host: "ada" });
  });

  it("emits tool.called, tool.result and tool.error on the run and on the registry", async () => {
    const registry = createRegistry({ tools: sampleTools() });
    const run = registry.createRun({ runId: "r" });
    const seen: string[] = [];
    const record =
      <T extends keyof CatalogEvents>(type: T, source: string) =>
      (payload: CatalogEvents[T]) =>
        seen.push(`${source}:${type}:${"name" in payload ? payload.name : ""}`);
    run.events.on("tool.called", record("tool.called", "run"));
    run.events.on("tool.result", record("tool.result", "run"));
    run.events.on("tool.error", record("tool.error", "run"));
    registry.events.on("tool.activated", record("tool.activated", "registry"));
    await run.call("read", { path: "x" });
    await run.call("nope", {});
    run.activate(["web_fetch"]);
    expect(seen).toEqual([
      "run:tool.called:read",
      "run:tool.result:read",
      "run:tool.error:nope",
      "run:tool.result:nope",
      "registry:tool.activated:web_fetch",
    ]);
  });

  it("keeps running the call when a listener throws, and reports the listener error", async () => {
    const errors: unknown[] = [];
    const registry = createRegistry({ tools: sampleTools(), onListenerError: (error) => errors.push(error) });
    registry.events.on("tool.called", () => {
      throw new Error("listener bug");
    });
    const run = registry.createRun();
    run.events.on("tool.result", () => {
      throw new Error("run listener bug");
    });
    expect((await run.call("read", { path: "x" })).ok).toBe(true);
    expect(errors.map((error) => (error as Error).message)).toEqual(["listener bug", "run listener bug"]);
  });

  it("persists and resumes activations", async () => {
    const registry = createRegistry({ tools: sampleTools() });
    const run = registry.createRun({ runId: "persisted" });
    run.activate(["git_blame_context"]);
    const saved = JSON.parse(JSON.stringify(run.toJSON()));
    const resumed = registry.createRun({ runId: saved.runId, activation: saved.activation });
    expect(names(resumed)).toEqual(["find_tool", "read", "write", "git_blame_context"]);
    expect((await resumed.call("git_blame_context", { path: "a", line: 1 })).ok).toBe(true);
  });
});

describe("run-private tools and lifecycle", () => {
  it("reports a JSON Schema that fails to compile on first call as tool_failed, without throwing", async () => {
    // A JSON-pointer $ref that points nowhere is refused by defineTool (define-tool.test.ts); an
    // anchor is left to the validator, which only meets it at the first call.
    const broken = defineTool({
      name: "broken_ref",
      description: "Its schema points nowhere.",
      inputSchema: { type: "object", properties: { a: { $ref: "#missing-anchor" } } },
      handler: () => "never",
    });
    const run = createRegistry({ tools: [broken] }).createRun();
    expect(expectFailure(await run.call("broken_ref", { a: 1 }))).toMatchObject({
      code: "tool_failed",
      message: expect.stringContaining("unusable input schema"),
    });
  });

  it("lets a tool clean up when its run closes", async () => {
    const closed: string[] = [];
    const opener = defineTool({
      name: "opener",
      description: "Opens something for the run.",
      inputSchema: z.object({}),
      handler: (_input, context) => {
        context.addRunDisposer(() => closed.push(context.runId));
        return "opened";
      },
    });
    const run = createRegistry({ tools: [opener] }).createRun({ runId: "r-9" });
    await run.call("opener", {});
    await run.close();
    expect(closed).toEqual(["r-9"]);
  });

  it("shows a tool registered for one run to that run only", async () => {
    const registry = createRegistry({ tools: sampleTools() });
    const mine = registry.createRun({ runId: "mine" });
    const other = registry.createRun({ runId: "other" });
    registry.register(
      defineTool({ name: "private_tool", description: "Only mine.", inputSchema: z.object({}), handler: () => "secret" }),
      { runId: "mine" },
    );
    expect(names(mine)).toContain("private_tool");
    expect(names(other)).not.toContain("private_tool");
    // Another run does not see the tool at all (its existence is not disclosed).
    expect(expectFailure(await other.call("private_tool", {})).code).toBe("unknown_tool");
    expect((await mine.call("private_tool", {})).ok).toBe(true);
  });

  it("lets two runs each have a private tool of the same name, and keeps shared names unique", async () => {
    const registry = createRegistry();
    const named = (answer: string) =>
      defineTool({
        name: "docs_search",
        description: "Search the docs.",
        tier: "deferred",
        inputSchema: z.object({}),
        handler: () => answer,
      });
    const a = registry.createRun({ runId: "a" });
    const b = registry.createRun({ runId: "b" });
    const handleA = registry.register(named("from a"), { runId: "a" });
    registry.register(named("from b"), { runId: "b" });
    expect(() => registry.register(named("again"), { runId: "a" })).toThrowError(/already registered/);
    expect(() => registry.register(named("shared"))).toThrowError(/already registered privately by a run/);
    expect(a.search("search the docs").map((hit) => hit.name)).toEqual(["docs_search"]);
    a.activate(["docs_search"]);
    b.activate(["docs_search"]);
    expect(await a.call("docs_search", {})).toMatchObject({ ok: true, output: "from a" });
    expect(await b.call("docs_search", {})).toMatchObject({ ok: true, output: "from b" });
    expect(registry.createRun({ runId: "c" }).search("search the docs")).toEqual([]);
    handleA.remove();
    expect(expectFailure(await a.call("docs_search", {})).code).toBe("unknown_tool");
    expect(await b.call("docs_search", {})).toMatchObject({ ok: true, output: "from b" });
  });

  it("runs disposers on close and reports their failures", async () => {
    const registry = createRegistry();
    const run = registry.createRun();
    const closed: string[] = [];
    run.addDisposer(() => closed.push("run"));
    registry.addDisposer(async () => closed.push("registry"));
    const remove = registry.addDisposer(() => closed.push("removed"));
    remove();
    await run.close();
    await run.close();
    expect(run.closed).toBe(true);
    await registry.close();
    expect(closed).toEqual(["run", "registry"]);
    expect(registry.closed).toBe(true);
    expect(() => registry.addDisposer(() => {})).toThrowError(expect.objectContaining({ code: "registry_closed" }));
    const failing = createRegistry();
    failing.addDisposer(() => {
      throw new Error("cannot close");
    });
    await expect(failing.close()).rejects.toThrowError(/1 disposer failed/);
  });
});
