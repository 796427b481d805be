import type { Run, ToolCallResult } from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { field } from "../shared/json-fields.js";
import type { ToolResultMediaOptions } from "../shared/tool-result-media.js";
import { readMediaOptions } from "../shared/tool-result-media.js";
import { type AnthropicTextBlockParam, anthropicSystem } from "./anthropic-system.js";
import { anthropicToolResult } from "./anthropic-tool-result.js";
import { type AnthropicToolsOptions, anthropicTools } from "./anthropic-tools.js";
import type { AnthropicContentBlock, AnthropicToolResultBlock } from "./anthropic-types.js";
import { runAnthropicToolUses } from "./run-anthropic-tool-uses.js";
import { activateToolReferences } from "./tool-references.js";

/**
 * A conversation message as the loop handles it: a role and its content, passed through untouched.
 *
 * @public
 */
export interface AnthropicMessageParam {
  /** `"user"` or `"assistant"`. */
  readonly role: string;
  /** A string, or content blocks. */
  readonly content: unknown;
}

/**
 * Any tool definition the API accepts (the loop sends the adapter's, plus none of its own).
 *
 * @public
 */
export interface AnthropicToolParam {
  /** The tool's name. */
  readonly name?: string;
  /** The tool's type, for provider tools. */
  readonly type?: string | null;
}

/**
 * The parameters the loop sends to `messages.create()` (plus `params`).
 *
 * @public
 */
export interface AnthropicMessagesRequest {
  /** The model. */
  readonly model: string;
  /** The most tokens to generate in one response. */
  readonly max_tokens: number;
  /** The conversation so far. */
  readonly messages: readonly AnthropicMessageParam[];
  /** The system prompt. */
  readonly system?: string | readonly AnthropicTextBlockParam[];
  /** The tools. */
  readonly tools?: readonly AnthropicToolParam[];
}

/**
 * The part of a Messages API response the loop reads.
 *
 * @public
 */
export interface AnthropicMessagesResponse {
  /** The assistant's content blocks. */
  readonly content: readonly AnthropicContentBlock[];
  /** Why the model stopped, e.g. `"tool_use"`, `"end_turn"`, `"pause_turn"`. */
  readonly stop_reason: string | null;
}

/**
 * What the loop needs of a client: `messages.create()`. The real `Anthropic` client fits, and so
 * does a fake that replays recorded responses.
 * @public
 */
export interface AnthropicMessagesClient {
  /** The Messages resource. */
  readonly messages: {
    /** Creates a message (non-streaming). */
    create(params: AnthropicMessagesRequest, options?: { readonly signal?: AbortSignal }): PromiseLike<AnthropicMessagesResponse>;
  };
}

/**
 * The message type `Client` accepts (`Anthropic.MessageParam` for the real client).
 *
 * @public
 */
export type AnthropicClientMessage<Client extends AnthropicMessagesClient> = Parameters<
  Client["messages"]["create"]
>[0]["messages"][number];

/**
 * Options of {@link anthropicToolLoop}.
 *
 * @public
 */
export interface AnthropicToolLoopOptions<Client extends AnthropicMessagesClient>
  extends AnthropicToolsOptions,
    ToolResultMediaOptions {
  /** The client, e.g. `new Anthropic()`. */
  readonly client: Client;
  /** The model, e.g. `"claude-sonnet-4-5"`. */
  readonly model: string;
  /** The conversation to continue; it is not changed (the result holds the longer one). */
  readonly messages: readonly AnthropicClientMessage<Client>[];
  /**
   * The host's system prompt. The loop sends it with the run's index after it
   * (`anthropicSystem`), so the tools a listing run names are known to the model.
   */
  readonly system?: string | readonly AnthropicTextBlockParam[];
  /** `max_tokens` of every request: a whole number at least 1. @defaultValue 4096 */
  readonly maxTokens?: number;
  /**
   * The most requests to make. When it is reached the loop stops with `stopReason: "max_turns"`,
   * after answering the last tool calls, so the conversation can be continued as it is. A whole
   * number at least 1.
   * @defaultValue 10
   */
  readonly maxTurns?: number;
  /**
   * Other request parameters, sent as they are (e.g. `temperature`, `tool_choice`, `thinking`,
   * `cache_control`). The loop's own fields (`model`, `max_tokens`, `messages`, `tools`, `system`) win,
   * and `stream` is dropped (the loop reads whole messages).
   */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Cancels the requests and the tool calls. */
  readonly signal?: AbortSignal;
}

