import { ToolError } from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";
import type { AgentUsage } from "../agents/agent-runner.js";
import type { WorkflowBudgetLimits, WorkflowBudgetUsage } from "./workflow-definition.js";

/**
 * Thrown by `ctx.agent()` when the budget is spent; the run ends `failed` with it.
 *
 * @public
 */
export class WorkflowBudgetExceededError extends ToolError {
  constructor(message: string, usage: WorkflowBudgetUsage) {
    super("workflow_budget_exceeded", message, {
      hint: "Run the workflow with narrower args, or ask the user to raise its budget.",
      data: { agentCalls: usage.agentCalls, tokens: usage.tokens },
    });
    this.name = "WorkflowBudgetExceededError";
  }
}

/**
 * Checks a workflow's budget where it is given (a definition, the service's default): `NaN`
 * compared false with every count, so a `NaN` budget never stopped a workflow.
 * @throws ConfigurationError `invalid_option` naming `budget.maxAgentCalls` or `budget.maxTokens`.
 */
export function checkWorkflowBudget(limits: WorkflowBudgetLimits | undefined, where: string): void {
  if (limits === undefined) return;
  checkNumberOption(limits.maxAgentCalls, "budget.maxAgentCalls", { min: 0, integer: true, infinite: true }, where);
  checkNumberOption(limits.maxTokens, "budget.maxTokens", { min: 0, infinite: true }, where);
}

/** A run's spending against its limits. Once exceeded it stays exceeded, even if the workflow catches the error. */
export class WorkflowBudget {
  private calls = 0;
  private spent = 0;
  private failure: WorkflowBudgetExceededError | undefined;
  private readonly maxAgentCalls: number;
  private readonly maxTokens: number;

  /** @param spent - what the run spent before (a run resumed in another process) */
  constructor(limits: WorkflowBudgetLimits, spent?: WorkflowBudgetUsage) {
    this.maxAgentCalls = limits.maxAgentCalls ?? 50;
    this.maxTokens = limits.maxTokens ?? Number.POSITIVE_INFINITY;
    this.calls = spent?.agentCalls ?? 0;
    this.spent = spent?.tokens ?? 0;
  }

  /** What has been spent. */
  get usage(): WorkflowBudgetUsage {
    return { agentCalls: this.calls, tokens: this.spent };
  }

  /** The error that ended the budget, once it has. */
  get exceeded(): WorkflowBudgetExceededError | undefined {
    return this.failure;
  }

  /** Reserves one agent call, or throws when none is left. */
  reserveCall(workflow: string): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.calls >= this.maxAgentCalls) {
      throw this.fail(`Workflow "${workflow}" stopped: it used its budget of ${this.maxAgentCalls} agent calls.`);
    }
    if (this.spent >= this.maxTokens)
      throw this.fail(`Workflow "${workflow}" stopped: it used its budget of ${this.maxTokens} tokens (${this.spent} used).`);
    this.calls++;
  }

  /** Counts a call's tokens; throws when they pass the token budget. */
  record(workflow: string, usage: AgentUsage | undefined): void {
    this.spent += (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
    if (this.spent > this.maxTokens)
      throw this.fail(`Workflow "${workflow}" stopped: it used ${this.spent} tokens, over its budget of ${this.maxTokens}.`);
  }

  private fail(message: string): WorkflowBudgetExceededError {
    this.failure = new WorkflowBudgetExceededError(message, this.usage);
    return this.failure;
  }
}
