import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import type { AnyToolDefinition } from "../tool/tool-definition.js";

const builtin = (name: string, tier: "core" | "deferred" = "core", mutating = false): AnyToolDefinition =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    tier,
    mutating,
    tags: ["builtin"],
    inputSchema: z.object({}),
    handler: () => `${name} done`,
  });

describe("profiles keep always-available tools (issue 19.4)", () => {
  for (const profile of ["minimal", "lite"] as const) {
    it(`${profile}: AskUserQuestion and skill stay available, other built-ins are off`, () => {
      const registry = createRegistry({
        tools: [builtin("read"), builtin("AskUserQuestion"), builtin("skill"), builtin("todo")],
      });
      const run = registry.createRun({ profile, environment: {} });
      const names = run.definitions().map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["read", "AskUserQuestion", "skill", "find_tool"]));
      expect(names).not.toContain("todo");
      // an explicit host override still wins
      const off = registry.createRun({ profile, environment: {}, disabledTools: ["skill"] });
      expect(off.definitions().map((tool) => tool.name)).not.toContain("skill");
    });
  }
});

describe("approval: all asks once, for the tool that acts (issue 19.5)", () => {
  it("a toolbox call asks once for the inner tool; describe and find_tool never ask", async () => {
    const registry = createRegistry({ tools: [builtin("read"), builtin("undo", "core", true), builtin("git_log", "deferred")] });
    const asked: string[] = [];
    registry.events.on("approval.requested", (request) => {
      asked.push(request.toolName);
      registry.approvals.approve(request.id);
    });
    const run = registry.createRun({ permissions: { approval: "all" }, environment: {} });
    expect(run.loading.listing).toBe(true);
    expect(run.systemPromptIndex()).toContain("undo");
    expect((await run.call("toolbox", { action: "describe", tool: "undo" })).ok).toBe(true);
    expect(asked).toEqual([]);
    const result = await run.call("toolbox", { action: "run", tool: "undo", args: {} });
    expect(result.ok).toBe(true);
    expect(asked).toEqual(["undo"]);
    expect((await run.call("find_tool", { query: "git log" })).ok).toBe(true);
    expect(asked).toEqual(["undo"]);
    // positive control: a direct call of an acting tool is still asked for
    await run.call("read", {});
    expect(asked).toEqual(["undo", "read"]);
  });
});

describe("configuration mistakes are reported (issue 19.6)", () => {
  it("load modes naming unknown tools are warned with the closest names", () => {
    const registry = createRegistry({ tools: [builtin("read"), builtin("web_fetch", "deferred")] });
    const run = registry.createRun({ environment: {}, loadModes: { web_fech: "essential" } });
    expect(run.diagnostics()).toMatchObject([{ kind: "unknown_load_mode_tool", name: "web_fech", suggestions: ["web_fetch"] }]);
  });

  it("a listed built-in registered after the index froze is reachable through find_tool", async () => {
    const registry = createRegistry({ tools: [builtin("read"), builtin("undo")] });
    const run = registry.createRun({ environment: {} });
    const index = run.systemPromptIndex();
    expect(index).toContain("undo");
    registry.register(builtin("todo"));
    expect(run.systemPromptIndex()).toBe(index);
    const found = await run.call("find_tool", { query: "select:todo" });
    expect(found.ok).toBe(true);
    expect(run.definitions().map((tool) => tool.name)).toContain("todo");
    expect(await run.call("todo", {})).toMatchObject({ ok: true, output: "todo done" });
  });
});
