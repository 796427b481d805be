import type { Redis } from "ioredis";

/**
 * Lua that sets `now` to Redis's own wall clock in whole ms, for scripts that set or judge a
 * deadline or a lease. Hosts sharing one Redis may disagree about the time (a broken NTP, a VM
 * resumed from a snapshot); a deadline set by one host's `Date.now()` and judged by another's
 * moves by their difference: a lease read on a host a minute ahead ran out on sight, a request
 * made on a host a minute behind was denied the moment anyone listed it. Judged by one clock,
 * Redis's, only the durations the hosts measure matter.
 */
export const REDIS_NOW_LUA = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;
// A Lua number handed to redis.call is formatted with %.14g: scripts store times with
// string.format('%.0f', ...) so a ms timestamp always stays a whole decimal number.

/** Redis's wall clock in ms (the `TIME` command): what {@link REDIS_NOW_LUA} reads in a script. */
export async function redisNow(redis: Redis): Promise<number> {
  const [seconds, microseconds] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(microseconds) / 1000);
}
