/**
 * Spec conformance, variants (/work/shared/spec/agent-tool-catalog.md "Per-run tool filtering",
 * "find_tool", "Activation"; tool-profiles-and-loading.md "Three loading tiers"): the statements
 * the other files check once, probed with other inputs, orders and combinations, through the root
 * entry: allowedTools with duplicates, case, wildcards and unknown names; find_tool on tools that
 * are already active, denied, off, disabled, removed or outside a skill; the order definitions
 * are sent in; load modes crossed with profiles and the toolbox index. Statement table:
 * docs/spec-conformance.md.
 */
import { type AnyToolDefinition, createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { modelError, ok } from "./support.js";

const tool = (name: string, tier: "core" | "deferred", tags: string[] = []): AnyToolDefinition =>
  defineTool({
    name,
    description: `The ${name.replaceAll("_", " ")} tool.`,
    tier,
    tags,
    inputSchema: z.object({}),
    handler: () => name,
  });

/** Core tools registered b before a (order is registration, not alphabetical); deferred z, y, x. */
function catalog() {
  return createRegistry({
    tools: [
      tool("b_core", "core", ["builtin"]),
      tool("a_core", "core", ["builtin"]),
      tool("host_core", "core"),
      tool("z_deferred", "deferred"),
      tool("y_deferred", "deferred"),
      tool("x_deferred", "deferred", ["builtin"]),
      tool("skill", "core"),
    ],
  });
}
const sent = (run: Run) => run.definitions().map((definition) => definition.name);
const activated = (output: unknown) => (output as { activated: { name: string }[] }).activated.map((entry) => entry.name);
const unknownAllowed = (run: Run) =>
  run.diagnostics().flatMap((diagnostic) => (diagnostic.kind === "unknown_allowed_tool" ? [diagnostic.name] : []));

describe("allowedTools variants: exact names only, each reported when unknown", () => {
  it("duplicates are one entry; the three always-available tools alone leave only them", () => {
    const registry = catalog();
    const twice = registry.createRun({ allowedTools: ["host_core", "host_core", "y_deferred", "y_deferred"] });
    expect(sent(twice)).toEqual(["find_tool", "host_core", "skill"]);
    expect(twice.diagnostics()).toEqual([]);
    const onlyAlways = registry.createRun({ allowedTools: ["find_tool", "skill", "AskUserQuestion"] });
    expect(sent(onlyAlways)).toEqual(["find_tool", "skill"]);
    expect(onlyAlways.diagnostics()).toEqual([]);
  });

  it("case, surrounding spaces and wildcards are not names: nothing is allowed by them, and each is reported with the closest names", async () => {
    const registry = catalog();
    for (const pattern of ["HOST_CORE", " host_core", "host_*", "*", "host_core?", ""]) {
      const run = registry.createRun({ allowedTools: [pattern] });
      expect(sent(run), JSON.stringify(pattern)).toEqual(["find_tool", "skill"]);
      expect(unknownAllowed(run), JSON.stringify(pattern)).toEqual([pattern]);
      modelError(await run.call("host_core", {}), "tool_not_allowed");
    }
    const typo = registry.createRun({ allowedTools: ["HOST_CORE"] }).diagnostics()[0];
    expect(typo?.message).toContain('"host_core"');
    // Positive control: the exact name allows it.
    expect(ok(await registry.createRun({ allowedTools: ["host_core"] }).call("host_core", {}))).toBe("host_core");
  });

  it("a name that joins the registry later is allowed from then on (MCP servers connect late)", async () => {
    const registry = catalog();
    const run = registry.createRun({ allowedTools: ["late_tool"] });
    expect(unknownAllowed(run)).toEqual(["late_tool"]);
    registry.register(tool("late_tool", "core"));
    expect(sent(run)).toContain("late_tool");
    expect(ok(await run.call("late_tool", {}))).toBe("late_tool");
  });
});

describe("find_tool select: on tools in every state", () => {
  it("already active: idempotent, reported as already_available, never sent twice, no second event", async () => {
    const run = catalog().createRun({ profile: "full" });
    const events: string[] = [];
    run.events.on("tool.activated", (event) => events.push(event.name));
    expect(activated(ok(await run.call("find_tool", { query: "select:y_deferred,y_deferred" })))).toEqual(["y_deferred"]);
    const again = ok(await run.call("find_tool", { query: "select:y_deferred" })) as { already_available: { name: string }[] };
    expect(again.already_available.map((entry) => entry.name)).toEqual(["y_deferred"]);
    expect(sent(run).filter((name) => name === "y_deferred")).toHaveLength(1);
    expect(events).toEqual(["y_deferred"]);
  });

  it("denied by allowedTools, off by a load mode, disabled, outside a skill, or removed: unknown_tool and not activated", async () => {
    const registry = catalog();
    const handle = registry.register(tool("removed_deferred", "deferred"));
    const runs: [string, Run][] = [
      ["allowedTools", registry.createRun({ profile: "full", allowedTools: ["z_deferred"] })],
      ["load mode off", registry.createRun({ profile: "full", loadModes: { y_deferred: "off" } })],
      ["disabledTools", registry.createRun({ profile: "full", disabledTools: ["y_deferred"] })],
    ];
    const skilled = registry.createRun({ profile: "full" });
    skilled.applySkillConstraint("review", ["z_deferred"]);
    runs.push(["skill", skilled]);
    for (const [label, run] of runs) {
      modelError(await run.call("find_tool", { query: "select:y_deferred" }), "unknown_tool");
      expect(sent(run), label).not.toContain("y_deferred");
      expect(run.reach("y_deferred"), label).toBe("off");
      // A keyword search does not surface it either.
      const found = ok(await run.call("find_tool", { query: "y deferred" })) as { activated: { name: string }[] };
      expect(activated(found), label).not.toContain("y_deferred");
      // Positive control: the tool the run does allow is reached (the keyword search may have activated it already).
      ok(await run.call("find_tool", { query: "select:z_deferred" }));
      expect(sent(run), label).toContain("z_deferred");
    }
    const run = registry.createRun({ profile: "full" });
    ok(await run.call("find_tool", { query: "select:removed_deferred" }));
    expect(sent(run)).toContain("removed_deferred");
    handle.remove();
    expect(sent(run)).not.toContain("removed_deferred");
    modelError(await run.call("removed_deferred", {}), "unknown_tool");
    modelError(await run.call("find_tool", { query: "select:removed_deferred" }), "unknown_tool");
  });

  it("a core tool, find_tool itself and a listed tool: already_available, or via_toolbox in a listing run", async () => {
    const listing = catalog().createRun({ environment: {} });
    const listed = ok(await listing.call("find_tool", { query: "select:a_core" })) as { via_toolbox: { name: string }[] };
    expect(listed.via_toolbox.map((entry) => entry.name)).toEqual(["a_core"]);
    const self = ok(await listing.call("find_tool", { query: "select:find_tool,host_core" })) as {
      already_available: { name: string }[];
    };
    expect(self.already_available.map((entry) => entry.name)).toEqual(["find_tool", "host_core"]);
  });
});

describe("the order definitions are sent in", () => {
  it("core tools in registration order, then deferred tools in activation order; the state keeps it", async () => {
    const registry = catalog();
    const run = registry.createRun({ profile: "full" });
    expect(sent(run)).toEqual(["find_tool", "b_core", "a_core", "host_core", "skill"]);
    ok(await run.call("find_tool", { query: "select:z_deferred,y_deferred" }));
    ok(await run.call("find_tool", { query: "select:x_deferred" }));
    // Selecting an active tool again does not move it to the end.
    ok(await run.call("find_tool", { query: "select:z_deferred" }));
    const order = ["find_tool", "b_core", "a_core", "host_core", "skill", "z_deferred", "y_deferred", "x_deferred"];
    expect(sent(run)).toEqual(order);
    expect(sent(registry.createRun({ profile: "full", state: run.toJSON() }))).toEqual(order);
    expect(sent(registry.createRun({ profile: "full", activation: run.toJSON().activation }))).toEqual(order);
    // The same array object while nothing changes (prompt cache), a new one after a change.
    const first = run.definitions();
    expect(run.definitions()).toBe(first);
    registry.register(tool("w_core", "core"));
    expect(run.definitions()).not.toBe(first);
    expect(sent(run)).toEqual([...order.slice(0, 5), "w_core", ...order.slice(5)]);
  });

  it("a skill constraint hides and its end restores, in the same order", async () => {
    const run = catalog().createRun({ profile: "full" });
    ok(await run.call("find_tool", { query: "select:y_deferred,z_deferred" }));
    const before = sent(run);
    const release = run.applySkillConstraint("review", ["a_core", "z_deferred"]);
    expect(sent(run)).toEqual(["find_tool", "a_core", "skill", "z_deferred"]);
    release();
    expect(sent(run)).toEqual(before);
  });
});

describe("load modes x profiles x the toolbox index", () => {
  const reaches = (run: Run) =>
    Object.fromEntries(
      ["b_core", "a_core", "host_core", "z_deferred", "y_deferred", "x_deferred"].map((name) => [name, run.reach(name)]),
    );

  it.each([
    // profile, load modes, listing, sent, reaches. An essential deferred tool takes its
    // registration place among the eager tools. With nothing left to list, toolbox is not sent.
    ["core", {}, true, ["find_tool", "toolbox", "host_core", "skill"], { a_core: "listed", y_deferred: "searchable" }],
    ["core", { y_deferred: "discoverable" }, true, ["find_tool", "toolbox", "host_core", "skill"], { y_deferred: "listed" }],
    [
      "core",
      { y_deferred: "essential" },
      true,
      ["find_tool", "toolbox", "host_core", "y_deferred", "skill"],
      { y_deferred: "sent" },
    ],
    ["core", { host_core: "discoverable" }, true, ["find_tool", "toolbox", "skill"], { host_core: "listed" }],
    ["core", { a_core: "essential", b_core: "off" }, true, ["find_tool", "a_core", "host_core", "skill"], { b_core: "off" }],
    ["full", { a_core: "discoverable" }, false, ["find_tool", "b_core", "host_core", "skill"], { a_core: "searchable" }],
    ["full", { y_deferred: "essential" }, false, ["find_tool", "b_core", "a_core", "host_core", "y_deferred", "skill"], {}],
    ["acp", {}, false, ["find_tool", "b_core", "a_core", "host_core", "skill"], { y_deferred: "searchable" }],
    ["minimal", {}, false, ["find_tool", "host_core", "skill"], { a_core: "off", x_deferred: "off", y_deferred: "searchable" }],
    ["minimal", { x_deferred: "essential" }, false, ["find_tool", "host_core", "x_deferred", "skill"], { x_deferred: "sent" }],
    ["none", { y_deferred: "essential" }, false, [], { host_core: "off", y_deferred: "off" }],
  ] as const)("%s with %j: listing %s", (profile, loadModes, listing, expectedSent, expectedReaches) => {
    const run = catalog().createRun({ profile, loadModes, environment: {} });
    expect(run.loading.listing).toBe(listing);
    expect(sent(run)).toEqual(expectedSent);
    expect(reaches(run)).toMatchObject(expectedReaches);
    // The index names exactly the listed tools, in registration order; no index without listing.
    const listed = Object.entries(reaches(run)).flatMap(([name, reach]) => (reach === "listed" ? [name] : []));
    const rows = (run.systemPromptIndex() ?? "")
      .split("\n")
      .slice(2)
      .map((row) => row.split(":")[0]?.slice(2));
    expect(listing ? rows : run.systemPromptIndex()).toEqual(listing ? listed : undefined);
  });

  it("an allow-list with a load mode: non-listing, a discoverable core tool is found through find_tool", async () => {
    const run = catalog().createRun({
      allowedTools: ["a_core", "b_core", "y_deferred"],
      loadModes: { a_core: "discoverable" },
      environment: {},
    });
    expect(run.loading.listing).toBe(false);
    expect(sent(run)).toEqual(["find_tool", "b_core", "skill"]);
    expect(activated(ok(await run.call("find_tool", { query: "select:a_core" })))).toEqual(["a_core"]);
    expect(sent(run)).toEqual(["find_tool", "b_core", "skill", "a_core"]);
  });

  it("toolbox in an allow-list, or essential in a non-listing profile, is not sent: nothing is listed", () => {
    for (const run of [
      catalog().createRun({ allowedTools: ["toolbox", "a_core"], environment: {} }),
      catalog().createRun({ profile: "full", loadModes: { toolbox: "essential" }, environment: {} }),
      catalog().createRun({ profile: "minimal", loadModes: { toolbox: "essential" }, environment: {} }),
    ]) {
      expect(run.loading.listing).toBe(false);
      expect(sent(run)).not.toContain("toolbox");
      expect(run.systemPromptIndex()).toBeUndefined();
    }
  });
});
