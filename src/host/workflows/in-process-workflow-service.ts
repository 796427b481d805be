import { randomUUID } from "node:crypto";
import { CatalogError, type RunScope, ToolError } from "agent-tool-catalog";
import { resumeRefusal } from "../../policy/scope-within.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import { type Clock, systemClock, waitAtMost } from "../shared/clock.js";
import { checkWorkflowBudget, WorkflowBudget } from "./workflow-budget.js";
import { type JournaledAgentCall, WorkflowRunContext } from "./workflow-context.js";
import type { WorkflowBudgetLimits, WorkflowDefinition } from "./workflow-definition.js";
import type {
  WorkflowResumeOptions,
  WorkflowRunSnapshot,
  WorkflowService,
  WorkflowStartOptions,
  WorkflowSubmission,
  WorkflowSummary,
} from "./workflow-service.js";

/**
 * Options of {@link InProcessWorkflowService}.
 *
 * @public
 */
export interface InProcessWorkflowServiceOptions {
  /** Runs the workflows' agent calls. */
  readonly runner: AgentRunner;
  /** Workflows to register at once. */
  readonly workflows?: readonly WorkflowDefinition[];
  /** The budget of workflows that set none. @defaultValue 50 agent calls, no token limit */
  readonly defaultBudget?: WorkflowBudgetLimits;
  /** Time source. @defaultValue the system clock */
  readonly clock?: Clock;
  /** Makes ids. @defaultValue `wf_` / `sub_` and random hex */
  readonly createId?: (kind: "run" | "submission") => string;
}

/**
 * What another process needs to resume a workflow run (JSON-safe): its snapshot, checked args,
 * depth, scope and journal of finished agent calls. See {@link InProcessWorkflowService.checkpoint}.
 * @public
 */
export interface WorkflowRunCheckpoint {
  /** The run as it stood, with its spend so far. */
  readonly snapshot: WorkflowRunSnapshot;
  /** The args its workflow checked. */
  readonly args: unknown;
  /** The fork depth of its agents. */
  readonly depth: number;
  /** What the starting run may do. */
  readonly scope: RunScope;
  /** Finished agent calls, by journal key. */
  readonly journal: readonly (readonly [string, JournaledAgentCall])[];
}

/** A registered workflow with its types erased: `check` returns what `run` accepts. */
interface RegisteredWorkflow {
  readonly name: string;
  readonly description: string;
  readonly budget: WorkflowBudgetLimits | undefined;
  check(args: Readonly<Record<string, unknown>>): Promise<unknown>;
  run(context: WorkflowRunContext, args: unknown): Promise<unknown>;
}

interface RunRecord {
  snapshot: WorkflowRunSnapshot;
  readonly definition: RegisteredWorkflow;
  readonly args: unknown;
  readonly depth: number;
  readonly scope: RunScope;
  readonly budget: WorkflowBudget;
  readonly journal: Map<string, JournaledAgentCall>;
  controller: AbortController;
  done: Promise<void>;
}

