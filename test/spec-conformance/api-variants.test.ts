/**
 * Spec conformance, variants round 2 (/work/shared/spec/agent-tool-catalog.md "Default
 * permissions", "find_tool", "Enabling conditions"; tool-profiles-and-loading.md "Three loading
 * tiers"): the statements behind the public API that round 1 did not vary: the approval broker's
 * timeouts and what a decision covers, defineTool's checks, the `[tools]` table, the fake-model
 * helpers of `agent-tool-catalog/testing`. Each area is also checked once through the built
 * package from CommonJS (`require`), as a CommonJS user loads it. Statement table:
 * docs/spec-conformance.md.
 */
import { createRegistry, defineTool, InMemoryApprovalBroker } from "agent-tool-catalog";
import { InMemoryQuestionBroker, ManualClock } from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { modelError, ok, runCommonJs } from "./support.js";

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

  it("from CommonJS: the same short timeout message", () => {
    const message = runCommonJs(`
      const { createRegistry, defineTool } = require("agent-tool-catalog");
      const tool = defineTool({ name: "w", description: "W.", mutating: true, inputSchema: { type: "object" }, handler: () => "w" });
      createRegistry({ tools: [tool] }).createRun({ permissions: { approval: "all" }, approvalTimeoutMs: 120 })
        .call("w", {}).then((result) => console.log(JSON.stringify(result.error.message)));`);
    expect(message).toContain("within 120 ms");
  });
});
