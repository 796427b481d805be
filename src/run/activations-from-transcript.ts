import { FIND_TOOL_NAME } from "../meta/find-tool.js";

/**
 * The `via` of activations made by Anthropic's server-side tool search (`tool_reference` blocks).
 * The Anthropic adapter exports the same value as `ANTHROPIC_TOOL_SEARCH_VIA`.
 */
export const ANTHROPIC_SEARCH_VIA = "anthropic_tool_search";
/**
 * The `via` of activations made by OpenAI's hosted tool search (`tool_search_output` items). The
 * OpenAI adapter exports the same value as `OPENAI_TOOL_SEARCH_VIA`.
 */
export const OPENAI_SEARCH_VIA = "openai_tool_search";

/** One activation read from a transcript: the tool name and what activated it. */
export interface TranscriptActivation {
  readonly name: string;
  /** `find_tool`, or the provider search's via (see the `tool.activated` event). */
  readonly via: string;
}

/**
 * The activations a stored conversation records, in the order they happened, read strictly from
 * the structures that only the host or the provider writes, never from text the model wrote:
 *
 * - the result of a `find_tool` call, paired with that call by id: AI SDK `tool-result` parts
 *   (`role: "tool"`), Anthropic `tool_result` blocks answering a `tool_use`, OpenAI Responses
 *   `function_call_output` items answering a `function_call`, OpenAI Chat `tool` messages answering
 *   an assistant's `tool_calls`. Only its `activated` names count: the names it found already
 *   available were active for another reason, and an error result activated nothing;
 * - Anthropic `tool_search_tool_result` blocks (their `tool_reference`s) and OpenAI
 *   `tool_search_output` items (their functions, also inside namespaces).
 *
 * A look-alike anywhere else (a user's message, the model's own text, a tool result of another
 * call, a result whose call id matches no `find_tool` call, or one whose id a later call of
 * another tool reused, a second result for one call) activates nothing. An id that two calls use
 * before it is answered (two calls of one step with one id) is ambiguous: its results activate
 * nothing, since the adapters ran only the first and answered the second `duplicate_call_id`, and
 * the transcript cannot show which result is whose. The walk is bounded
 * (messages, blocks, result size), so a huge transcript cannot stall the host.
 */
export function activationsFromTranscript(messages: readonly unknown[]): TranscriptActivation[] {
  const reader = new TranscriptReader();
  let count = 0;
  for (const message of messages) {
    if (++count > MAX_MESSAGES) break;
    if (isObject(message)) reader.read(message);
  }
  return reader.activations;
}

const MAX_MESSAGES = 100_000;
const MAX_BLOCKS = 10_000;
const MAX_RESULT_CHARS = 1_000_000;
/** The pending entry of an id two calls took before it was answered. */
const AMBIGUOUS: unique symbol = Symbol("ambiguous call id");

class TranscriptReader {
  readonly activations: TranscriptActivation[] = [];
  /**
   * The calls not answered yet, by id: the tool's name, or {@link AMBIGUOUS} when a second call
   * took the id before it was answered (every provider's call id shares one space here), and how
   * many of its calls wait for a result. The entry goes once every call under it is answered, so
   * an id reused later (providers that number calls per response) names its new call again.
   */
  private readonly pending = new Map<string, { name: string | typeof AMBIGUOUS; open: number }>();

  read(message: object): void {
    const type = field(message, "type");
    if (type !== undefined && type !== "message") {
      this.readResponsesItem(message, type);
      return;
    }
    const role = field(message, "role");
    const content = field(message, "content");
    if (role === "assistant") {
      this.readChatToolCalls(field(message, "tool_calls"));
      for (const block of blocks(content)) this.readAssistantBlock(block);
    } else if (role === "tool") {
      const callId = field(message, "tool_call_id");
      if (typeof callId === "string") this.readFindToolResult(callId, content);
      else for (const block of blocks(content)) this.readAiSdkToolResult(block);
    } else if (role === "user") {
      for (const block of blocks(content)) this.readAnthropicToolResult(block);
    }
  }

  /** OpenAI Responses items: `function_call`, `function_call_output`, `tool_search_output`. */
  private readResponsesItem(item: object, type: unknown): void {
    if (type === "function_call") this.rememberCall(field(item, "call_id"), field(item, "name"));
    else if (type === "function_call_output") {
      const callId = field(item, "call_id");
      if (typeof callId === "string") this.readFindToolResult(callId, field(item, "output"));
    } else if (type === "tool_search_output") this.addSearchTools(field(item, "tools"), 0);
  }

  /** Chat Completions: `{ role: "assistant", tool_calls: [{ id, function: { name } }] }`. */
  private readChatToolCalls(calls: unknown): void {
    for (const call of blocks(calls)) {
      const fn = field(call, "function");
      this.rememberCall(field(call, "id"), isObject(fn) ? field(fn, "name") : undefined);
    }
  }

  /** An assistant's content: Anthropic `tool_use` and `tool_search_tool_result`, AI SDK `tool-call`. */
  private readAssistantBlock(block: object): void {
    const type = field(block, "type");
    if (type === "tool_use") this.rememberCall(field(block, "id"), field(block, "name"));
    else if (type === "tool-call") this.rememberCall(field(block, "toolCallId"), field(block, "toolName"));
    else if (type === "tool_search_tool_result") {
      const result = field(block, "content");
      if (!isObject(result) || field(result, "type") !== "tool_search_tool_search_result") return;
      for (const reference of blocks(field(result, "tool_references"))) {
        const name = field(reference, "type") === "tool_reference" ? field(reference, "tool_name") : undefined;
        if (typeof name === "string") this.add(name, ANTHROPIC_SEARCH_VIA);
      }
    }
  }

