import { ConfigurationError, FIND_TOOL_NAME, type Run, type ToolDescriptor } from "agent-tool-catalog";
import { entries, field } from "../shared/json-fields.js";
import { callSafely } from "../shared/safe-call.js";
import { systemWithIndex } from "../shared/system-prompt.js";
import { readMediaOptions } from "../shared/tool-result-media.js";
import { checkOpenAIOptions } from "./check-openai-options.js";
import { functionToolParts, safeArguments } from "./function-tool-parts.js";
import type { OpenAIAllowedToolsOptions, OpenAIToolsOptions, RunOpenAIToolCallsOptions } from "./openai-options.js";
import { responsesOutput } from "./openai-tool-result.js";
import type {
  OpenAIFunctionCallOutputItem,
  OpenAIResponseItem,
  OpenAIResponsesAllowedToolsChoice,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesTool,
} from "./openai-types.js";
import { activateToolSearchOutput, loadedByToolSearch } from "./tool-search-output.js";

/**
 * Options of {@link openAIResponsesTools}.
 *
 * @public
 */
export interface OpenAIResponsesToolsOptions extends OpenAIToolsOptions {
  /**
   * Offer deferred tools through the Responses API's hosted tool search instead of `find_tool`:
   * every tool the run may see is sent, deferred ones with `defer_loading: true`, `find_tool` is left
   * out and `{ type: "tool_search" }` is added in front. Needs a model that supports tool search.
   * @defaultValue `false`: the `find_tool` path (only `run.definitions()` is sent)
   */
  readonly nativeToolSearch?: boolean;
}

/**
 * Options of {@link openAIResponsesRequest}.
 *
 * @public
 */
export interface OpenAIResponsesRequestOptions extends OpenAIAllowedToolsOptions, OpenAIResponsesToolsOptions {
  /**
   * The host's instructions (system prompt). The request's `instructions` are these, then the
   * run's index (`run.systemPromptIndex()`, the tools a listing run names and reaches through
   * `toolbox`). Pass yours here rather than next to the spread, which would replace one or the other.
   */
  readonly instructions?: string;
}

/**
 * The tool fields of a Responses request, to spread into `responses.create()`.
 *
 * @public
 */
export interface OpenAIResponsesToolsRequest {
  /** The host's instructions, then the run's index; absent when there are neither. */
  readonly instructions?: string;
  /** The tools; absent when the run has none. */
  readonly tools?: OpenAIResponsesTool[];
  /** With `allowedToolsChoice`: which tools the model may call now (`"none"` when no tool is visible). */
  readonly tool_choice?: OpenAIResponsesAllowedToolsChoice | "none";
}

/**
 * The run's tools as Responses API function tools (`responses.create({ tools })`). Without
 * `nativeToolSearch`: the tools visible this turn (`run.definitions()`), core tools first. With it:
 * every tool the run may see, in registry order, deferred ones with `defer_loading: true` (also
 * after the tool search loaded them, since their definitions then reach the model through the
 * `tool_search_output` in the conversation, which leaves the cached prefix untouched; a deferred
 * tool the host activated itself is sent in full). `strict` is always sent, since the API defaults
 * it to true.
 *
 * @example
 * ```ts
 * const response = await openai.responses.create({ model, input, tools: openAIResponsesTools(run, { nativeToolSearch: true }) });
 * ```
 * @public
 */
export function openAIResponsesTools(run: Run, options: OpenAIResponsesToolsOptions = {}): OpenAIResponsesTool[] {
  checkOpenAIOptions(options, "openAIResponsesTools");
  const strict = options.strict === true;
  if (options.nativeToolSearch !== true) return run.definitions().map((descriptor) => functionTool(descriptor, strict, false));
  const tools: OpenAIResponsesTool[] = [{ type: "tool_search" }];
  for (const descriptor of run.availableTools()) {
    if (descriptor.name === FIND_TOOL_NAME) continue;
    const deferred =
      descriptor.tier === "deferred" && (!run.isVisible(descriptor.name) || loadedByToolSearch(run, descriptor.name));
    tools.push(functionTool(descriptor, strict, deferred));
  }
  return tools;
}

/**
 * The tool fields of a Responses request; with `allowedToolsChoice`, the same full tool list on
 * every turn plus `tool_choice: { type: "allowed_tools", mode, tools }` naming the tools visible now
 * (see {@link OpenAIAllowedToolsOptions}). `allowedToolsChoice` and `nativeToolSearch` are two
 * answers to the same question and cannot be combined. It carries the run's index in
 * `instructions`, after the host's own (the `instructions` option).
 *
 * @example
 * ```ts
 * await openai.responses.create({ model, input, ...openAIResponsesRequest(run, { instructions: "Be brief.", strict: true }) });
 * ```
 * @public
 */
