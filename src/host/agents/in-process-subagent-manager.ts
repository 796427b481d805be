import { randomUUID } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { hostMadeId } from "../../errors/host-made-id.js";
import { type Clock, systemClock, waitAtMost } from "../shared/clock.js";
import type { AgentRunner } from "./agent-runner.js";
import type { SubagentManager, SubagentRequest, SubagentSnapshot, SubagentWaitOptions } from "./subagent-manager.js";

/**
 * Options of {@link InProcessSubagentManager}.
 *
 * @public
 */
export interface InProcessSubagentManagerOptions {
  /** Runs each subagent. */
  readonly runner: AgentRunner;
  /** Time source for timestamps and wait timeouts. @defaultValue the system clock */
  readonly clock?: Clock;
  /**
   * Most subagents running at once, over all conversations; more are refused, not queued, so the
   * model learns to wait for one. A whole number at least 1, or `Infinity`.
   * @defaultValue 8
   */
  readonly maxRunning?: number;
  /** Ended subagents kept for `get`, oldest forgotten first: a whole number at least 0, or `Infinity`. @defaultValue 100 */
  readonly maxRetained?: number;
  /**
   * Makes ids: each must be a non-empty string no kept subagent has (a start given a repeated id
   * is refused, since the subagent it replaced would run on uncounted and uncancellable).
   * @defaultValue `sub_` and 12 random hex digits
   */
  readonly createId?: () => string;
}

interface Entry {
  snapshot: SubagentSnapshot;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * Subagents in this process, each an `AgentRunner.runPrompt` with its own `AbortController`:
 * cancelling aborts the runner's signal and marks the subagent cancelled at once (a late answer
 * from a runner that ignores the signal is dropped).
 * @public
 */
export class InProcessSubagentManager implements SubagentManager {
  private readonly runner: AgentRunner;
  private readonly clock: Clock;
  private readonly maxRunning: number;
  private readonly maxRetained: number;
  private readonly createId: () => string;
  private readonly entries = new Map<string, Entry>();

  constructor(options: InProcessSubagentManagerOptions) {
    checkNumberOption(options.maxRunning, "maxRunning", { min: 1, integer: true, infinite: true }, "InProcessSubagentManager");
    checkNumberOption(options.maxRetained, "maxRetained", { min: 0, integer: true, infinite: true }, "InProcessSubagentManager");
    this.runner = options.runner;
    this.clock = options.clock ?? systemClock;
    this.maxRunning = options.maxRunning ?? 8;
    this.maxRetained = options.maxRetained ?? 100;
    this.createId = options.createId ?? (() => `sub_${randomUUID().replaceAll("-", "").slice(0, 12)}`);
  }

  /** {@inheritDoc SubagentManager.start} */
  async start(request: SubagentRequest): Promise<SubagentSnapshot> {
    const running = [...this.entries.values()].filter((entry) => entry.snapshot.status === "running").length;
    if (running >= this.maxRunning) {
      throw new ToolError("too_many_subagents", `${running} subagents are running already (the limit is ${this.maxRunning}).`, {
        hint: "Wait for one with wait_subagent, or cancel one, then start again.",
      });
    }
    const id = hostMadeId(this.createId(), this.entries, {
      where: "InProcessSubagentManager",
      item: "subagent",
      holder: "a subagent it keeps",
      outcome: "Nothing was started.",
    });
    const controller = new AbortController();
    const snapshot: SubagentSnapshot = {
      id,
      ownerId: request.ownerId,
      task: request.task,
      profile: request.profile,
      model: request.model,
      status: "running",
      startedAt: this.clock.now(),
    };
    const done = this.execute(id, request, controller.signal);
    this.entries.set(id, { snapshot, controller, done });
    return snapshot;
  }

  /** {@inheritDoc SubagentManager.get} */
  async get(id: string): Promise<SubagentSnapshot | undefined> {
    return this.entries.get(id)?.snapshot;
  }

  /** {@inheritDoc SubagentManager.wait} */
  async wait(id: string, options: SubagentWaitOptions): Promise<SubagentSnapshot | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.snapshot.status !== "running") return entry?.snapshot;
    await waitAtMost(entry.done, this.clock, options.timeoutMs, options.signal);
    return entry.snapshot;
  }

  /** {@inheritDoc SubagentManager.cancel} */
  async cancel(id: string): Promise<SubagentSnapshot | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.snapshot.status !== "running") return entry?.snapshot;
    this.finish(id, { status: "cancelled", error: "Cancelled." });
    entry.controller.abort(new ToolError("subagent_cancelled", `Subagent ${id} was cancelled.`));
    return entry.snapshot;
  }

  private async execute(id: string, request: SubagentRequest, signal: AbortSignal): Promise<void> {
    // Let start() register the entry before the runner can finish (a synchronous fake may).
    await Promise.resolve();
    try {
      const result = await this.runner.runPrompt({
        prompt: request.task,
        depth: request.depth,
        profile: request.profile,
        model: request.model,
        maxSteps: request.maxSteps,
        parentRunId: request.ownerId,
        scope: request.scope,
        signal,
      });
      this.finish(id, { status: "completed", output: result.output });
    } catch (error) {
      this.finish(id, { status: "failed", error: error instanceof Error ? error.message : String(error) });
    }
  }

  private finish(id: string, outcome: Pick<SubagentSnapshot, "status" | "output" | "error">): void {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.snapshot.status !== "running") return;
    entry.snapshot = { ...entry.snapshot, ...outcome, finishedAt: this.clock.now() };
    this.forgetOldest();
  }

  private forgetOldest(): void {
    const ended = [...this.entries.entries()].filter(([, entry]) => entry.snapshot.status !== "running");
    for (const [id] of ended.slice(0, Math.max(0, ended.length - this.maxRetained))) this.entries.delete(id);
  }
}