/**
 * What {@link anthropicToolLoop} did.
 *
 * @public
 */
export interface AnthropicToolLoopResult<Client extends AnthropicMessagesClient> {
  /** The whole conversation: the input messages, then every assistant message and tool result. */
  readonly messages: AnthropicClientMessage<Client>[];
  /** The last response. */
  readonly response: AnthropicMessagesResponse;
  /** How many requests were made. */
  readonly turns: number;
  /** The last response's `stop_reason`, or `"max_turns"` when the loop ran out of turns. */
  readonly stopReason: string | null;
}

const DEFAULT_MAX_TOKENS = 4096;
const DEFAULT_MAX_TURNS = 10;

/**
 * Runs the tool loop of the Messages API: request, run the `tool_use` blocks through the run,
 * send their results, request again, until the model stops for another reason than `"tool_use"`.
 * A `"pause_turn"` (a long server-tool turn) is continued by sending the response back as it is.
 * A response cut at `"max_tokens"` while the model wrote a tool call is answered too: its complete
 * calls run, the cut one (the last block) is not run and gets an `invalid_input` result saying so,
 * and the loop asks again, so no `tool_use` is ever left without its `tool_result`.
 * Tools are rebuilt for every request, so a tool activated by `find_tool` (or loaded by the
 * provider's tool search with `nativeToolSearch`) is offered from the next request on.
 *
 * @example
 * ```ts
 * const { messages } = await anthropicToolLoop(run, {
 *   client: new Anthropic(),
 *   model: "claude-sonnet-4-5",
 *   messages: [{ role: "user", content: "What will the weather be in Lisbon?" }],
 * });
 * ```
 * @public
 */
export async function anthropicToolLoop<Client extends AnthropicMessagesClient>(
  run: Run,
  options: AnthropicToolLoopOptions<Client>,
): Promise<AnthropicToolLoopResult<Client>> {
  const loop = readLoopOptions(options);
  const maxTurns =
    checkNumberOption(loop.maxTurns, "maxTurns", { min: 1, integer: true }, "anthropicToolLoop") ?? DEFAULT_MAX_TURNS;
  // Sent as the API's max_tokens: a bad one failed the first request, after the loop had started.
  checkNumberOption(loop.maxTokens, "maxTokens", { min: 1, integer: true }, "anthropicToolLoop");
  readMediaOptions(loop, "anthropicToolLoop");
  const messages: AnthropicClientMessage<Client>[] = [...loop.messages];
  // A run rebuilt from saved state learns again which tools the provider's search loaded.
  for (const message of messages) {
    if (message.role === "assistant" && Array.isArray(message.content)) activateToolReferences(run, message.content);
  }
  const signal = loop.signal === undefined ? {} : { signal: loop.signal };
  for (let turns = 1; ; turns++) {
    const response = await loop.client.messages.create(request(run, loop, messages), signal);
    messages.push(asClientMessage<Client>({ role: "assistant", content: response.content }));
    const done = (stopReason: string | null) => ({ messages, response, turns, stopReason });
    if (response.stop_reason === "pause_turn") {
      if (turns >= maxTurns) return done("max_turns");
      continue;
    }
    const results = await answerToolUses(run, response, loop);
    if (results === undefined || results.length === 0) return done(response.stop_reason);
    messages.push(asClientMessage<Client>({ role: "user", content: results }));
    if (turns >= maxTurns) return done("max_turns");
  }
}

/**
 * The loop's options read once, each field: checked once and then read again on every turn, a
 * getter could answer the checks one value and the turns another (a `maxMediaBytes` of `0`, then
 * `NaN`, sent every image whatever its size), or throw after a call had run.
 */
