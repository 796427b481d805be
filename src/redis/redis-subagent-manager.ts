import type { SubagentManager, SubagentRequest, SubagentSnapshot, SubagentWaitOptions } from "agent-tool-catalog/host";
import type { Redis } from "ioredis";
import { DurableJobs } from "./durable-jobs.js";

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

  constructor(options: RedisSubagentManagerOptions) {
    this.local = options.local;
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
  }

  /** {@inheritDoc SubagentManager.start} */
  async start(request: SubagentRequest): Promise<SubagentSnapshot> {
    const snapshot = await this.local.start(request);
    // A fresh id cannot be owned elsewhere; a refused claim would mean an id collision.
    if (!(await this.jobs.claim(snapshot))) {
      await this.local.cancel(snapshot.id);
      throw new Error(`Subagent id ${snapshot.id} is in use by another process.`);
    }
    return snapshot;
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
  }
}
