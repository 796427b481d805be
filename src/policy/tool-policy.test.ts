import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sampleTools } from "../../test/support/sample-tools.js";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import { InMemoryApprovalBroker } from "./in-memory-approval-broker.js";
import { resolvePermissionConfig } from "./permission-config.js";
import { applyPolicy, approvalRequiredBy } from "./tool-policy.js";

/** Approves or denies each request as it arrives, recording what was asked. */
function autoDecide(broker: InMemoryApprovalBroker, decide: (toolName: string) => boolean): string[] {
  const asked: string[] = [];
  broker.events.on("approval.requested", (request) => {
    asked.push(request.toolName);
    queueMicrotask(() => (decide(request.toolName) ? broker.approve(request.id) : broker.deny(request.id, "the user said no")));
  });
  return asked;
}

describe("approval policy", () => {
  it("asks for mutating tools under destructive and for every tool under all", () => {
    expect(approvalRequiredBy("none", { mutating: true })).toBeUndefined();
    expect(approvalRequiredBy("destructive", { mutating: false })).toBeUndefined();
    expect(approvalRequiredBy("destructive", { mutating: true })).toBe("destructive");
    expect(approvalRequiredBy("all", { mutating: false })).toBe("all");
  });

  it("under destructive, asks before write and not before read; a denial does nothing", async () => {
    const broker = new InMemoryApprovalBroker();
    let writes = 0;
    const tools = [
      ...sampleTools().filter((tool) => tool.name !== "write"),
      defineTool({
        name: "write",
        description: "Write.",
        mutating: true,
        inputSchema: z.object({ path: z.string() }),
        handler: () => {
          writes++;
          return "written";
        },
      }),
    ];
    const registry = createRegistry({ tools, approvals: broker });
    const asked = autoDecide(broker, () => false);
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    expect((await run.call("read", { path: "a" })).ok).toBe(true);
    const denied = await run.call("write", { path: "a" });
    expect(denied).toMatchObject({
      ok: false,
      error: { code: "approval_denied", message: expect.stringContaining("the user said no") },
    });
    expect(writes).toBe(0);
    expect(asked).toEqual(["write"]);
  });

  it("under all, asks before every call and runs the approved ones", async () => {
    const broker = new InMemoryApprovalBroker();
    const registry = createRegistry({ tools: sampleTools(), approvals: broker });
    const asked = autoDecide(broker, (name) => name === "read");
    const run = registry.createRun({ permissions: { approval: "all" } });
    expect(await run.call("read", { path: "a" })).toMatchObject({ ok: true });
    expect(await run.call("write", { path: "a", content: "x" })).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    // find_tool acts on nothing: it is never asked for (issue 19.5)
    expect(await run.call("find_tool", { query: "git" })).toMatchObject({ ok: true });
    expect(asked).toEqual(["read", "write"]);
  });

  it("asks only after validation, so a malformed call is refused without bothering anyone", async () => {
    const broker = new InMemoryApprovalBroker();
    const registry = createRegistry({ tools: sampleTools(), approvals: broker });
    const asked = autoDecide(broker, () => true);
    const run = registry.createRun({ permissions: { approval: "all" } });
    expect((await run.call("write", { path: 1 })).ok).toBe(false);
    expect(asked).toEqual([]);
  });

  it("denies when nobody answers within the run's approval timeout", async () => {
    const registry = createRegistry({ tools: sampleTools() });
    const resolved: string[] = [];
    registry.events.on("approval.resolved", (resolution) => resolved.push(resolution.resolvedBy));
    const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 20 });
    const result = await run.call("write", { path: "a", content: "x" });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "approval_denied", message: expect.stringContaining("nobody approved it") },
    });
    expect(resolved).toEqual(["timeout"]);
  });

  it("reports aborted when the call is cancelled while it waits", async () => {
    const registry = createRegistry({ tools: sampleTools() });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const controller = new AbortController();
    const pending = run.call("write", { path: "a", content: "x" }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(registry.approvals.pending()).toHaveLength(1);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(registry.approvals.pending()).toEqual([]);
  });

  it("applyPolicy wraps a handler for use outside a run", async () => {
    const broker = new InMemoryApprovalBroker();
    autoDecide(broker, () => false);
    let ran = false;
    const tool = defineTool({
      name: "rm",
      description: "Remove.",
      mutating: true,
      inputSchema: z.object({}),
      handler: () => {
        ran = true;
        return "";
      },
    });
    const guarded = applyPolicy(tool, { permissions: resolvePermissionConfig({ approval: "destructive" }), approvals: broker });
    const context = { runId: "r", callId: "c", toolName: "rm", signal: new AbortController().signal } as never;
    await expect(guarded.handler({}, context)).rejects.toMatchObject({ code: "approval_denied" });
    expect(ran).toBe(false);
  });
});