export function openAIResponsesRequest(run: Run, options: OpenAIResponsesRequestOptions = {}): OpenAIResponsesToolsRequest {
  const instructions = systemWithIndex(run, options.instructions);
  return { ...(instructions === undefined ? {} : { instructions }), ...responsesToolFields(run, options) };
}

function responsesToolFields(
  run: Run,
  options: OpenAIResponsesRequestOptions,
): Omit<OpenAIResponsesToolsRequest, "instructions"> {
  checkOpenAIOptions(options, "openAIResponsesRequest");
  const strict = options.strict === true;
  if (options.allowedToolsChoice !== true) {
    const tools = openAIResponsesTools(run, options);
    return tools.length === 0 ? {} : { tools };
  }
  if (options.nativeToolSearch === true) {
    throw new ConfigurationError(
      "conflicting_options",
      "allowedToolsChoice and nativeToolSearch cannot be combined: choose allowed_tools (all tools sent, calls restricted) or tool search (deferred tools loaded on demand).",
      { data: { fields: ["allowedToolsChoice", "nativeToolSearch"] } },
    );
  }
  const available = run.availableTools();
  if (available.length === 0) return {};
  const tools = available.map((descriptor) => functionTool(descriptor, strict, false));
  const allowed = available.filter((descriptor) => run.isVisible(descriptor.name));
  if (allowed.length === 0) return { tools, tool_choice: "none" };
  return {
    tools,
    tool_choice: {
      type: "allowed_tools",
      mode: options.allowedToolsMode ?? "auto",
      tools: allowed.map((descriptor) => ({ type: "function", name: descriptor.name })),
    },
  };
}

/**
 * Runs the `function_call` items of a response's `output` through `run.call()` and returns one
 * `function_call_output` item per call, in order, for the next request's `input`. It first calls
 * {@link activateToolSearchOutput}, so a deferred tool the hosted tool search loaded in this same
 * response is callable. Arguments go to the run as the JSON string the model sent (malformed JSON
 * comes back as an `invalid_input` result), without the `null`s strict mode sends for left-out
 * optional fields (`stripOptionalNulls`). A refused or failed call is answered with the run's
 * structured error. Calls run one after the other; other items (`tool_search_call`, messages,
 * reasoning) are skipped. A rich result (`toolContent`) sends its images and PDFs as
 * `input_image` / `input_file` content. Nothing here throws for a result: an output JSON cannot
 * hold (a BigInt, a circular object) is written as far as it can be, and a call that rejects
 * becomes a `tool_failed` result, so one bad result never loses the others.
 *
 * @example
 * ```ts
 * const outputs = await runOpenAIResponsesFunctionCalls(run, response.output);
 * await openai.responses.create({ model, previous_response_id: response.id, input: outputs, ...openAIResponsesRequest(run) });
 * ```
 * @public
 */
export async function runOpenAIResponsesFunctionCalls(
  run: Run,
  output: readonly OpenAIResponseItem[],
  options: RunOpenAIToolCallsOptions = {},
): Promise<OpenAIFunctionCallOutputItem[]> {
  // Read once: the limits checked are the limits used, and a getter cannot fail the batch midway.
  const media = readMediaOptions(options, "runOpenAIResponsesFunctionCalls");
  const { signal } = options;
  activateToolSearchOutput(run, output);
  const outputs: OpenAIFunctionCallOutputItem[] = [];
  const step = new Set<string>();
  for (const item of entries(output)) {
    // Every `function_call` with a call id is answered, whatever else it holds (the next request
    // is refused while one is unanswered): an odd name or arguments come back as the run's error.
    if (field(item, "type") !== "function_call") continue;
    const callId = field(item, "call_id");
    if (typeof callId !== "string") continue;
    const name = field(item, "name");
    const json = field(item, "arguments");
    const result = await callSafely(
      run,
      name as string,
      safeArguments(run, name, json),
      {
        callId,
        ...(signal === undefined ? {} : { signal }),
      },
      step,
    );
    outputs.push({ type: "function_call_output", call_id: callId, output: responsesOutput(result, media) });
  }
  return outputs;
}

function functionTool(descriptor: ToolDescriptor, strict: boolean, deferred: boolean): OpenAIResponsesFunctionTool {
  const tool: OpenAIResponsesFunctionTool = { type: "function", ...functionToolParts(descriptor, strict) };
  return deferred ? { ...tool, defer_loading: true } : tool;
}