  /** An AI SDK `tool-result` part: `output` is `{ type: "json" | "text", value }` (or a bare value in older messages). */
  private readAiSdkToolResult(part: object): void {
    if (field(part, "type") !== "tool-result") return;
    const callId = field(part, "toolCallId");
    if (typeof callId !== "string") return;
    // Any tool's result answers its call; only a find_tool result can activate.
    if (field(part, "toolName") !== FIND_TOOL_NAME) {
      this.answer(callId);
      return;
    }
    const output = field(part, "output");
    const type = isObject(output) ? field(output, "type") : undefined;
    if (type === "json" || type === "text") this.readFindToolResult(callId, field(output as object, "value"));
    else if (type === undefined) this.readFindToolResult(callId, output);
    // An error output (`error-json`, `error-text`, ...) answers the call and activated nothing.
    else this.answer(callId);
  }

  /** An Anthropic `tool_result` block in a user message; an error result activated nothing. */
  private readAnthropicToolResult(block: object): void {
    if (field(block, "type") !== "tool_result") return;
    const callId = field(block, "tool_use_id");
    if (typeof callId !== "string") return;
    // An error result still answers its call (so the id is free again), but activated nothing.
    if (field(block, "is_error") === true) this.answer(callId);
    else this.readFindToolResult(callId, field(block, "content"));
  }

  /**
   * Notes a call: the id names this call until its result comes. Providers that number calls per
   * response (`call_0`, ...) reuse ids across turns, and a later call's result (text a web page or
   * a file may have written as find_tool's JSON) must not count as find_tool's. A second call
   * under an id not answered yet (two calls of one step with one id) makes it ambiguous: the
   * adapters ran only the first, and which result is whose cannot be told.
   */
  private rememberCall(id: unknown, name: unknown): void {
    if (typeof id !== "string") return;
    const waiting = this.pending.get(id);
    if (waiting === undefined) this.pending.set(id, { name: typeof name === "string" ? name : "", open: 1 });
    else {
      waiting.name = AMBIGUOUS;
      waiting.open++;
    }
  }

  /**
   * Takes one result under `id`: the name of the call it answers ({@link AMBIGUOUS} for every
   * result of an id two calls took), undefined when no call waits under it.
   */
  private answer(id: string): string | typeof AMBIGUOUS | undefined {
    const waiting = this.pending.get(id);
    if (waiting === undefined) return undefined;
    waiting.open--;
    if (waiting.open <= 0) this.pending.delete(id);
    return waiting.name;
  }

  /**
   * The `activated` names of a find_tool result: its JSON text (a string, or text parts as each
   * provider wraps them) or the parsed object. Ignored unless `callId` is the id of a find_tool
   * call not answered yet: a call has one result, a second one under its id is not its answer.
   */
  private readFindToolResult(callId: string, output: unknown): void {
    // The first result answers the call; an ambiguous id's results, all of them, activate nothing.
    if (this.answer(callId) !== FIND_TOOL_NAME) return;
    let value = output;
    if (typeof value !== "string" && Array.isArray(value)) value = resultText(value);
    if (typeof value === "string") {
      if (value.length > MAX_RESULT_CHARS) return;
      try {
        value = JSON.parse(value);
      } catch {
        return; // Not find_tool's JSON (an error message, a redacted result): activated nothing.
      }
    }
    if (!isObject(value) || field(value, "error") !== undefined) return;
    for (const entry of blocks(field(value, "activated"))) {
      const name = field(entry, "name");
      if (typeof name === "string") this.add(name, FIND_TOOL_NAME);
    }
  }

  /** The functions of a `tool_search_output`'s `tools`, namespaces included. */
  private addSearchTools(tools: unknown, depth: number): void {
    if (depth > 4) return;
    for (const tool of blocks(tools)) {
      const type = field(tool, "type");
      const name = field(tool, "name");
      if (type === "function" && typeof name === "string") this.add(name, OPENAI_SEARCH_VIA);
      else if (type === "namespace") this.addSearchTools(field(tool, "tools"), depth + 1);
    }
  }

  private add(name: string, via: string): void {
    this.activations.push({ name, via });
  }
}

/** The objects of an array (at most {@link MAX_BLOCKS}); nothing for anything else. */
function blocks(value: unknown): object[] {
  if (!Array.isArray(value)) return [];
  const objects: object[] = [];
  for (const item of value.length > MAX_BLOCKS ? value.slice(0, MAX_BLOCKS) : value) if (isObject(item)) objects.push(item);
  return objects;
}

/** The text of content parts (`text`, `input_text`, `output_text`), joined. */
function resultText(parts: readonly unknown[]): string {
  let text = "";
  for (const part of blocks(parts)) {
    const type = field(part, "type");
    const value = field(part, "text");
    if ((type === "text" || type === "input_text" || type === "output_text") && typeof value === "string") text += value;
    if (text.length > MAX_RESULT_CHARS) break;
  }
  return text;
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** An own property (never one inherited from `Object.prototype`). */
function field(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
