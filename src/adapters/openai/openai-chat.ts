import type { Run } from "agent-tool-catalog";
import { entries, field, label } from "../shared/json-fields.js";
import { callSafely } from "../shared/safe-call.js";
import { systemWithIndex } from "../shared/system-prompt.js";
import { readMediaOptions } from "../shared/tool-result-media.js";
import { checkOpenAIOptions } from "./check-openai-options.js";
import { functionToolParts, safeArguments } from "./function-tool-parts.js";
import type { OpenAIAllowedToolsOptions, OpenAIToolsOptions, RunOpenAIToolCallsOptions } from "./openai-options.js";
import { chatOutput } from "./openai-tool-result.js";
import type {
  OpenAIChatAllowedToolsChoice,
  OpenAIChatFunctionTool,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserContentPart,
  OpenAIChatUserMessage,
} from "./openai-types.js";

/**
 * A message {@link runOpenAIChatToolCalls} returns: a tool message, or the user message of the batch's images and files.
 *
 * @public
 */
export type OpenAIChatResultMessage = OpenAIChatToolMessage | OpenAIChatUserMessage;

/**
 * A message of a Chat Completions conversation, as `openAIChatRequest` reads it.
 *
 * @public
 */
export interface OpenAIChatMessageLike {
  /** `"system"`, `"developer"`, `"user"`, `"assistant"`, `"tool"`, ... */
  readonly role: string;
  /** A string, or content parts. */
  readonly content?: unknown;
}

/**
 * Options of `openAIChatRequest` with the conversation.
 *
 * @public
 */
export interface OpenAIChatRequestOptions<Message extends OpenAIChatMessageLike> extends OpenAIAllowedToolsOptions {
  /**
   * The conversation. When given, the request carries it as `messages` with the run's index
   * (`run.systemPromptIndex()`, the tools a listing run names and reaches through `toolbox`) in
   * the system prompt: appended to a leading `system` / `developer` message with string content,
   * else in a `system` message put first. Without it the index is not sent: use
   * `openAIChatSystemMessage(run)` yourself.
   */
  readonly messages: readonly Message[];
}

/**
 * The tool fields of a Chat Completions request, to spread into `chat.completions.create()`.
 *
 * @public
 */
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
 * @public
 */
export function openAIChatTools(run: Run, options: OpenAIToolsOptions = {}): OpenAIChatFunctionTool[] {
  checkOpenAIOptions(options, "openAIChatTools");
  const strict = options.strict === true;
  return run.definitions().map((descriptor) => ({ type: "function", function: functionToolParts(descriptor, strict) }));
}

/**
 * The tool fields of a Chat Completions request; with `allowedToolsChoice`, the same full tool list
 * on every turn plus `tool_choice: { type: "allowed_tools", allowed_tools: { mode, tools } }`
 * naming the tools visible now (see {@link OpenAIAllowedToolsOptions}). Given the conversation
 * (`messages`), it returns it too, with the run's index in the system prompt.
 *
 * @example
 * ```ts
 * await openai.chat.completions.create({ model, ...openAIChatRequest(run, { messages, allowedToolsChoice: true }) });
 * ```
 * @public
 */
export function openAIChatRequest(run: Run, options?: OpenAIAllowedToolsOptions): OpenAIChatToolsRequest;
/** @public */
export function openAIChatRequest<Message extends OpenAIChatMessageLike>(
  run: Run,
  options: OpenAIChatRequestOptions<Message>,
): OpenAIChatToolsRequest & { messages: Message[] };
/** @public */
export function openAIChatRequest<Message extends OpenAIChatMessageLike>(
  run: Run,
  options: OpenAIAllowedToolsOptions & { readonly messages?: readonly Message[] } = {},
): OpenAIChatToolsRequest & { messages?: Message[] } {
  const fields = chatToolFields(run, options);
  return options.messages === undefined ? fields : { messages: withIndexMessage(run, options.messages), ...fields };
}

function chatToolFields(run: Run, options: OpenAIAllowedToolsOptions): OpenAIChatToolsRequest {
  checkOpenAIOptions(options, "openAIChatRequest");
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
 * The run's index (`run.systemPromptIndex()`) as a `system` message, after the host's own system
 * prompt when given; `undefined` when there is neither. For hosts that build `messages` themselves.
 *
 * @example
 * ```ts
 * const system = openAIChatSystemMessage(run, "You are a careful assistant.");
 * const messages = [...(system === undefined ? [] : [system]), { role: "user" as const, content: "Hi" }];
 * ```
 * @public
 */
export function openAIChatSystemMessage(run: Run, system?: string): { role: "system"; content: string } | undefined {
  const content = systemWithIndex(run, system);
  return content === undefined ? undefined : { role: "system", content };
}

function withIndexMessage<Message extends OpenAIChatMessageLike>(run: Run, messages: readonly Message[]): Message[] {
  const index = run.systemPromptIndex();
  if (index === undefined) return [...messages];
  const [first, ...rest] = messages;
  if (first !== undefined && (first.role === "system" || first.role === "developer") && typeof first.content === "string") {
    return [{ ...first, content: `${first.content}\n\n${index}` }, ...rest];
  }
  return [{ role: "system", content: index } as unknown as Message, ...messages];
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
 * Tool messages take text only: the images and files of rich results (`toolContent`) come in one
 * `user` message after the tool messages, and each tool message says which of them are its own.
 * Nothing here throws for a result: an output JSON cannot hold (a BigInt, a circular object) is
 * written as far as it can be, and a call that rejects becomes a `tool_failed` result, so one bad
 * result never loses the others.
 *
 * @example
 * ```ts
 * const message = completion.choices[0]?.message;
 * if (message !== undefined) messages.push(message, ...(await runOpenAIChatToolCalls(run, message.tool_calls)));
 * ```
 * @public
 */
export async function runOpenAIChatToolCalls(
  run: Run,
  toolCalls: readonly OpenAIChatToolCall[] | null | undefined,
  options: RunOpenAIToolCallsOptions = {},
): Promise<OpenAIChatResultMessage[]> {
  // Read once: the limits checked are the limits used, and a getter cannot fail the batch midway.
  const mediaOptions = readMediaOptions(options, "runOpenAIChatToolCalls");
  const { signal } = options;
  const messages: OpenAIChatResultMessage[] = [];
  const media: OpenAIChatUserContentPart[] = [];
  const step = new Set<string>();
  for (const call of entries(toolCalls)) {
    if (field(call, "type") !== "function") continue;
    const id = field(call, "id");
    const fn = field(call, "function");
    const name = field(fn, "name");
    const result = await callSafely(
      run,
      name as string,
      safeArguments(run, name, field(fn, "arguments")),
      {
        callId: label(id),
        ...(signal === undefined ? {} : { signal }),
      },
      step,
    );
    const output = chatOutput(result, mediaOptions);
    messages.push({ role: "tool", tool_call_id: id as string, content: output.text });
    if (output.media.length > 0) {
      media.push(
        { type: "text", text: `The images and files of tool call ${label(id)} (${label(name)}), in order:` },
        ...output.media,
      );
    }
  }
  if (media.length > 0) messages.push({ role: "user", content: media });
  return messages;
}
