import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError } from "../errors/tool-error.js";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import { createRunStorageKey } from "../tool/run-storage.js";
import { toolContent } from "../tool/tool-content.js";

const echo = defineTool({ name: "echo", description: "Echo.", inputSchema: z.object({}), handler: () => "echo" });
const other = defineTool({ name: "other", description: "Other.", inputSchema: z.object({}), handler: () => "other" });
const guarded = defineTool({
  name: "guarded",
  description: "Refuses in preflight when asked to.",
  mutating: true,
  inputSchema: z.object({ refuse: z.boolean() }),
  preflight: ({ refuse }) => {
    if (refuse) throw new ToolError("outside_workspace", "That path is outside the workspace.");
  },
  handler: () => "done",
});

describe("child runs", () => {
  it("a child's storage knows its parent's, and the parent's lifetime; a scope saved as JSON does not carry it", async () => {
    const registry = createRegistry({ tools: [echo] });
    const seen: unknown[] = [];
    const key = createRunStorageKey("test.lineage", (storage) => {
      seen.push(storage);
      return { storage };
    });
    const parent = registry.createRun();
    const child = registry.createRun({ parent: parent.scope() });
    const grandchild = registry.createRun({ parent: child });
    const parentStorage = parent.scope().storage;
    expect(child.scope().storage?.parent).toBe(parentStorage);
    expect(grandchild.scope().storage?.parent?.parent).toBe(parentStorage);
    expect(parentStorage?.get(key).storage).toBe(parentStorage);
    expect(seen).toEqual([parentStorage]);
    // Not enumerable: a workflow checkpoint (JSON) or a spread copy holds no run state.
    expect(Object.keys(JSON.parse(JSON.stringify(parent.scope())))).toEqual(["runId", "permissions", "depth", "profile"]);
    expect({ ...child.scope() }.storage).toBeUndefined();
    expect(registry.createRun({ parent: { ...child.scope() } }).scope().storage?.parent).toBeUndefined();
    expect(parentStorage?.lifetime.aborted).toBe(false);
    await parent.close();
    expect(parentStorage?.lifetime.aborted).toBe(true);
    expect(child.scope().storage?.lifetime.aborted).toBe(false);
  });

  it("never get wider permissions than the parent", () => {
    const root = mkdtempSync(join(tmpdir(), "child-run-"));
    mkdirSync(join(root, "w", "sub"), { recursive: true });
    mkdirSync(join(root, "elsewhere"));
    const w = join(root, "w");
    const registry = createRegistry({ tools: [echo, other] });
    const parent = registry.createRun({ permissions: { sandbox: "workspace", workspace: w, approval: "destructive" } });
    const child = registry.createRun({ parent, permissions: { sandbox: "unrestricted", approval: "none" } });
    expect(child.permissions).toEqual({ sandbox: "workspace", workspace: w, approval: "destructive" });
    expect(child.depth).toBe(1);
    const inside = registry.createRun({ parent, permissions: { workspace: join(w, "sub"), approval: "all" } });
    expect(inside.permissions).toEqual({ sandbox: "workspace", workspace: join(w, "sub"), approval: "all" });
    expect(() => registry.createRun({ parent, permissions: { workspace: join(root, "elsewhere") } })).toThrow(/inside it/);
    // positive control: without a parent the same request is honoured as asked
    expect(registry.createRun({ permissions: { sandbox: "unrestricted", approval: "none" } }).permissions.sandbox).toBe(
      "unrestricted",
    );
  });

  it("intersect allowed tools, and an empty intersection leaves only the always-available tools", async () => {
    const registry = createRegistry({ tools: [echo, other] });
    const parent = registry.createRun({ allowedTools: ["echo"] });
    const wider = registry.createRun({ parent: parent.scope(), allowedTools: ["echo", "other"] });
    expect(wider.definitions().map((tool) => tool.name)).toEqual(["find_tool", "echo"]);
    const disjoint = registry.createRun({ parent, allowedTools: ["other"] });
    expect(disjoint.definitions().map((tool) => tool.name)).toEqual(["find_tool"]);
    expect((await disjoint.call("other", {})).ok).toBe(false);
    const inherit = registry.createRun({ parent });
    expect(inherit.definitions().map((tool) => tool.name)).toEqual(["find_tool", "echo"]);
  });

  it("inherit the skill constraints in force when the scope is taken", () => {
    const registry = createRegistry({ tools: [echo, other] });
    const parent = registry.createRun();
    const lift = parent.applySkillConstraint("review", ["other"]);
    const child = registry.createRun({ parent, allowedTools: ["echo", "other"] });
    lift();
    expect(child.definitions().map((tool) => tool.name)).toEqual(["find_tool", "other"]);
  });
});

