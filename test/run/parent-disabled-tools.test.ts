/**
 * A parent scope's deny entries (`RunScope.disabledTools`, stop 48) may come from JSON (a workflow
 * checkpoint). A malformed list is refused with a structured `ConfigurationError` naming the
 * field, never read as "none" (which would give a child back every tool its parent turned off);
 * a well-formed one turns the tools off in the child (the positive control).
 */
import { ConfigurationError, createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const registry = createRegistry({
  tools: [defineTool({ name: "echo", description: "Echo.", inputSchema: z.object({}), handler: () => "echoed" })],
});

describe("a parent scope's disabledTools", () => {
  const scope = () => JSON.parse(JSON.stringify(registry.createRun({ disabledTools: ["ECHO"] }).scope()));

  it.each([
    ["a string", "echo"],
    ["an object", { echo: true }],
    ["a list with a number", ["echo", 7]],
    ["null", null],
  ])("%s is refused as invalid_option naming parent.disabledTools", (_, disabledTools) => {
    const parent = { ...scope(), disabledTools };
    let thrown: unknown;
    try {
      registry.createRun({ parent });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect(thrown).toMatchObject({ code: "invalid_option", data: { field: "parent.disabledTools" } });
  });

  it("control: the saved list turns the tool off in the child; without it the tool runs", async () => {
    const saved = scope();
    expect(saved.disabledTools).toEqual(["ECHO"]);
    const child = registry.createRun({ parent: saved });
    expect(await child.call("echo", {})).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
    const { disabledTools: _, ...without } = saved;
    expect(await registry.createRun({ parent: without }).call("echo", {})).toMatchObject({ ok: true, output: "echoed" });
  });
});

describe("a parent that is not an object", () => {
  it.each([
    ["null", null],
    ["a string", "scope"],
    ["a number", 7],
  ])("%s is refused as invalid_option naming parent, not a TypeError", (_, parent) => {
    let thrown: unknown;
    try {
      registry.createRun({ parent: parent as never });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect(thrown).toMatchObject({ code: "invalid_option", data: { field: "parent" } });
  });
});
