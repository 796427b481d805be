import { ToolError } from "agent-tool-catalog";
import type { SubagentManager, SubagentRequest, SubagentSnapshot, SubagentWaitOptions } from "agent-tool-catalog/host";
import type { Redis } from "ioredis";
import { checkNumberOption } from "../errors/check-number-option.js";
import { DurableJobs } from "./durable-jobs.js";
import { redisKey } from "./redis-key.js";
import { RedisRunningSlots } from "./redis-running-slots.js";

/**
 * Options of {@link RedisSubagentManager}.
 *
 * @beta
 */
export interface RedisSubagentManagerOptions {
  /** The connection (an ioredis client the host owns and closes). A duplicate is made for pub/sub. */
  readonly redis: Redis;
  /** Runs the subagents this process starts (usually an `InProcessSubagentManager`). */
  readonly local: SubagentManager;
  /** Prefix of every key and channel. @defaultValue `"atc"` */
  readonly prefix?: string;
  /**
   * A running subagent whose process has not renewed its lease for this long is reported
   * `failed` ("the process running it stopped") by whoever reads it next.
   * @defaultValue 15000
   */
  readonly leaseMs?: number;
  /** How long an ended subagent stays readable, in ms. @defaultValue 86400000 (a day) */
  readonly retainMs?: number;
  /** How often a wait re-reads the record when no notification arrives, in ms. @defaultValue 500 */
  readonly pollIntervalMs?: number;
  /**
   * How long `get` and `cancel` wait for Redis before they reject with a `RedisTimeoutError`
   * (never "unknown" for a subagent it could not read), in ms. `wait` is bounded by its own `timeoutMs`.
   * @defaultValue 10000
   */
  readonly operationTimeoutMs?: number;
  /**
   * Most subagents running at once over every process sharing the Redis `prefix`; more are
   * refused with `too_many_subagents`, not queued, as `InProcessSubagentManager`'s `maxRunning`
   * refuses them in one process (whose own limit still applies to what `local` runs). Counted in
   * Redis with a slot per subagent, leased as the subagent is: a killed process's slots come back
   * once `leaseMs` passes. A whole number at least 1, or `Infinity`.
   * @defaultValue `Infinity` (each process bounded by its `local` manager only)
   */
  readonly maxRunning?: number;
}

/**
 * A `SubagentManager` whose subagents are visible to every process: the process that starts
 * a subagent runs it (through `local`) and mirrors its snapshot into Redis; any process can `get`,
 * `wait` for (`wait_subagent` from another replica) or `cancel` it (the request reaches the
 * running process over pub/sub). A subagent whose process dies is reported `failed` once its
 * lease runs out, never left `running` forever; a process that only stalled past its lease
 * cancels its copy instead of finishing it unseen.
 * @beta
 */
export class RedisSubagentManager implements SubagentManager {
  private readonly local: SubagentManager;
  private readonly jobs: DurableJobs<SubagentSnapshot>;
  private readonly maxRunning: number;
  private readonly slots: RedisRunningSlots | undefined;

  constructor(options: RedisSubagentManagerOptions) {
    checkNumberOption(options.maxRunning, "maxRunning", { min: 1, integer: true, infinite: true }, "RedisSubagentManager");
    this.local = options.local;
    this.maxRunning = options.maxRunning ?? Number.POSITIVE_INFINITY;
    this.jobs = new DurableJobs<SubagentSnapshot>({
      redis: options.redis,
      prefix: options.prefix,
      kind: "subagent",
      leaseMs: options.leaseMs,
      retainMs: options.retainMs,
      pollIntervalMs: options.pollIntervalMs,
      operationTimeoutMs: options.operationTimeoutMs,
      local: options.local,
      idOf: (snapshot) => snapshot.id,
      isRunning: (snapshot) => snapshot.status === "running",
      interrupted: (snapshot, now) => ({
        ...snapshot,
        status: "failed",
        finishedAt: now,
        error: "The process running this subagent stopped.",
      }),
    });
    this.slots = Number.isFinite(this.maxRunning)
      ? new RedisRunningSlots(
          options.redis,
          redisKey(options.prefix ?? "atc", "subagents", "running"),
          options.leaseMs ?? DEFAULT_LEASE_MS,
        )
      : undefined;
  }

  /**
   * {@inheritDoc SubagentManager.start}
   * @throws ToolError `too_many_subagents` when `maxRunning` subagents run over every process.
   */
  async start(request: SubagentRequest): Promise<SubagentSnapshot> {
    const slot = await this.takeSlot();
    let snapshot: SubagentSnapshot;
    try {
      snapshot = await this.local.start(request);
      // A fresh id cannot be owned elsewhere; a refused claim would mean an id collision.
      if (!(await this.jobs.claim(snapshot))) {
        await this.local.cancel(snapshot.id);
        throw new Error(`Subagent id ${snapshot.id} is in use by another process.`);
      }
    } catch (error) {
      if (slot !== undefined) await this.slots?.release(slot);
      throw error;
    }
    if (slot !== undefined) void this.releaseWhenEnded(snapshot.id, slot);
    return snapshot;
  }

  /** A slot of `maxRunning`, or `undefined` when there is no limit. */
  private async takeSlot(): Promise<string | undefined> {
    if (this.slots === undefined) return undefined;
    const slot = await this.slots.acquire(this.maxRunning);
    if (slot.acquired) return slot.token;
    throw new ToolError("too_many_subagents", `${slot.held} subagents are running already (the limit is ${this.maxRunning}).`, {
      hint: "Wait for one with wait_subagent, or cancel one, then start again.",
    });
  }

  /** Gives the slot back when the subagent ends here (however: completed, failed, cancelled). */
  private async releaseWhenEnded(id: string, slot: string): Promise<void> {
    try {
      for (;;) {
        const snapshot = await this.local.wait(id, { timeoutMs: 60_000 });
        if (snapshot === undefined || snapshot.status !== "running") break;
      }
    } catch {
      // The local manager could not say: the slot is given back rather than held forever.
    }
    await this.slots?.release(slot);
  }

  /** {@inheritDoc SubagentManager.get} */
  get(id: string): Promise<SubagentSnapshot | undefined> {
    return this.jobs.get(id);
  }

  /** {@inheritDoc SubagentManager.wait} */
  wait(id: string, options: SubagentWaitOptions): Promise<SubagentSnapshot | undefined> {
    return this.jobs.wait(id, options);
  }

  /** {@inheritDoc SubagentManager.cancel} */
  cancel(id: string): Promise<SubagentSnapshot | undefined> {
    return this.jobs.cancel(id);
  }

  /** Stops this process's heartbeat and subscription (its running subagents then fail their lease elsewhere). */
  close(): void {
    this.jobs.close();
    this.slots?.close();
  }
}

/** The lease of `DurableJobs` when `leaseMs` is not given; slots are leased alike. */
const DEFAULT_LEASE_MS = 15_000;
