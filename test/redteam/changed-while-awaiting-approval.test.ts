/**
 * Red team round 12b: a call waits for approval (minutes, by default up to five), and meanwhile the
 * host removes its tool, disables it, narrows the run with a skill constraint, compacts its
 * activation away, or registers another tool under the name. When the approval then arrives, the
 * call must not run: it was checked against a run that no longer exists. Each gets the structured
 * error a fresh call would get, saying it changed while the call waited.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const NAMES = ["removed", "disabled", "narrowed", "compacted", "replaced", "updated", "untouched"] as const;

describe("a tool that changes while its call waits for approval", () => {
  it("does not run once approved when it is gone from the run; an updated or untouched tool still runs (controls)", async () => {
    const ran: string[] = [];
    const mutating = (name: string, tier: "core" | "deferred" = "core", label = name) =>
      defineTool({
        name,
        description: `Deletes the ${name} things.`,
        tier,
        mutating: true,
        inputSchema: z.object({}),
        handler: () => {
          ran.push(label);
          return `done ${label}`;
        },
      });
    const registry = createRegistry();
    const handles = Object.fromEntries(
      NAMES.map((name) => [name, registry.register(mutating(name, name === "compacted" ? "deferred" : "core"))]),
    );
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.activate(["compacted"]);
    const calls = NAMES.map((name) => run.call(name, {}, { callId: name }));
    await expect.poll(async () => (await registry.approvals.pending()).length).toBe(NAMES.length);

    // While every call waits:
    handles.removed?.remove();
    handles.disabled?.disable();
    run.applySkillConstraint(
      "review",
      NAMES.filter((name) => name !== "narrowed"),
    );
    expect(run.compact({ keep: "none" }).dropped).toEqual(["compacted"]);
    handles.replaced?.remove();
    registry.register(mutating("replaced", "core", "the other replaced"));
    handles.updated?.update(mutating("updated", "core", "updated v2"));

    for (const request of await registry.approvals.pending()) expect(await registry.approvals.approve(request.id)).toBe(true);
    const results = Object.fromEntries((await Promise.all(calls)).map((result) => [result.callId, result]));

    expect(ran.sort()).toEqual(["untouched", "updated"]);
    const refused = (code: string) => ({
      ok: false,
      error: { code, message: expect.stringContaining("changed while the call waited for approval; nothing was done") },
    });
    expect(results.removed).toMatchObject(refused("unknown_tool"));
    expect(results.disabled).toMatchObject(refused("unknown_tool"));
    expect(results.narrowed).toMatchObject(refused("tool_not_allowed"));
    expect(results.compacted).toMatchObject(refused("tool_not_activated"));
    expect(results.replaced).toMatchObject(refused("unknown_tool"));
    expect(results.replaced?.ok === false && results.replaced.error.message).toContain("another tool now has its name");
    // The approved definition's handler runs for a tool updated in place (its entry stayed).
    expect(results.updated).toMatchObject({ ok: true, output: "done updated" });
    expect(results.untouched).toMatchObject({ ok: true, output: "done untouched" });
    // A fresh call of the replacement asks again, and runs the replacement.
    const again = run.call("replaced", {});
    await expect.poll(async () => (await registry.approvals.pending()).length).toBe(1);
    for (const request of await registry.approvals.pending()) await registry.approvals.approve(request.id);
    expect(await again).toMatchObject({ ok: true, output: "done the other replaced" });
  });
});