describe("preflight", () => {
  it("refuses before approval is asked; a passing preflight asks", async () => {
    const registry = createRegistry({ tools: [guarded] });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const asked: string[] = [];
    registry.approvals.events.on("approval.requested", (request) => {
      asked.push(request.id);
      void registry.approvals.approve(request.id);
    });
    const refused = await run.call("guarded", { refuse: true });
    expect(refused).toMatchObject({ ok: false, error: { code: "outside_workspace" } });
    expect(asked).toHaveLength(0);
    const allowed = await run.call("guarded", { refuse: false });
    expect(allowed).toMatchObject({ ok: true, output: "done" });
    expect(asked).toHaveLength(1);
  });
});

describe("rich results", () => {
  it("carry content parts, capped by maxBinaryBytes, with a text output", async () => {
    const small = Buffer.from("tiny png").toString("base64");
    const big = Buffer.alloc(2048).toString("base64");
    const picture = defineTool({
      name: "picture",
      description: "Returns images.",
      inputSchema: z.object({}),
      handler: () =>
        toolContent([
          { type: "text", text: "two images" },
          { type: "image", data: small, mediaType: "image/png" },
          { type: "image", data: big, mediaType: "image/png" },
        ]),
    });
    const run = createRegistry({ tools: [picture] }).createRun({ maxBinaryBytes: 1024 });
    const result = await run.call("picture", {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.content).toEqual([
      { type: "text", text: "two images" },
      { type: "image", data: small, mediaType: "image/png" },
      { type: "text", text: expect.stringMatching(/image omitted: image\/png, 2 KiB, over the 1 KiB/) },
    ]);
    expect(result.output).toMatch(/^two images\n\n\[image: image\/png, 1 KiB\]/);
  });
});

describe("child runs inherit the parent's profile", () => {
  const builtin = (name: string) =>
    defineTool({ name, description: `The ${name} tool.`, tags: ["builtin"], inputSchema: z.object({}), handler: () => name });
  const registryOf = () => createRegistry({ tools: [builtin("read"), builtin("todo"), echo] });
  const names = (run: { definitions(): readonly { name: string }[] }) => run.definitions().map((tool) => tool.name);

  it("a child of a minimal run presents minimal (todo off), through the run and through a JSON-saved scope", () => {
    const registry = registryOf();
    // The environment says core: the parent's profile still wins for its child.
    const parent = registry.createRun({ profile: "minimal", environment: { AGENT_TOOL_PROFILE: "core" } });
    expect(names(parent)).not.toContain("todo");
    for (const from of [parent, parent.scope(), JSON.parse(JSON.stringify(parent.scope()))]) {
      const child = registry.createRun({ parent: from, environment: { AGENT_TOOL_PROFILE: "core" } });
      expect(child.loading.profile).toBe("minimal");
      expect(names(child)).not.toContain("todo");
      expect(child.reach("todo")).toBe("off");
      expect(names(child)).toEqual(expect.arrayContaining(["read", "echo"]));
      // and its own child too
      expect(registry.createRun({ parent: child, environment: {} }).loading.profile).toBe("minimal");
    }
  });

  it("a child of a none run presents none: no built-ins", () => {
    const registry = registryOf();
    const parent = registry.createRun({ profile: "none", environment: {} });
    const child = registry.createRun({ parent, environment: {} });
    expect(child.loading.profile).toBe("none");
    expect(names(child)).not.toContain("read");
    expect(names(child)).not.toContain("todo");
  });

  it("positive control: a child that names its own profile gets it, and a core parent's child is core", () => {
    const registry = registryOf();
    const parent = registry.createRun({ profile: "minimal", environment: {} });
    const asked = registry.createRun({ parent, profile: "core", environment: {} });
    expect(asked.loading.profile).toBe("core");
    expect(asked.reach("todo")).not.toBe("off");
    expect(registry.createRun({ parent, environment: {} }).reach("todo")).toBe("off");
    const coreParent = registry.createRun({ environment: {} });
    const coreChild = registry.createRun({ parent: coreParent, environment: {} });
    expect(coreChild.loading.profile).toBe("core");
    expect(coreChild.reach("todo")).not.toBe("off");
  });

  it("a scope saved before profiles were inherited (no profile) resolves the child's own; a bad one is refused", () => {
    const registry = registryOf();
    const { profile: _dropped, ...old } = JSON.parse(
      JSON.stringify(registry.createRun({ profile: "minimal", environment: {} }).scope()),
    );
    expect(registry.createRun({ parent: old, environment: { AGENT_TOOL_PROFILE: "lite" } }).loading.profile).toBe("lite");
    expect(() => registry.createRun({ parent: { ...old, profile: "tiny" }, environment: {} })).toThrowError(
      expect.objectContaining({ code: "invalid_option", data: { field: "parent.profile" } }),
    );
  });
});
