/**
 * Review of the call-id claim (stop 39): a claim that Redis answered after `operationTimeoutMs`
 * (`CLIENT PAUSE`) was refused `redis_timeout`, then landed with a token nobody held and locked the
 * id for its 30 s lease: the retry the model was told to make read "Another call ... is running"
 * while nothing ran. The claim is now given up with its token at once (the release follows the late
 * claim on the same connection). Fails on the old code.
 */
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { RedisRunStore } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

describe.skipIf(redisCapability.missing)(redisCapability.label("a call claim that timed out"), () => {
  const server = useRedisServer();
  const client = (): Redis => server.client({ maxRetriesPerRequest: null });

  it("does not lock the id once Redis answers again; control: a claim held by a running call still refuses", async () => {
    let ran = 0;
    let finish: () => void = () => undefined;
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys.",
          inputSchema: z.object({}),
          handler: async () => {
            ran++;
            await new Promise<void>((resolve) => {
              finish = resolve;
            });
            return "deployed";
          },
        }),
      ],
    });
    const redis = client();
    const admin = client();
    await redis.ping();
    const store = new RedisRunStore({ redis, operationTimeoutMs: 300 });
    await admin.call("CLIENT", "PAUSE", "1500", "ALL");
    const timedOut = await registry.createRun({ runId: "conv", store }).call("deploy", {}, { callId: "toolu_1" });
    expect(code(timedOut)).toBe("redis_timeout");
    expect(ran).toBe(0);
    // The pause over, the queued claim and then its release have run.
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    await redis.ping();
    const retry = registry
      .createRun({ runId: "conv", store: new RedisRunStore({ redis: client() }) })
      .call("deploy", {}, { callId: "toolu_1" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toBe(1);
    // Control: while the retry runs, another copy of the run is refused.
    const second = await registry
      .createRun({ runId: "conv", store: new RedisRunStore({ redis: client() }) })
      .call("deploy", {}, { callId: "toolu_1" });
    expect(code(second)).toBe("duplicate_call_id");
    finish();
    expect(code(await retry)).toBe("ok");
  });
});