const randomId = (kind: "run" | "submission") =>
  `${kind === "run" ? "wf" : "wfsub"}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

function errorInfo(error: unknown): { code: string; message: string } {
  if (CatalogError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: "workflow_failed", message: error instanceof Error ? error.message : String(error) };
}

/** Checks args with the workflow's schema. @throws ToolError `invalid_workflow_args` naming each field. */
async function checkArgs<Args, Result>(
  definition: WorkflowDefinition<Args, Result>,
  args: Readonly<Record<string, unknown>>,
): Promise<unknown> {
  if (definition.argsSchema === undefined) return args;
  const result = await definition.argsSchema["~standard"].validate(args);
  if (result.issues === undefined) return result.value;
  const issues = result.issues.map(
    (issue) =>
      `${(issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".") || "(args)"}: ${issue.message}`,
  );
  throw new ToolError("invalid_workflow_args", `Invalid args for workflow "${definition.name}": ${issues.join("; ")}.`, {
    data: { issues },
  });
}

/**
 * Workflows in this process: TypeScript functions the host registers, run on an `AgentRunner`
 * with a budget, a journal of agent calls (for resume), cancellation and bounded waits.
 * Model-written source only ever reaches {@link InProcessWorkflowService.submissions}.
 * @public
 */
export class InProcessWorkflowService implements WorkflowService {
  private readonly options: InProcessWorkflowServiceOptions;
  private readonly clock: Clock;
  private readonly createId: (kind: "run" | "submission") => string;
  private readonly workflows = new Map<string, RegisteredWorkflow>();
  private readonly runs = new Map<string, RunRecord>();
  private readonly submitted: WorkflowSubmission[] = [];
  private readonly journalListeners = new Set<(runId: string) => void>();

  constructor(options: InProcessWorkflowServiceOptions) {
    checkWorkflowBudget(options.defaultBudget, "InProcessWorkflowService defaultBudget");
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.createId = options.createId ?? randomId;
    for (const workflow of options.workflows ?? []) this.register(workflow);
  }

  /** Registers a workflow (host code). @throws ConfigurationError-like `CatalogError` on a duplicate name. */
  register<Args, Result>(definition: WorkflowDefinition<Args, Result>): void {
    checkWorkflowBudget(definition.budget, `workflow "${definition.name}"`);
    if (this.workflows.has(definition.name))
      throw new CatalogError("duplicate_workflow", `A workflow named "${definition.name}" is registered already.`);
    this.workflows.set(definition.name, {
      name: definition.name,
      description: definition.description,
      budget: definition.budget,
      check: (args) => checkArgs(definition, args),
      // `check` produced these args: the schema's output, or the raw args when there is no schema.
      run: (context, args) => definition.run(context, args as Args),
    });
  }

  /** Source submitted by `create_workflow`, for the host's review. */
  submissions(): readonly WorkflowSubmission[] {
    return [...this.submitted];
  }

  /** {@inheritDoc WorkflowService.list} */
  async list(): Promise<readonly WorkflowSummary[]> {
    return [...this.workflows.values()].map(({ name, description }) => ({ name, description }));
  }

  /** {@inheritDoc WorkflowService.start} */
  async start(
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: WorkflowStartOptions,
  ): Promise<WorkflowRunSnapshot> {
    const definition = this.workflows.get(name);
    if (definition === undefined) {
      throw new ToolError("unknown_workflow", `There is no workflow named ${JSON.stringify(name)}.`, {
        hint: this.workflows.size === 0 ? "No workflows are registered." : `Workflows: ${[...this.workflows.keys()].join(", ")}.`,
      });
    }
    const checked = await definition.check(args);
    const runId = this.createId("run");
    const record: RunRecord = {
      snapshot: {
        runId,
        workflow: name,
        ownerId: options.ownerId,
        status: "running",
        agentCalls: 0,
        tokens: 0,
        startedAt: this.clock.now(),
      },
      definition,
      args: checked,
      depth: options.depth,
      scope: options.scope,
      budget: new WorkflowBudget(definition.budget ?? this.options.defaultBudget ?? {}),
      journal: this.journalOf(runId, []),
      controller: new AbortController(),
      done: Promise.resolve(),
    };
    this.runs.set(record.snapshot.runId, record);
    record.done = this.execute(record);
    return record.snapshot;
  }

  /** {@inheritDoc WorkflowService.get} */
  async get(runId: string): Promise<WorkflowRunSnapshot | undefined> {
    const record = this.runs.get(runId);
    if (record === undefined || record.snapshot.status !== "running") return record?.snapshot;
    // A running run reports what it has spent so far (a Redis mirror shows it to other processes).
    const { agentCalls, tokens } = record.budget.usage;
    return { ...record.snapshot, agentCalls, tokens };
  }

  /** {@inheritDoc WorkflowService.wait} */
  async wait(
    runId: string,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<WorkflowRunSnapshot | undefined> {
    const record = this.runs.get(runId);
    if (record === undefined || record.snapshot.status !== "running") return record?.snapshot;
    await waitAtMost(record.done, this.clock, options.timeoutMs, options.signal);
    return record.snapshot;
  }

  /** {@inheritDoc WorkflowService.resume} */
  async resume(runId: string, options: WorkflowResumeOptions = {}): Promise<WorkflowRunSnapshot> {
    const record = this.runs.get(runId);
    if (record === undefined) throw new ToolError("unknown_workflow_run", `There is no workflow run ${JSON.stringify(runId)}.`);
    if (record.snapshot.status === "running" || record.snapshot.status === "completed") return record.snapshot;
    const refusal = resumeRefusal(runId, record.scope, options.scope);
    if (refusal !== undefined) throw new ToolError("resume_refused", refusal.message, { hint: refusal.hint, data: refusal.data });
    if (record.budget.exceeded !== undefined) {
      throw new ToolError(
        "resume_refused",
        `Workflow run ${runId} ended because its budget was spent; resuming would only fail again.`,
        {
          hint: "Start a new run with narrower args.",
        },
      );
    }
    record.controller = new AbortController();
    record.snapshot = {
      ...record.snapshot,
      status: "running",
      error: undefined,
      finishedAt: undefined,
      startedAt: this.clock.now(),
    };
    record.done = this.execute(record);
    return record.snapshot;
  }

  /**
   * The run as another process needs it to resume it ({@link WorkflowRunCheckpoint}), or
   * `undefined` for an unknown run. `agent-tool-catalog/redis` saves it after each agent call.
   */
  checkpoint(runId: string): WorkflowRunCheckpoint | undefined {
    const record = this.runs.get(runId);
    if (record === undefined) return undefined;
    const { agentCalls, tokens } = record.budget.usage;
    return {
      snapshot: { ...record.snapshot, agentCalls, tokens },
      args: record.args,
      depth: record.depth,
      scope: record.scope,
      journal: [...record.journal],
    };
  }

  /**
   * Takes over an ended run that another process started, from its checkpoint, without running
   * it: call {@link InProcessWorkflowService.resume} next (finished agent calls are replayed).
   * @throws ToolError `unknown_workflow` when its workflow is not registered here; `CatalogError`
   * `workflow_run_exists` when this process knows the run already.
   */
  adopt(checkpoint: WorkflowRunCheckpoint): WorkflowRunSnapshot {
    const { snapshot } = checkpoint;
    const definition = this.workflows.get(snapshot.workflow);
    if (definition === undefined) {
      throw new ToolError("unknown_workflow", `There is no workflow named ${JSON.stringify(snapshot.workflow)} here.`);
    }
    if (this.runs.has(snapshot.runId)) {
      throw new CatalogError("workflow_run_exists", `Workflow run ${snapshot.runId} is known here already.`);
    }
    const record: RunRecord = {
      // A run adopted while "running" elsewhere is taken as stopped there: resume runs it here.
      snapshot: snapshot.status === "running" ? { ...snapshot, status: "failed" } : snapshot,
      definition,
      args: checkpoint.args,
      depth: checkpoint.depth,
      scope: checkpoint.scope,
      budget: new WorkflowBudget(definition.budget ?? this.options.defaultBudget ?? {}, snapshot),
      journal: this.journalOf(snapshot.runId, checkpoint.journal),
      controller: new AbortController(),
      done: Promise.resolve(),
    };
    this.runs.set(snapshot.runId, record);
    return record.snapshot;
  }

  /** Calls `listener` with the run's id after each agent call is journaled; returns the unsubscribe. */
  onJournal(listener: (runId: string) => void): () => void {
    this.journalListeners.add(listener);
    return () => {
      this.journalListeners.delete(listener);
    };
  }

  /** Cancels a running workflow run. */
  async cancel(runId: string): Promise<WorkflowRunSnapshot | undefined> {
    const record = this.runs.get(runId);
    if (record === undefined || record.snapshot.status !== "running") return record?.snapshot;
    this.finish(record, { status: "cancelled", error: { code: "cancelled", message: "The workflow run was cancelled." } });
    record.controller.abort(new ToolError("cancelled", "The workflow run was cancelled."));
    return record.snapshot;
  }

  /** {@inheritDoc WorkflowService.submitSource} */
  async submitSource(submission: Omit<WorkflowSubmission, "id" | "submittedAt" | "status">): Promise<WorkflowSubmission> {
    const stored: WorkflowSubmission = {
      ...submission,
      id: this.createId("submission"),
      submittedAt: this.clock.now(),
      status: "pending_review",
    };
    this.submitted.push(stored);
    return stored;
  }

  /** A run's journal that tells {@link InProcessWorkflowService.onJournal} listeners of each entry. */
  private journalOf(runId: string, entries: WorkflowRunCheckpoint["journal"]): Map<string, JournaledAgentCall> {
    const listeners = this.journalListeners;
    const journal = new (class extends Map<string, JournaledAgentCall> {
      override set(key: string, value: JournaledAgentCall): this {
        super.set(key, value);
        for (const listener of [...listeners]) {
          try {
            listener(runId);
          } catch {
            // A listener's failure is not the workflow's.
          }
        }
        return this;
      }
    })();
    for (const [key, value] of entries) Map.prototype.set.call(journal, key, value);
    return journal;
  }

  private async execute(record: RunRecord): Promise<void> {
    // Let start() and resume() return their snapshot before a synchronous workflow can finish.
    await Promise.resolve();
    const controller = record.controller;
    const context = new WorkflowRunContext({
      runId: record.snapshot.runId,
      workflow: record.definition.name,
      runner: this.options.runner,
      budget: record.budget,
      journal: record.journal,
      signal: controller.signal,
      depth: record.depth,
      scope: record.scope,
      ownerId: record.snapshot.ownerId,
      onBudgetExceeded: (error) => controller.abort(error),
    });
    try {
      const result = await record.definition.run(context, record.args);
      const exceeded = record.budget.exceeded;
      // A workflow that caught the budget error still ends failed: the budget is not advisory.
      this.finish(
        record,
        exceeded === undefined ? { status: "completed", result } : { status: "failed", error: errorInfo(exceeded) },
      );
    } catch (error) {
      this.finish(record, { status: "failed", error: errorInfo(record.budget.exceeded ?? error) });
    }
  }

  private finish(record: RunRecord, outcome: Pick<WorkflowRunSnapshot, "status" | "result" | "error">): void {
    if (record.snapshot.status !== "running") return;
    const { agentCalls, tokens } = record.budget.usage;
    record.snapshot = { ...record.snapshot, ...outcome, agentCalls, tokens, finishedAt: this.clock.now() };
  }
}
