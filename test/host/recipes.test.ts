import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry, defineTool, type ToolCalledEvent } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RunDirectory, recipeToolGroup } from "../../src/host/index.js";
import { failure, hostRun, temporaryDirectory, text, toolNames } from "./support/host-test-kit.js";

let recipes: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  recipes = await temporaryDirectory("atc-recipes-");
  await writeFile(
    path.join(recipes.path, "greet.yaml"),
    [
      "description: Greet someone, then count",
      "variables:",
      "  greeting: Hello",
      "steps:",
      "  - name: say",
      "    tool: echo",
      '    args: { text: "{{greeting}}, {{ who }}!" }',
      "  - tool: repeat",
      '    args: { text: "{{who}}", times: "{{times}}" }',
      "  - tool: secret",
      "  - tool: echo",
      "    args: { text: done }",
    ].join("\n"),
  );
  await writeFile(path.join(recipes.path, "broken.yaml"), "steps:\n  - tool: echo\n    args: { text: [unclosed\n");
  await writeFile(path.join(recipes.path, "recursive.yml"), "steps:\n  - tool: run_recipe\n    args: { name: recursive }\n");
});
afterEach(() => recipes.remove());

const echo = defineTool({
  name: "echo",
  description: "Echo.",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});
const repeat = defineTool({
  name: "repeat",
  description: "Repeat text.",
  tier: "deferred",
  inputSchema: z.object({ text: z.string(), times: z.number().int() }),
  handler: ({ text, times }) => Array.from({ length: times }, () => text).join(" "),
});
const secret = defineTool({
  name: "secret",
  description: "Mutates.",
  mutating: true,
  inputSchema: z.object({}),
  handler: () => "secret ran",
});

function recipeRun(options: { allowedTools?: string[]; approval?: "destructive" } = {}) {
  const runs = new RunDirectory();
  const registry = createRegistry({
    tools: [echo, repeat, secret],
    groups: [recipeToolGroup({ recipesDir: recipes.path, resolveRun: runs.resolve })],
  });
  const run = runs.track(
    registry.createRun({
      profile: "full",
      ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
      ...(options.approval === undefined ? {} : { permissions: { approval: options.approval } }),
    }),
  );
  run.activate(["run_recipe"]);
  return { registry, run };
}

describe("recipe tool group", () => {
  it("is present only with a recipes dir", () => {
    const resolveRun = new RunDirectory().resolve;
    expect(toolNames(hostRun([recipeToolGroup({ resolveRun })]).registry)).toEqual([]);
    expect(toolNames(hostRun([recipeToolGroup({ recipesDir: "", resolveRun })]).registry)).toEqual([]);
    expect(toolNames(hostRun([recipeToolGroup({ recipesDir: recipes.path, resolveRun })]).registry)).toEqual(["run_recipe"]);
  });
});