function readLoopOptions<Client extends AnthropicMessagesClient>(
  options: AnthropicToolLoopOptions<Client>,
): AnthropicToolLoopOptions<Client> {
  const { client, model, messages, system, maxTokens, maxTurns, params, signal, nativeToolSearch, media, maxMediaBytes } =
    options;
  const read = { client, model, messages, system, maxTokens, maxTurns, params, signal, nativeToolSearch, media, maxMediaBytes };
  // Fields left out stay absent (an `undefined` would read as given, e.g. to exactOptionalPropertyTypes).
  for (const key of Object.keys(read) as (keyof typeof read)[]) if (read[key] === undefined) delete read[key];
  return Object.freeze(read) as AnthropicToolLoopOptions<Client>;
}

/**
 * The `tool_result`s of a response's calls, or `undefined` when it did not stop for them: at
 * `"tool_use"`, or at `"max_tokens"` while the model wrote a call (see {@link cutToolUse}).
 */
async function answerToolUses<Client extends AnthropicMessagesClient>(
  run: Run,
  response: AnthropicMessagesResponse,
  options: AnthropicToolLoopOptions<Client>,
): Promise<AnthropicToolResultBlock[] | undefined> {
  const cut = response.stop_reason === "max_tokens" ? cutToolUse(response.content) : undefined;
  if (response.stop_reason !== "tool_use" && cut === undefined) return undefined;
  const content = cut === undefined ? response.content : response.content.slice(0, -1);
  const results = await runAnthropicToolUses(run, content, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.media === undefined ? {} : { media: options.media }),
    ...(options.maxMediaBytes === undefined ? {} : { maxMediaBytes: options.maxMediaBytes }),
  });
  if (cut !== undefined) results.push(anthropicToolResult(cut.id, cutCallResult(cut)));
  return results;
}

/**
 * The `tool_use` a response that stopped at `max_tokens` ends with: the API stopped while the model
 * was writing its input, so the input it returns is not the call the model meant. Its earlier
 * `tool_use` blocks are complete. Every one must still be answered: the API refuses a conversation
 * with a `tool_use` and no `tool_result` after it.
 */
function cutToolUse(content: readonly AnthropicContentBlock[]): { readonly id: string; readonly name: string } | undefined {
  const last = content.at(-1);
  if (typeof last !== "object" || last === null || field(last, "type") !== "tool_use") return undefined;
  const id = field(last, "id");
  const name = field(last, "name");
  return typeof id === "string" ? { id, name: typeof name === "string" ? name : "(unnamed)" } : undefined;
}

/** The answer to a cut call, which is not run: an `invalid_input` the model can act on. */
function cutCallResult(cut: { readonly id: string; readonly name: string }): ToolCallResult {
  return {
    ok: false,
    tool: cut.name,
    callId: cut.id,
    error: {
      code: "invalid_input",
      message: `The call of ${cut.name} was cut off at max_tokens before its input was complete; it was not run.`,
      hint: "Send the call again with shorter input, or split the work into several smaller calls.",
    },
  };
}

function request<Client extends AnthropicMessagesClient>(
  run: Run,
  options: AnthropicToolLoopOptions<Client>,
  messages: readonly AnthropicMessageParam[],
): AnthropicMessagesRequest {
  const toolsOptions = options.nativeToolSearch === undefined ? {} : { nativeToolSearch: options.nativeToolSearch };
  // The loop reads whole messages, so a `stream` flag among the extra parameters is dropped.
  const { stream: _stream, ...params } = options.params ?? {};
  const system = anthropicSystem(run, options.system);
  return {
    ...params,
    model: options.model,
    max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages: [...messages],
    tools: anthropicTools(run, toolsOptions),
    ...(system === undefined ? {} : { system }),
  };
}

/**
 * The loop builds two kinds of messages: the assistant's content exactly as the client returned it,
 * and a user message of `tool_result` blocks. Both are what the Messages API documents as input, so
 * they are messages of the client's own type.
 */
function asClientMessage<Client extends AnthropicMessagesClient>(message: AnthropicMessageParam): AnthropicClientMessage<Client> {
  return message as AnthropicClientMessage<Client>;
}
