import { defineTool } from "agent-tool-catalog";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, expect } from "vitest";
import { z } from "zod";
import { type RedisServer, useRedisServer } from "../../support/redis-server.js";
import { settleWithin } from "../../support/settle-within.js";

/**
 * `promise`'s value, or "still waiting" after `ms`: a hang shows as a value, not a test timeout.
 * The timer is cleared once the race is decided, so a settled call leaves no timer behind for the
 * next file in a shared worker (test/support/shared-worker-guard.ts).
 */
export const within = <T>(promise: Promise<T>, ms: number): Promise<T | "still waiting"> =>
  settleWithin(promise, ms, () => "still waiting" as const);

/** A mutating tool (so approval and state saving apply) that returns its number. */
export const echoTool = defineTool({
  name: "echo",
  description: "Returns its number.",
  inputSchema: z.object({ n: z.number() }),
  mutating: true,
  handler: ({ n }) => n,
});

/** What {@link useHangingRedis} gives a suite. */
export interface HangingRedis {
  /** The real `redis-server` of the suite (pause it to make it hang). */
  readonly server: RedisServer;
  /** A client with ioredis's defaults (the README's `new Redis(url)`); errors while down are expected. */
  client(): Redis;
}

/**
 * Starts a `redis-server` for the enclosing `describe` (test/support/redis-server.ts), and checks
 * after each test that no rejection went unhandled: the server is resumed, given `settleMs` for
 * late replies to land, then the unhandled rejections seen during the test must be none.
 */
export function useHangingRedis(settleMs: number): HangingRedis {
  const suite = useRedisServer();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
  });
  afterEach(async () => {
    suite.server.resume();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    process.off("unhandledRejection", onUnhandled);
    expect(unhandled).toEqual([]);
  });
  return {
    get server() {
      return suite.server;
    },
    client() {
      const redis = suite.client();
      redis.on("error", () => undefined);
      return redis;
    },
  };
}
