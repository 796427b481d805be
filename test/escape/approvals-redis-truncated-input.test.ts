/**
 * Red team round 24: `RedisApprovalBroker` stores at most `maxStoredInputChars` of a request's
 * input for approvers to read (`inputTruncated` marks the cut). A hostile model pads a call so
 * that what it does lies past the cut: the approver, listing the request, sees a harmless head
 * and approves a call it was not shown. An approval of a truncated request must say that the
 * approver saw the mark (`inputTruncatedSeen`), or it does not approve.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const redisCapability = capability("redis");

describe.skipIf(redisCapability.missing)(redisCapability.label("approving a request whose stored input was cut"), () => {
  const server = useRedisServer();
  let prefix = 0;

  function setup() {
    const ran: string[][] = [];
    const approvals = new RedisApprovalBroker({ redis: server.client(), prefix: `trunc${++prefix}`, maxStoredInputChars: 200 });
    server.closers.push(() => approvals.close());
    const registry = createRegistry({
      approvals,
      tools: [
        defineTool({
          name: "run_commands",
          description: "Run shell commands.",
          mutating: true,
          inputSchema: z.object({ commands: z.array(z.string()) }),
          handler: ({ commands }) => {
            ran.push(commands);
            return "ran";
          },
        }),
      ],
    });
    const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 20_000 });
    return { ran, approvals, run };
  }

  /** A harmless head, padding, and what the call really does past the stored 200 characters. */
  const padded = { commands: ["ls", ...Array.from({ length: 40 }, () => "true"), "rm -rf ~/thesis"] };

  escapeAttempt(
    "approvals",
    "an approver shown a cut input does not approve what lies past the cut without saying so",
    async () => {
      const { ran, approvals, run } = setup();
      const call = run.call("run_commands", padded);
      await expect.poll(async () => (await approvals.pending()).length, { timeout: 10_000 }).toBe(1);
      const [listed] = await approvals.pending();
      expect(listed?.inputTruncated).toBe(true);
      expect(JSON.stringify(listed?.input)).not.toContain("rm -rf");
      // An approver that approves what it lists, the digest included (as listed), mark unread.
      expect(await approvals.approve(listed?.id ?? "", { argumentsDigest: listed?.argumentsDigest ?? "" })).toBe(false);
      expect(await approvals.approve(listed?.id ?? "")).toBe(false);
      expect((await approvals.pending()).map((request) => request.id)).toEqual([listed?.id]);
      expect(ran).toEqual([]);
      // Still deniable as it is.
      expect(await approvals.deny(listed?.id ?? "", "too long to review")).toBe(true);
      expect(await call).toMatchObject({ ok: false, error: { code: "approval_denied" } });
      expect(ran).toEqual([]);
    },
  );

  it("control: an approver that saw the mark approves it, and an input stored whole approves as before", async () => {
    const { ran, approvals, run } = setup();
    const cut = run.call("run_commands", padded);
    await expect.poll(async () => (await approvals.pending()).length, { timeout: 10_000 }).toBe(1);
    const [listed] = await approvals.pending();
    expect(await approvals.approve(listed?.id ?? "", { inputTruncatedSeen: true })).toBe(true);
    expect(await cut).toMatchObject({ ok: true });
    const whole = run.call("run_commands", { commands: ["ls"] });
    await expect.poll(async () => (await approvals.pending()).length, { timeout: 10_000 }).toBe(1);
    const [short] = await approvals.pending();
    expect(short?.inputTruncated).toBe(false);
    expect(await approvals.approve(short?.id ?? "")).toBe(true);
    expect(await whole).toMatchObject({ ok: true });
    expect(ran).toEqual([padded.commands, ["ls"]]);
  });
});
