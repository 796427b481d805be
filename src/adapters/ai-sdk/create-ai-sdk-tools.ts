import { approvalRequiredBy, type JsonSchema, type Run, type ToolCallErrorInfo, type ToolDescriptor } from "agent-tool-catalog";
import { jsonSchema, type Tool, type ToolSet, tool } from "ai";

/** How approvals of `approval: "destructive" | "all"` runs are asked. */
export type AiSdkApprovalFlow = "broker" | "ai-sdk";

/** Options of {@link createAiSdkTools}. */
export interface AiSdkToolsOptions {
  /**
   * `"broker"`: `execute` waits on the run's approval broker (the loop pauses inside the call).
   * `"ai-sdk"`: tools get `needsApproval`, so `generateText` stops with a `tool-approval-request`
   * and the host answers with a `tool-approval-response` message, as the AI SDK documents; the run
   * then does not ask again.
   * @defaultValue `"broker"`
   */
  readonly approvalFlow?: AiSdkApprovalFlow;
}

/** What a failed call returns to the model through the AI SDK: the run's structured error. */
export interface AiSdkToolError {
  /** The error, with code, message, hint and issues. */
  readonly error: ToolCallErrorInfo;
}

/** The run as AI SDK parts: a `ToolSet` and a `prepareStep` that keeps `activeTools` in step with the run. */
export interface AiSdkTools {
  /** Every tool the run may ever see (core and deferred), each executing through `run.call()`. */
  readonly tools: ToolSet;
  /**
   * Sets `activeTools` to the run's current definitions before every step, so a tool activated by
   * `find_tool` in step N is callable in step N+1 of the same loop.
   */
  readonly prepareStep: () => { activeTools: string[] };
  /** The names the model may call now (what `prepareStep` sends). */
  activeTools(): string[];
}

/**
 * Turns a run into AI SDK (v6) tools. Build it for each `generateText` / `streamText` call:
 * tools registered later (an MCP server connected mid-run) join the next call.
 *
 * @example
 * ```ts
 * const { tools, prepareStep } = createAiSdkTools(run);
 * await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(10), prompt });
 * ```
 */
export function createAiSdkTools(run: Run, options: AiSdkToolsOptions = {}): AiSdkTools {
  const flow = options.approvalFlow ?? "broker";
  const tools: ToolSet = {};
  for (const descriptor of run.availableTools()) tools[descriptor.name] = toAiSdkTool(run, descriptor, flow);
  const activeTools = () =>
    run
      .definitions()
      .map((descriptor) => descriptor.name)
      .filter((name) => name in tools);
  return {
    tools,
    activeTools,
    prepareStep: () => ({ activeTools: activeTools() }),
  };
}

function toAiSdkTool(run: Run, descriptor: ToolDescriptor, flow: AiSdkApprovalFlow): Tool {
  const needsApproval = flow === "ai-sdk" && approvalRequiredBy(run.permissions.approval, descriptor) !== undefined;
  return tool({
    description: descriptor.description,
    // Validation happens in run.call(), whose errors name the fields; the SDK only forwards input.
    inputSchema: jsonSchema<unknown>(descriptor.inputSchema as JsonSchema as Parameters<typeof jsonSchema>[0]),
    ...(needsApproval ? { needsApproval: true } : {}),
    execute: async (input: unknown, { toolCallId, abortSignal }): Promise<unknown> => {
      const result = await run.call(descriptor.name, input, {
        callId: toolCallId,
        ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        ...(needsApproval ? { approved: true } : {}),
      });
      return result.ok ? result.output : ({ error: result.error } satisfies AiSdkToolError);
    },
  });
}
