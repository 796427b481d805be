import { randomUUID } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { type Clock, systemClock } from "../shared/clock.js";
import type { CallbackManager, DelayedCallback, DelayedCallbackRequest } from "./callback-manager.js";

/**
 * The spec's limits: at least 5 s, at most an hour, at most 10 pending per conversation.
 *
 * @public
 */
export const CALLBACK_LIMITS = { minDelaySeconds: 5, maxDelaySeconds: 3600, maxPendingPerConversation: 10 } as const;

/**
 * Refuses a delay outside {@link CALLBACK_LIMITS} with the model error `invalid_delay` (naming
 * `delay_seconds`). Every `CallbackManager` of the library checks it so, and one of the host's
 * own can too.
 *
 * @public
 */
export function checkCallbackDelay(delaySeconds: number): void {
  const { minDelaySeconds, maxDelaySeconds } = CALLBACK_LIMITS;
  // Written so that NaN fails too.
  if (delaySeconds >= minDelaySeconds && delaySeconds <= maxDelaySeconds) return;
  throw new ToolError(
    "invalid_delay",
    `delay_seconds must be between ${minDelaySeconds} and ${maxDelaySeconds}; got ${delaySeconds}.`,
    {
      data: { field: "delay_seconds" },
    },
  );
}

/**
 * Options of {@link InProcessCallbackManager}.
 *
 * @public
 */
export interface InProcessCallbackManagerOptions {
  /** Re-invokes the agent in the callback's conversation; a rejection marks the callback `failed`. */
  readonly onFire: (callback: DelayedCallback) => void | Promise<void>;
  /** Time source and timers. @defaultValue the system clock (timers unref'd) */
  readonly clock?: Clock;
  /** Pending callbacks allowed per conversation: a whole number at least 1, or `Infinity`. @defaultValue 10 */
  readonly maxPendingPerConversation?: number;
  /** Ended callbacks kept (for {@link InProcessCallbackManager.get}), oldest dropped first: a whole number at least 0, or `Infinity`. @defaultValue 200 */
  readonly maxRetained?: number;
  /** Makes ids. @defaultValue `cb_` and 12 random hex digits */
  readonly createId?: () => string;
}

interface Entry {
  callback: DelayedCallback;
  timer: unknown;
}

/**
 * Delayed callbacks in this process, one clock timer each. Firing calls `onFire`; its failure
 * is kept on the callback (`status: "failed"`, `error`), never swallowed silently.
 * @public
 */
export class InProcessCallbackManager implements CallbackManager {
  private readonly options: InProcessCallbackManagerOptions;
  private readonly clock: Clock;
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly createId: () => string;

  constructor(options: InProcessCallbackManagerOptions) {
    const where = "InProcessCallbackManager";
    checkNumberOption(
      options.maxPendingPerConversation,
      "maxPendingPerConversation",
      { min: 1, integer: true, infinite: true },
      where,
    );
    checkNumberOption(options.maxRetained, "maxRetained", { min: 0, integer: true, infinite: true }, where);
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.createId = options.createId ?? (() => `cb_${randomUUID().replaceAll("-", "").slice(0, 12)}`);
  }

  /** {@inheritDoc CallbackManager.schedule} */
  async schedule(request: DelayedCallbackRequest): Promise<DelayedCallback> {
    checkCallbackDelay(request.delaySeconds);
    const limit = this.options.maxPendingPerConversation ?? CALLBACK_LIMITS.maxPendingPerConversation;
    // Counted and added with no await between: parallel calls of one step all awaited list()
    // before any added its own, so all of them passed the limit.
    const pending = this.pendingOf(request.conversationId).length;
    if (pending >= limit) {
      throw new ToolError(
        "too_many_callbacks",
        `This conversation has ${pending} pending callbacks already (the limit is ${limit}).`,
        {
          hint: "Cancel one with cancel_delayed_callback, or wait for one to fire.",
        },
      );
    }
    const now = this.clock.now();
    const callback: DelayedCallback = {
      id: this.createId(),
      conversationId: request.conversationId,
      message: request.message,
      createdAt: now,
      dueAt: now + request.delaySeconds * 1000,
      status: "pending",
    };
    const entry: Entry = { callback, timer: undefined };
    entry.timer = this.clock.setTimeout(() => this.fire(entry), request.delaySeconds * 1000);
    this.entries.set(callback.id, entry);
    return callback;
  }

  /** {@inheritDoc CallbackManager.cancel} */
  async cancel(conversationId: string, id: string): Promise<DelayedCallback> {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.callback.conversationId !== conversationId || entry.callback.status !== "pending") {
      throw new ToolError("unknown_callback", `There is no pending callback ${JSON.stringify(id)} in this conversation.`, {
        hint: "Call list_delayed_callbacks for the pending ones.",
      });
    }
    this.clock.clearTimeout(entry.timer);
    this.end(entry, { status: "cancelled" });
    return entry.callback;
  }

  /** {@inheritDoc CallbackManager.list} */
  async list(conversationId: string): Promise<DelayedCallback[]> {
    return this.pendingOf(conversationId);
  }

  private pendingOf(conversationId: string): DelayedCallback[] {
    return [...this.entries.values()]
      .map((entry) => entry.callback)
      .filter((callback) => callback.conversationId === conversationId && callback.status === "pending")
      .sort((a, b) => a.dueAt - b.dueAt);
  }

  /** Any callback this manager still remembers, pending or ended. */
  get(id: string): DelayedCallback | undefined {
    return this.entries.get(id)?.callback;
  }

  /** Resolves when no `onFire` is in flight. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Cancels every pending callback. */
  close(): void {
    for (const entry of this.entries.values()) {
      if (entry.callback.status !== "pending") continue;
      this.clock.clearTimeout(entry.timer);
      this.end(entry, { status: "cancelled" });
    }
  }

  private fire(entry: Entry): void {
    if (entry.callback.status !== "pending") return;
    this.end(entry, { status: "fired" });
    const work = (async () => {
      try {
        await this.options.onFire(entry.callback);
      } catch (error) {
        entry.callback = { ...entry.callback, status: "failed", error: error instanceof Error ? error.message : String(error) };
      }
    })().finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  private end(entry: Entry, change: Pick<DelayedCallback, "status">): void {
    entry.callback = { ...entry.callback, ...change };
    const ended = [...this.entries.values()].filter((candidate) => candidate.callback.status !== "pending");
    const excess = ended.length - (this.options.maxRetained ?? 200);
    for (const old of ended.slice(0, Math.max(0, excess))) this.entries.delete(old.callback.id);
  }
}