describe("run_recipe", () => {
  it("runs each step through the same run: substitution, typed values, activation of deferred tools, events", async () => {
    const { run } = recipeRun();
    const called: ToolCalledEvent[] = [];
    run.events.on("tool.called", (event) => called.push(event));
    const report = text(await run.call("run_recipe", { name: "greet", variables: { who: "Ada", times: 2 } }));
    expect(report).toBe(
      [
        'Recipe "greet": 4 of 4 steps succeeded.',
        "✓ 1. say (echo)\nHello, Ada!",
        "✓ 2. repeat\nAda Ada",
        "✓ 3. secret\nsecret ran",
        "✓ 4. echo\ndone",
      ].join("\n\n"),
    );
    expect(called.map((event) => event.name)).toEqual(["run_recipe", "echo", "repeat", "secret", "echo"]);
    expect(called[2]?.callId).toMatch(/\/step-2$/);
    expect(run.activation.isActive("repeat")).toBe(true);
  });

  it("applies the run's allow-list and approval policy to every step", async () => {
    const limited = recipeRun({ allowedTools: ["run_recipe", "echo", "repeat"] }).run;
    const stopped = text(await limited.call("run_recipe", { name: "greet", variables: { who: "Ada", times: 1 } }));
    expect(stopped).toContain('Recipe "greet": 2 of 4 steps succeeded, 1 failed, 1 not run.');
    expect(stopped).toContain('✗ 3. secret: tool_not_allowed: The tool "secret" is not allowed in this run.');
    const goOn = text(
      await limited.call("run_recipe", { name: "greet", variables: { who: "Ada", times: 1 }, continue_on_error: true }),
    );
    expect(goOn).toContain("3 of 4 steps succeeded, 1 failed.");
    const { registry, run } = recipeRun({ approval: "destructive" });
    registry.events.on("approval.requested", (request) => void registry.approvals.deny(request.id, "not today"));
    const denied = text(await run.call("run_recipe", { name: "greet", variables: { who: "Ada", times: 1 } }));
    expect(denied).toMatch(/✗ 3\. secret: approval_denied: .*not today/);
  });

  it("reaches tools listed behind toolbox in a core-profile run, and forgets closed runs", async () => {
    const runs = new RunDirectory();
    const listedEcho = defineTool({
      name: "listed_echo",
      description: "Echo, as a built-in.",
      tags: ["builtin"],
      inputSchema: z.object({ text: z.string() }),
      handler: ({ text }) => text,
    });
    await writeFile(path.join(recipes.path, "listed.yaml"), 'steps:\n  - tool: listed_echo\n    args: { text: "via toolbox" }\n');
    const registry = createRegistry({
      tools: [listedEcho],
      groups: [recipeToolGroup({ recipesDir: recipes.path, resolveRun: runs.resolve })],
    });
    const run = runs.track(registry.createRun({ profile: "core" }));
    expect(run.isListed("listed_echo")).toBe(true);
    run.activate(["run_recipe"]);
    expect(text(await run.call("run_recipe", { name: "listed" }))).toContain("✓ 1. listed_echo\nvia toolbox");
    const context = { runId: run.id } as Parameters<typeof runs.resolve>[0];
    expect(runs.resolve(context)).toBe(run);
    await run.close();
    expect(runs.resolve(context)).toBeUndefined();
  });

  it("steps of a recipe called under a 510-character id run: the derived step ids keep within 512", async () => {
    const { run } = recipeRun();
    const ids: string[] = [];
    run.events.on("tool.called", (event) => ids.push(event.callId));
    const result = await run.call(
      "run_recipe",
      { name: "greet", variables: { who: "a", times: 1 } },
      { callId: "r".repeat(510) },
    );
    expect(text(result)).toContain("✓ 1. say");
    expect(text(result)).not.toContain("invalid_call_id");
    expect(ids.length).toBeGreaterThan(2);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(512);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("names unknown and unexpected variables before running any step", async () => {
    const { run } = recipeRun();
    const called: string[] = [];
    run.events.on("tool.called", (event) => called.push(event.name));
    expect(failure(await run.call("run_recipe", { name: "greet" }))).toMatchObject({
      code: "unknown_variables",
      message: 'Recipe "greet" uses variables with no value: who, times.',
    });
    expect(
      failure(await run.call("run_recipe", { name: "greet", variables: { who: "a", times: 1, colour: "red" } })),
    ).toMatchObject({
      code: "unexpected_variables",
      message: expect.stringContaining("colour"),
    });
    expect(called).toEqual(["run_recipe", "run_recipe"]);
  });

  it("reports malformed YAML, recursion, unknown recipes and path traversal", async () => {
    const { run } = recipeRun();
    expect(failure(await run.call("run_recipe", { name: "broken" }))).toMatchObject({
      code: "invalid_recipe",
      message: expect.stringContaining("broken.yaml: malformed YAML"),
    });
    expect(failure(await run.call("run_recipe", { name: "recursive" })).message).toContain("recipes cannot run recipes");
    expect(failure(await run.call("run_recipe", { name: "nope" }))).toMatchObject({
      code: "unknown_recipe",
      hint: "Recipes: broken, greet, recursive.",
    });
    for (const name of ["../greet", "sub/greet", "greet.yaml"])
      expect(failure(await run.call("run_recipe", { name })).code).toBe("invalid_name");
  });

  it("refuses recipe files with a bad shape", async () => {
    const { run } = recipeRun();
    const cases: [string, string][] = [
      ["steps: []\n", "steps must be a non-empty list"],
      ["steps:\n  - tool: echo\n    argz: {}\n", 'unknown key "argz"'],
      ["steps:\n  - tool: 'not a name'\n", "steps[0].tool must be a tool name"],
      ["name: other\nsteps:\n  - tool: echo\n", 'name must be "shape"'],
      ["variables:\n  list: [1]\nsteps:\n  - tool: echo\n", "variables must map names"],
    ];
    for (const [yaml, message] of cases) {
      await writeFile(path.join(recipes.path, "shape.yaml"), yaml);
      expect(failure(await run.call("run_recipe", { name: "shape" })).message).toContain(message);
    }
  });
});
