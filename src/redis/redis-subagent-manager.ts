import type { SubagentManager, SubagentRequest, SubagentSnapshot, SubagentWaitOptions } from "agent-tool-catalog/host";
import type { Redis } from "ioredis";
import { redisKey } from "./redis-key.js";

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
}

interface StoredSubagent {
  readonly snapshot: SubagentSnapshot;
  readonly leaseUntil: number;
}

// Marks a running subagent failed when its lease ran out; KEYS[1] the record, ARGV: now, JSON of
// the failed snapshot, retain ms, channel, id. Returns the record's JSON after the check.
const EXPIRE_LEASE = `
local json = redis.call('GET', KEYS[1])
if not json then return false end
local record = cjson.decode(json)
if record.snapshot.status == 'running' and record.leaseUntil < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  redis.call('PUBLISH', ARGV[4], ARGV[5])
  return ARGV[2]
end
return json
`;

/**
 * A `SubagentManager` whose subagents are visible to every process: the process that starts
 * a subagent runs it (through `local`) and mirrors its snapshot into Redis; any process can `get`,
 * `wait` for (`wait_subagent` from another replica) or `cancel` it (the request reaches the
 * running process over pub/sub). A subagent whose process dies is reported `failed` once its
 * lease runs out, never left `running` forever.
 * @beta
 */
export class RedisSubagentManager implements SubagentManager {
  private readonly redis: Redis;
  private readonly local: SubagentManager;
  private readonly prefix: string;
  private readonly leaseMs: number;
  private readonly retainMs: number;
  private readonly pollIntervalMs: number;
  private readonly running = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private subscriber: Redis | undefined;
  private subscribed: Promise<void> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(options: RedisSubagentManagerOptions) {
    this.redis = options.redis;
    this.local = options.local;
    this.prefix = options.prefix ?? "atc";
    this.leaseMs = options.leaseMs ?? 15_000;
    this.retainMs = options.retainMs ?? 86_400_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
  }

  /** {@inheritDoc SubagentManager.start} */
  async start(request: SubagentRequest): Promise<SubagentSnapshot> {
    await this.subscribe();
    const snapshot = await this.local.start(request);
    await this.write(snapshot);
    if (snapshot.status === "running") {
      this.running.add(snapshot.id);
      this.startHeartbeat();
      void this.follow(snapshot.id);
    }
    return snapshot;
  }

  /** {@inheritDoc SubagentManager.get} */
  async get(id: string): Promise<SubagentSnapshot | undefined> {
    const json = await this.redis.get(this.key(id));
    if (json === null) return undefined;
    const record = JSON.parse(json) as StoredSubagent;
    if (record.snapshot.status === "running" && record.leaseUntil < Date.now()) return this.failLease(id, record);
    return record.snapshot;
  }

  /** {@inheritDoc SubagentManager.wait} */
  async wait(id: string, options: SubagentWaitOptions): Promise<SubagentSnapshot | undefined> {
    await this.subscribe();
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const snapshot = await this.get(id);
      if (snapshot === undefined || snapshot.status !== "running") return snapshot;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted === true) return snapshot;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          options.signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, this.pollIntervalMs));
        this.waiters.add(done);
        options.signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  /** {@inheritDoc SubagentManager.cancel} */
  async cancel(id: string): Promise<SubagentSnapshot | undefined> {
    if (this.running.has(id)) {
      const snapshot = await this.local.cancel(id);
      if (snapshot !== undefined) await this.write(snapshot);
      return snapshot;
    }
    const current = await this.get(id);
    if (current === undefined || current.status !== "running") return current;
    await this.redis.publish(this.channel("cancel"), id);
    // The running process cancels and writes the end state; give it a moment to land.
    return (await this.wait(id, { timeoutMs: 2_000 })) ?? current;
  }

  /** Stops this process's heartbeat and subscription (its running subagents then fail their lease elsewhere). */
  close(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    for (const wake of [...this.waiters]) wake();
  }

  private async follow(id: string): Promise<void> {
    try {
      for (;;) {
        const snapshot = await this.local.wait(id, { timeoutMs: 60_000 });
        if (snapshot === undefined) return;
        if (snapshot.status !== "running") {
          await this.write(snapshot);
          return;
        }
      }
    } finally {
      this.running.delete(id);
    }
  }

  private async write(snapshot: SubagentSnapshot): Promise<void> {
    const ended = snapshot.status !== "running";
    const record: StoredSubagent = { snapshot, leaseUntil: Date.now() + this.leaseMs };
    await this.redis.set(
      this.key(snapshot.id),
      JSON.stringify(record),
      "PX",
      ended ? this.retainMs : this.retainMs + this.leaseMs,
    );
    if (ended) await this.redis.publish(this.channel("ended"), snapshot.id);
  }

  /** Reports a subagent whose process stopped renewing its lease as failed (atomically: once). */
  private async failLease(id: string, record: StoredSubagent): Promise<SubagentSnapshot | undefined> {
    const failed: SubagentSnapshot = {
      ...record.snapshot,
      status: "failed",
      finishedAt: Date.now(),
      error: "The process running this subagent stopped.",
    };
    const replaced = (await this.redis.eval(
      EXPIRE_LEASE,
      1,
      this.key(id),
      String(Date.now()),
      JSON.stringify({ snapshot: failed, leaseUntil: record.leaseUntil }),
      String(this.retainMs),
      this.channel("ended"),
      id,
    )) as string | null;
    return replaced === null ? undefined : (JSON.parse(replaced) as StoredSubagent).snapshot;
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(
      () => {
        for (const id of this.running) {
          void this.redis
            .get(this.key(id))
            .then(async (json) => {
              if (json === null) return;
              const record = JSON.parse(json) as StoredSubagent;
              if (record.snapshot.status !== "running") return;
              await this.redis.set(
                this.key(id),
                JSON.stringify({ ...record, leaseUntil: Date.now() + this.leaseMs }),
                "PX",
                this.retainMs + this.leaseMs,
              );
            })
            .catch(() => undefined);
        }
        if (this.running.size === 0 && this.heartbeat !== undefined) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
        }
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= (async () => {
      const subscriber = this.redis.duplicate();
      this.subscriber = subscriber;
      subscriber.on("error", () => undefined);
      subscriber.on("message", (channel: string, id: string) => {
        if (channel === this.channel("cancel")) {
          if (this.running.has(id)) void this.cancel(id).catch(() => undefined);
          return;
        }
        for (const wake of [...this.waiters]) wake();
      });
      await subscriber.subscribe(this.channel("ended"), this.channel("cancel"));
    })();
    return this.subscribed;
  }

  private key(id: string): string {
    return redisKey(this.prefix, "subagent", id);
  }

  private channel(kind: "ended" | "cancel"): string {
    return redisKey(this.prefix, "subagents", kind);
  }
}
