/**
 * Red team round 46: arguments nested 20,000 levels deep (a 40 KB string, which a run takes and a
 * tool whose schema does not recurse runs) under an approval policy with `RedisApprovalBroker`.
 * The broker wrote the request with `JSON.stringify`, which overflowed the stack: the call
 * answered that the approval service failed, with Redis up and well. The request must be stored
 * (whole, or cut past `maxStoredInputChars` as any long input is), listed, and approvable with the
 * digest a page computes; the approved call runs.
 */
import { approvalArgumentsDigest, createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { RedisApprovalBroker, type StoredApprovalRequest } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const DEPTH = 20_000;
const deep = (depth: number) => `{"v":${"[".repeat(depth)}${"]".repeat(depth)}}`;

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("RedisApprovalBroker: deeply nested arguments"), () => {
  const server = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = server.client();
  });

  async function approveOnce(
    prefix: string,
    maxStoredInputChars: number,
    arguments_: string,
    check: (request: StoredApprovalRequest) => void,
  ): Promise<ToolCallResult> {
    const broker = new RedisApprovalBroker({ redis, prefix, maxStoredInputChars, pollIntervalMs: 20 });
    let runs = 0;
    const registry = createRegistry({
      approvals: broker,
      tools: [
        defineTool({
          name: "take",
          description: "Takes any JSON value in v.",
          mutating: true,
          inputSchema: { type: "object", properties: { v: {} } },
          handler: () => `took ${++runs}`,
        }),
      ],
    });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const call = run.call("take", arguments_);
    try {
      let listed: StoredApprovalRequest[] = [];
      for (let tries = 0; tries < 200 && listed.length === 0; tries++) {
        listed = await broker.pending();
        if (listed.length === 0) await Promise.race([call, new Promise((resolve) => setTimeout(resolve, 25))]);
      }
      const request = listed[0];
      if (request === undefined) return await call;
      check(request);
      // The digest of what was stored and shown matches the one the broker bound the request to.
      const shown = request.inputTruncated
        ? approvalArgumentsDigest({ ...request, input: JSON.parse(arguments_) })
        : approvalArgumentsDigest(request);
      expect(await broker.decide(request.id, "approved", { argumentsDigest: shown, inputTruncatedSeen: true })).toEqual({
        ok: true,
      });
      return await call;
    } finally {
      await registry.close();
      await call;
      await broker.close();
    }
  }

  it("cut past maxStoredInputChars (the default 16,000), listed, approved, run", async () => {
    const result = await approveOnce("r46a", 16_000, deep(DEPTH), (request) => {
      expect(request.inputTruncated).toBe(true);
      expect(String(request.input).startsWith(`{"v":${"[".repeat(100)}`)).toBe(true);
    });
    expect(result).toMatchObject({ ok: true, output: "took 1" });
  });

  it("kept whole with no bound: listed as sent, approved, run", async () => {
    const result = await approveOnce("r46b", Number.POSITIVE_INFINITY, deep(DEPTH), (request) => {
      expect(request.inputTruncated).toBe(false);
      let level = (request.input as { v: unknown }).v;
      let depth = 0;
      for (; Array.isArray(level); depth++) level = level[0];
      expect(depth).toBe(DEPTH);
    });
    expect(result).toMatchObject({ ok: true, output: "took 1" });
  });

  it("control: shallow arguments, the same way", async () => {
    const result = await approveOnce("r46c", 16_000, '{"v":[[1]]}', (request) => {
      expect(request.input).toEqual({ v: [[1]] });
    });
    expect(result).toMatchObject({ ok: true, output: "took 1" });
  });
});
