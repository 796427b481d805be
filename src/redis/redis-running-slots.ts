import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { REDIS_NOW_LUA } from "./redis-clock.js";

// Takes a slot when fewer than ARGV[2] are held. KEYS[1] the sorted set of slots (member: a
// holder's token, score: its lease end by Redis's clock); ARGV: token, limit, lease ms. Slots whose
// lease ran out (their process died or stalled without renewing) are dropped first, so a killed
// process's slots come back one lease later. Returns {1, held} when taken, {0, held} when full.
const ACQUIRE = `
${REDIS_NOW_LUA}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%.0f', now))
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return {0, held} end
redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[3])), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, held + 1}
`;

// Renews the leases of slots still held. KEYS[1] the set; ARGV: lease ms, tokens... A slot that
// already ran out is not taken again (XX): another process may hold it by now.
const RENEW = `
${REDIS_NOW_LUA}
local leaseUntil = string.format('%.0f', now + tonumber(ARGV[1]))
for index = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', leaseUntil, ARGV[index]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/** What {@link RedisRunningSlots.acquire} answers. */
export type SlotAcquisition =
  | { readonly acquired: true; readonly token: string }
  | { readonly acquired: false; readonly held: number };

/**
 * A limit on how many things run at once over every process sharing one Redis key: each holder
 * takes a slot (a member of a sorted set, scored with its lease end by Redis's clock) and renews
 * its lease while it runs. A slot is given back when its holder ends, and by itself one lease
 * after its process stops renewing it (killed, or stalled), so a crash never keeps a slot.
 */
export class RedisRunningSlots {
  private readonly held = new Set<string>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly leaseMs: number,
  ) {}

  /** Takes a slot when fewer than `limit` are held. */
  async acquire(limit: number): Promise<SlotAcquisition> {
    const token = randomUUID();
    const [acquired, held] = (await this.redis.eval(ACQUIRE, 1, this.key, token, String(limit), String(this.leaseMs))) as [
      number,
      number,
    ];
    if (acquired !== 1) return { acquired: false, held };
    this.held.add(token);
    this.startHeartbeat();
    return { acquired: true, token };
  }

  /** Gives a slot back (a failed release leaves it to run out with its lease). */
  async release(token: string): Promise<void> {
    if (!this.held.delete(token)) return;
    await this.redis.zrem(this.key, token).catch(() => undefined);
  }

  /** Stops renewing: the slots still held here run out one lease later. */
  close(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.held.clear();
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(
      () => {
        if (this.held.size === 0) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
          return;
        }
        void this.redis.eval(RENEW, 1, this.key, String(this.leaseMs), ...this.held).catch(() => undefined);
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    this.heartbeat.unref();
  }
}
