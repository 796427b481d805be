import type { CallOptions, ToolCallResult, ToolContext } from "agent-tool-catalog";

/**
 * What a few host tools need of the run that calls them, beyond `ToolContext`: calling another
 * tool through the same run (recipe steps, so the run's visibility, validation, approval and
 * events apply to each step) and narrowing the run's tools while a skill is active. A core
 * `Run` satisfies it as is.
 * @public
 */
export interface HostRun {
  /** The run's id. */
  readonly id: string;
  /** Calls a tool as the model would, with the run's policy. */
  call(name: string, args: unknown, options?: CallOptions): Promise<ToolCallResult>;
  /** Narrows the visible tools to `allowedTools` until the returned function is called. */
  applySkillConstraint(skill: string, allowedTools: readonly string[]): () => void;
}

/**
 * Finds the run behind a tool call. `ToolContext` does not carry the run, so the host hands the
 * groups that need it a resolver, typically `runs.resolve` of a {@link RunDirectory}.
 * @public
 */
export type RunResolver = (context: ToolContext) => HostRun | undefined;

/**
 * The calling run as seen through its `ToolContext`: the default resolver, which needs no host
 * bookkeeping (calls and skill constraints go through `ctx.catalog`).
 * @public
 */
export const contextRun: RunResolver = (context) => ({
  id: context.runId,
  call: (name, args, options) =>
    context.catalog.call(name, args, {
      ...(options?.callId === undefined ? {} : { callId: options.callId }),
      ...(options?.signal === undefined ? {} : { signal: options.signal }),
    }),
  applySkillConstraint: (skill, allowedTools) => context.catalog.applySkillConstraint(skill, allowedTools),
});
