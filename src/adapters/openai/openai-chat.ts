import { formatToolResult, type Run } from "agent-tool-catalog";
import { callArguments, functionToolParts } from "./function-tool-parts.js";
import type { OpenAIAllowedToolsOptions, OpenAIToolsOptions, RunOpenAIToolCallsOptions } from "./openai-options.js";
import type {
  OpenAIChatAllowedToolsChoice,
  OpenAIChatFunctionTool,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
} from "./openai-types.js";

/** The tool fields of a Chat Completions request, to spread into `chat.completions.create()`. */
export interface OpenAIChatToolsRequest {
  /** The tools; absent when the run has none (the API refuses an empty list). */
  readonly tools?: OpenAIChatFunctionTool[];
  /** With `allowedToolsChoice`: which tools the model may call now (`"none"` when no tool is visible). */
  readonly tool_choice?: OpenAIChatAllowedToolsChoice | "none";
}

/**
 * The run's tools as Chat Completions function tools (`chat.completions.create({ tools })`): the
 * tools visible this turn (`run.definitions()`), core tools first, so the prompt prefix only grows
 * at its end. Build them for every request: a tool `find_tool` activated is sent from the next one.
 *
 * @example
 * ```ts
 * const completion = await openai.chat.completions.create({ model, messages, tools: openAIChatTools(run, { strict: true }) });
 * ```
 */
export function openAIChatTools(run: Run, options: OpenAIToolsOptions = {}): OpenAIChatFunctionTool[] {
  const strict = options.strict === true;
  return run.definitions().map((descriptor) => ({ type: "function", function: functionToolParts(descriptor, strict) }));
}

/**
 * The tool fields of a Chat Completions request; with `allowedToolsChoice`, the same full tool list
 * on every turn plus `tool_choice: { type: "allowed_tools", allowed_tools: { mode, tools } }`
 * naming the tools visible now (see {@link OpenAIAllowedToolsOptions}).
 *
 * @example
 * ```ts
 * await openai.chat.completions.create({ model, messages, ...openAIChatRequest(run, { allowedToolsChoice: true }) });
 * ```
 */
export function openAIChatRequest(run: Run, options: OpenAIAllowedToolsOptions = {}): OpenAIChatToolsRequest {
  const strict = options.strict === true;
  if (options.allowedToolsChoice !== true) {
    const tools = openAIChatTools(run, { strict });
    return tools.length === 0 ? {} : { tools };
  }
  const available = run.availableTools();
  if (available.length === 0) return {};
  const tools = available.map(
    (descriptor): OpenAIChatFunctionTool => ({ type: "function", function: functionToolParts(descriptor, strict) }),
  );
  const allowed = available.filter((descriptor) => run.isVisible(descriptor.name));
  if (allowed.length === 0) return { tools, tool_choice: "none" };
  return {
    tools,
    tool_choice: {
      type: "allowed_tools",
      allowed_tools: {
        mode: options.allowedToolsMode ?? "auto",
        tools: allowed.map((descriptor) => ({ type: "function", function: { name: descriptor.name } })),
      },
    },
  };
}

/**
 * Runs the tool calls of a Chat Completions assistant message (`message.tool_calls`) through
 * `run.call()` and returns one `tool` message per call, in order, for the next request. Arguments
 * go to the run as the JSON string the model sent, so malformed JSON comes back as an
 * `invalid_input` result the model can fix; the `null`s strict mode sends for left-out optional
 * fields are removed first (`stripOptionalNulls`). A refused or failed call is answered with the
 * run's structured error. Calls run one after the other; calls of custom tools are not this
 * adapter's and are skipped.
 *
 * @example
 * ```ts
 * const message = completion.choices[0]?.message;
 * messages.push(message, ...(await runOpenAIChatToolCalls(run, message.tool_calls)));
 * ```
 */
export async function runOpenAIChatToolCalls(
  run: Run,
  toolCalls: readonly OpenAIChatToolCall[] | null | undefined,
  options: RunOpenAIToolCallsOptions = {},
): Promise<OpenAIChatToolMessage[]> {
  const messages: OpenAIChatToolMessage[] = [];
  for (const call of toolCalls ?? []) {
    if (call.type !== "function" || call.function === undefined) continue;
    const { name, arguments: json } = call.function;
    const result = await run.call(name, callArguments(run, name, json), {
      callId: call.id,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    messages.push({ role: "tool", tool_call_id: call.id, content: formatToolResult(result) });
  }
  return messages;
}
