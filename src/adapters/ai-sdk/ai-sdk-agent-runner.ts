import { type CreateRunOptions, FIND_TOOL_NAME, type Registry, type RunScope } from "agent-tool-catalog";
import { generateText, type LanguageModel, stepCountIs } from "ai";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { createAiSdkTools } from "./create-ai-sdk-tools.js";

/**
 * What a child agent is asked (the shape of `AgentPromptRequest` of `agent-tool-catalog/host`).
 *
 * @public
 */
export interface AiSdkAgentRequest {
  /** The child's task. */
  readonly prompt: string;
  /** The child's fork depth. */
  readonly depth: number;
  /** The model the caller asked for, if any. */
  readonly model?: string | undefined;
  /** The most model turns. */
  readonly maxSteps?: number | undefined;
  /**
   * Tools the child may use; `undefined`: every tool of its registry (within the parent's
   * scope); `[]`: none but `AskUserQuestion`, `find_tool` and `skill` (a skill's empty
   * `allowed-tools`).
   */
  readonly allowedTools?: readonly string[] | undefined;
  /** The asking run. */
  readonly parentRunId: string;
  /** What the asking run may do: the child run is created with it as parent, never wider. */
  readonly scope: RunScope;
  /** Stops the child. */
  readonly signal: AbortSignal;
}

/**
 * What the child produced (the shape of `AgentPromptResult`).
 *
 * @public
 */
export interface AiSdkAgentResult {
  /** The child's last message. */
  readonly output: string;
  /** Tokens used. */
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** Model turns taken. */
  readonly steps: number;
}

/**
 * Options of {@link createAiSdkAgentRunner}.
 *
 * @public
 */
export interface AiSdkAgentRunnerOptions {
  /** The model, or a choice per request (e.g. by `request.model`). */
  readonly model: LanguageModel | ((request: AiSdkAgentRequest) => LanguageModel);
  /**
   * The child's registry: the same one as the parent's, or one per depth (build it with
   * `agentToolGroup({ depth })` so the child has `task_complete` and its own depth limit).
   */
  readonly registry: Registry | ((request: AiSdkAgentRequest) => Registry);
  /**
   * More options of the child's run (permissions, profile, ...). They can only narrow: the child
   * run's parent is `request.scope`, so its permissions and tools never exceed the asking run's.
   */
  readonly runOptions?: (request: AiSdkAgentRequest) => CreateRunOptions;
  /** The child's system prompt. */
  readonly system?: string;
  /**
   * Most model turns when the request does not limit them: a whole number at least 1, or
   * `Infinity` (until the model stops calling tools). `NaN` or a fraction never matched a step
   * count, so the loop never stopped on it.
   * @defaultValue 20
   */
  readonly maxSteps?: number;
}

/**
 * The default `AgentRunner` of the agent, subagent, workflow and forked-skill tools: each request
 * becomes a child run of the asking run's scope (`createRun({ parent: request.scope })`: never
 * wider permissions or more tools; `allowedTools` intersected, the depth in
 * `hostContext.agentDepth`) driven by
 * an AI SDK `generateText` loop over that run's tools; the child run is closed afterwards.
 * @public
 */
export function createAiSdkAgentRunner(options: AiSdkAgentRunnerOptions): {
  runPrompt(request: AiSdkAgentRequest): Promise<AiSdkAgentResult>;
} {
  checkNumberOption(options.maxSteps, "maxSteps", { min: 1, integer: true, infinite: true }, "createAiSdkAgentRunner");
  return {
    runPrompt: async (request) => {
      const registry = typeof options.registry === "function" ? options.registry(request) : options.registry;
      const extra = options.runOptions?.(request) ?? {};
      const run = registry.createRun({
        ...extra,
        parent: request.scope,
        ...(request.allowedTools === undefined ? {} : { allowedTools: childAllowedTools(request.allowedTools) }),
        context: { ...extra.context, agentDepth: request.depth, parentRunId: request.parentRunId },
      });
      try {
        const { tools, prepareStep } = createAiSdkTools(run);
        // prepareStep adds the run's index after this system prompt.
        const system = options.system ?? "";
        const result = await generateText({
          model: typeof options.model === "function" ? options.model(request) : options.model,
          tools,
          prepareStep,
          stopWhen: stepCountIs(request.maxSteps ?? options.maxSteps ?? 20),
          prompt: request.prompt,
          abortSignal: request.signal,
          ...(system === "" ? {} : { system }),
        });
        return {
          output: result.text,
          usage: { inputTokens: result.totalUsage.inputTokens ?? 0, outputTokens: result.totalUsage.outputTokens ?? 0 },
          steps: result.steps.length,
        };
      } finally {
        await run.close();
      }
    },
  };
}

/**
 * `createRun` reads an empty `allowedTools` as "every tool", but an empty list in a request
 * (a forked skill's `allowed-tools: []`) means none: a list of only an always-available tool says
 * that to `createRun`.
 */
function childAllowedTools(allowedTools: readonly string[]): readonly string[] {
  return allowedTools.length === 0 ? [FIND_TOOL_NAME] : allowedTools;
}
