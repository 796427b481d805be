import { type ToolContext, ToolError } from "agent-tool-catalog";
import { checkNumberOption, MAX_TIMER_DELAY_MS } from "../../errors/check-number-option.js";

/**
 * How deep agents may fork: the root agent is depth 0, its children 1, up to this depth.
 *
 * @public
 */
export const DEFAULT_MAX_FORK_DEPTH = 5;

/**
 * The `createRun({ context })` key with the fork depth of the agent a run serves. It wins over
 * a group's `depth` option, so one registry can serve agents of every depth.
 * @public
 */
export const AGENT_DEPTH_CONTEXT_KEY = "agentDepth";

/**
 * Where a group's agents stand in the fork tree.
 *
 * @public
 */
export interface AgentDepthOptions {
  /**
   * The fork depth of the agents whose runs use this group, when the run's context does not
   * say (`hostContext.agentDepth`). A whole number at least 0.
   * @defaultValue 0 (the root agent)
   */
  readonly depth?: number;
  /**
   * The deepest child that may be started: a whole number at least 0 (0: no child at all), or
   * `Infinity` for no limit.
   * @defaultValue {@link DEFAULT_MAX_FORK_DEPTH} (5)
   */
  readonly maxForkDepth?: number;
}

/**
 * Checks a group's depth options where the group is made: a `NaN` `maxForkDepth` let no child
 * start (every depth compared false), a fractional `depth` put agents between levels.
 * @throws ConfigurationError `invalid_option` naming `depth` or `maxForkDepth`.
 */
export function checkAgentDepthOptions(options: AgentDepthOptions, where: string): void {
  checkNumberOption(options.depth, "depth", { min: 0, integer: true }, where);
  checkNumberOption(options.maxForkDepth, "maxForkDepth", { min: 0, integer: true, infinite: true }, where);
}

/**
 * The longest wait a `maxWaitSeconds` option may allow: the waits end in a timer, and Node fires
 * a timer longer than 2^31 - 1 ms at once.
 */
export const MAX_WAIT_SECONDS = Math.floor(MAX_TIMER_DELAY_MS / 1000);

/**
 * Checks a `maxWaitSeconds` option: above 0 and at most {@link MAX_WAIT_SECONDS}.
 * @throws ConfigurationError `invalid_option` naming `maxWaitSeconds`.
 */
export function checkMaxWaitSeconds(value: number | undefined, where: string): void {
  checkNumberOption(value, "maxWaitSeconds", { min: 0, aboveMin: true, max: MAX_WAIT_SECONDS }, where);
}

/** The fork depth of the agent making this call. */
export function agentDepthOf(context: ToolContext, options: AgentDepthOptions): number {
  const value = context.hostContext[AGENT_DEPTH_CONTEXT_KEY];
  const declared = typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : (options.depth ?? 0);
  // A child run knows its own depth (createRun({ parent })): nothing the host says can make it shallower.
  return Math.max(declared, context.scope.depth);
}

/**
 * The depth a child of this call's agent would have.
 * @throws ToolError `max_fork_depth_exceeded` when that is deeper than allowed.
 */
export function childDepthOf(context: ToolContext, options: AgentDepthOptions): number {
  const depth = agentDepthOf(context, options) + 1;
  const limit = options.maxForkDepth ?? DEFAULT_MAX_FORK_DEPTH;
  if (depth > limit) {
    throw new ToolError(
      "max_fork_depth_exceeded",
      `This agent is at fork depth ${depth - 1}; a child would be at depth ${depth}, deeper than the limit of ${limit}.`,
      { hint: "Do the work yourself, or return what you have with task_complete.", data: { depth: depth - 1, limit } },
    );
  }
  return depth;
}
