/**
 * Red team round 37: a pending approval request in Redis that another program (or another
 * version) wrote: listed in the pending set, `status: pending`, but its `request` not a request
 * (cut JSON, `null`, a number). `RedisApprovalBroker.pending()` parsed every listed request and
 * threw on the first unreadable one (a bare `SyntaxError`, or a `TypeError` for `null` under a
 * run filter), so no approver could list any request: the real calls waiting beside it went
 * unanswered until their deadline denied them. Unreadable entries are now left out of the
 * listing (nobody could be shown them; their deadline still denies them), and the others listed.
 * Control: the real request is listed and approving it runs the call.
 */
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const PREFIX = "r37a";
const UNREADABLE = ['{"id":"cut', "null", "42", "[]"];

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("RedisApprovalBroker: unreadable pending requests"), () => {
  const server = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = server.client();
  });

  async function plant(): Promise<void> {
    const [seconds] = await redis.time();
    const expiresAt = (Number(seconds) + 600) * 1000;
    for (const [index, json] of UNREADABLE.entries()) {
      const id = `planted-${index}`;
      await redis.hset(
        `${PREFIX}:approval:${id}`,
        "status",
        "pending",
        "request",
        json,
        "requestedAt",
        "1",
        "expiresAt",
        String(expiresAt),
      );
      await redis.zadd(`${PREFIX}:approvals:pending`, expiresAt, id);
    }
  }

  it("pending() lists the real request beside them, with and without a run filter; approving it runs the call", async () => {
    const broker = new RedisApprovalBroker({ redis, prefix: PREFIX });
    let runs = 0;
    const registry = createRegistry({
      approvals: broker,
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys.",
          tier: "core",
          inputSchema: z.object({}),
          handler: () => ++runs,
        }),
      ],
    });
    await plant();
    const run = registry.createRun({ runId: "r37-run", permissions: { approval: "all" } });
    const call: Promise<ToolCallResult> = run.call("deploy", {});
    try {
      let listed: Awaited<ReturnType<typeof broker.pending>> = [];
      for (let tries = 0; tries < 200 && listed.length === 0; tries++) {
        listed = await broker.pending();
        if (listed.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(listed.map((request) => request.toolName)).toEqual(["deploy"]);
      expect((await broker.pending({ runId: "r37-run" })).map((request) => request.toolName)).toEqual(["deploy"]);
      expect(await broker.approve(listed[0]?.id as string)).toBe(true);
      expect(await call).toMatchObject({ ok: true, output: 1 });
      expect(runs).toBe(1);
    } finally {
      await registry.close();
      await call;
      await broker.close();
    }
  });
});
