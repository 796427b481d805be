import { CatalogError } from "agent-tool-catalog";
import { checkNumberOption, TIMER_MS } from "../errors/check-number-option.js";

/**
 * How long a Redis-backed read or decision waits for Redis by default, in ms: the bound the run's
 * save after a call already has (`CALL_SAVE_WAIT_MS`), long enough for a client that reconnects to
 * a restarted server, short enough that a stopped server does not hold a request handler.
 */
export const DEFAULT_REDIS_OPERATION_TIMEOUT_MS = 10_000;

/**
 * Thrown by the Redis-backed parts (`load`, `delete`, `pending`, `approve`, `deny`, `resolution`,
 * a subagent's or workflow run's `get` and `cancel`) when Redis did not answer within their
 * `operationTimeoutMs`: a stopped or hung server with a client that has no `commandTimeout`
 * (ioredis's default) would otherwise hold the caller forever.
 *
 * It claims nothing about what Redis holds. `mayHaveRun` says whether a command that changes
 * anything was sent and may still run once Redis answers (an `approve` that timed out can still
 * land; a `load` cannot change anything; `pending` is true only when it had started denying
 * overdue requests).
 *
 * Inside a tool (a subagent's `get`, a workflow run's `cancel`, a cron or callback tool) the model
 * reads it as `redis_timeout`, with the message saying whether it may have taken effect and a
 * `hint` to look before retrying (when `mayHaveRun`) or to retry in a few seconds.
 *
 * @beta
 */
export class RedisTimeoutError extends CatalogError {
  /** The kind the markers use for this class. */
  static override readonly errorKind: string = "RedisTimeoutError";
  declare readonly code: "redis_timeout";
  /** What was asked, e.g. `"RedisRunStore.load"`. */
  readonly operation: string;
  /** How long it waited, in ms. */
  readonly waitedMs: number;
  /** True when a command that changes state in Redis was sent and may still be applied once Redis answers. */
  readonly mayHaveRun: boolean;
  /** What to do next (what the model reads as the hint of a `redis_timeout` tool result). */
  readonly hint: string;

  constructor(operation: string, waitedMs: number, mayHaveRun: boolean) {
    super(
      "redis_timeout",
      `Redis did not answer ${operation} within ${waitedMs} ms; ` +
        (mayHaveRun
          ? "it was not confirmed and may still be applied once Redis answers (mayHaveRun: true)."
          : "nothing was read or changed, and nothing is known about what Redis holds (mayHaveRun: false)."),
      { data: { operation, waitedMs, mayHaveRun } },
    );
    this.name = "RedisTimeoutError";
    this.operation = operation;
    this.waitedMs = waitedMs;
    this.mayHaveRun = mayHaveRun;
    this.hint = mayHaveRun
      ? "The state store is slow or down. Before trying again, check whether it took effect (get or list it); retrying blindly may do it twice."
      : "The state store is slow or down; nothing was changed. Try again in a few seconds.";
  }
}

/**
 * Checks an `operationTimeoutMs` option: a positive whole number of ms that a timer can hold.
 * @throws ConfigurationError `invalid_option` otherwise (a host's mistake, named with its field).
 */
export function operationTimeout(value: number | undefined, owner: string): number {
  return checkNumberOption(value, "operationTimeoutMs", TIMER_MS, owner) ?? DEFAULT_REDIS_OPERATION_TIMEOUT_MS;
}

/** A time Redis keeps a record (`PX`): whole ms at least 1 (`Infinity` is no number Redis takes). */
export const RETAIN_MS = Object.freeze({ min: 1, integer: true });

/**
 * Checks the timing options of the durable job records (subagents, workflow runs): the lease is
 * renewed by a timer every third of it and a wait polls by a timer, so both must fit one.
 * @throws ConfigurationError `invalid_option` naming the option.
 */
export function checkDurableJobSettings(
  options: {
    readonly leaseMs?: number | undefined;
    readonly retainMs?: number | undefined;
    readonly pollIntervalMs?: number | undefined;
  },
  owner: string,
): void {
  checkNumberOption(options.leaseMs, "leaseMs", TIMER_MS, owner);
  checkNumberOption(options.retainMs, "retainMs", RETAIN_MS, owner);
  checkNumberOption(options.pollIntervalMs, "pollIntervalMs", TIMER_MS, owner);
}

/**
 * `step`'s value, or a {@link RedisTimeoutError} once `timeoutMs` passes first. The step is not
 * cancelled (ioredis cannot take back a command it sent): its later outcome is ignored here.
 * `mayHaveRun` may be a function, asked at the deadline: whether the step had sent a write by then.
 */
export async function withinRedisDeadline<T>(
  operation: string,
  timeoutMs: number,
  mayHaveRun: boolean | (() => boolean),
  step: () => Promise<T>,
): Promise<T> {
  const started = step();
  // A rejection after the deadline has nobody to go to: not an unhandled rejection.
  started.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      started,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new RedisTimeoutError(operation, timeoutMs, typeof mayHaveRun === "function" ? mayHaveRun() : mayHaveRun)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
