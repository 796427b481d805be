// Wire shapes of the OpenAI Chat Completions and Responses APIs, declared structurally so that this
// subpath needs neither a runtime nor a type dependency on `openai`. The tests assign every shape
// to the SDK's own types, so a drift fails `tsc`. Entries of `allowed_tools` are type aliases, not
// interfaces: the SDK types them as `{ [key: string]: unknown }`, which only aliases satisfy.

/**
 * A function's `parameters`: a JSON object schema (the original, or its strict form).
 *
 * @public
 */
export interface OpenAIParametersSchema {
  /** Always `"object"`. */
  readonly type: "object";
  /** Every other JSON Schema keyword. */
  readonly [keyword: string]: unknown;
}

/**
 * What `tool_choice: allowed_tools` lets the model do: pick freely among them, or call one.
 *
 * @public
 */
export type OpenAIAllowedToolsMode = "auto" | "required";

/**
 * A function tool of Chat Completions (`chat.completions.create({ tools })`).
 *
 * @public
 */
export interface OpenAIChatFunctionTool {
  /** Discriminant. */
  readonly type: "function";
  /** The function. */
  readonly function: {
    /** The tool's name. */
    readonly name: string;
    /** What the tool does, for the model. */
    readonly description: string;
    /** The input schema: the strict form when `strict` is true, else the tool's own. */
    readonly parameters: OpenAIParametersSchema;
    /** True when the model's arguments are guaranteed to match `parameters`. */
    readonly strict: boolean;
  };
}

/**
 * A tool call of a Chat Completions assistant message (`message.tool_calls[i]`).
 *
 * @public
 */
export interface OpenAIChatToolCall {
  /** The call's id, echoed by its tool message. */
  readonly id: string;
  /** `"function"` for function calls (custom tool calls are not this adapter's). */
  readonly type: string;
  /** The function and its arguments as a JSON string. */
  readonly function?: {
    /** The tool's name. */
    readonly name: string;
    /** The arguments, a JSON string (possibly malformed). */
    readonly arguments: string;
  };
}

/**
 * The answer to one tool call, as a `tool` message.
 *
 * @public
 */
export interface OpenAIChatToolMessage {
  /** Discriminant. */
  readonly role: "tool";
  /** The `id` of the call it answers. */
  readonly tool_call_id: string;
  /** The result as text (`formatToolResult`): the output, or the run's structured error as JSON. */
  readonly content: string;
}

/**
 * `tool_choice` of Chat Completions restricting the calls to some of the tools sent.
 *
 * @public
 */
export type OpenAIChatAllowedToolsChoice = {
  /** Discriminant. */
  readonly type: "allowed_tools";
  /** The allowed tools. */
  readonly allowed_tools: {
    /** See {@link OpenAIAllowedToolsMode}. */
    readonly mode: OpenAIAllowedToolsMode;
    /** The tools the model may call now. */
    tools: { readonly type: "function"; readonly function: { readonly name: string } }[];
  };
};

/**
 * A function tool of the Responses API (`responses.create({ tools })`).
 *
 * @public
 */
export interface OpenAIResponsesFunctionTool {
  /** Discriminant. */
  readonly type: "function";
  /** The tool's name. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The input schema: the strict form when `strict` is true, else the tool's own. */
  readonly parameters: OpenAIParametersSchema;
  /** True when the model's arguments are guaranteed to match `parameters` (always sent: the API defaults to true). */
  readonly strict: boolean;
  /** Set on deferred tools with native tool search: loaded when a `tool_search` returns them. */
  readonly defer_loading?: true;
}

/**
 * The hosted tool search tool of the Responses API.
 *
 * @public
 */
export interface OpenAIResponsesToolSearchTool {
  /** Discriminant. */
  readonly type: "tool_search";
}

/**
 * One entry of `responses.create({ tools })` as this adapter produces it.
 *
 * @public
 */
export type OpenAIResponsesTool = OpenAIResponsesFunctionTool | OpenAIResponsesToolSearchTool;

/**
 * Any item of a response's `output`. The adapter reads only the kinds it knows (`function_call`,
 * `tool_search_output`) and checks their fields at run time; the rest is ignored.
 * @public
 */
export interface OpenAIResponseItem {
  /** The item's kind, e.g. `"message"`, `"function_call"`, `"tool_search_call"`. */
  readonly type: string;
}

/**
 * A function call of the Responses API.
 *
 * @public
 */
export interface OpenAIFunctionCallItem extends OpenAIResponseItem {
  /** Discriminant. */
  readonly type: "function_call";
  /** The call's id, echoed by its output. */
  readonly call_id: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, a JSON string (possibly malformed). */
  readonly arguments: string;
}

/**
 * The answer to one function call, for the next request's `input`.
 *
 * @public
 */
export interface OpenAIFunctionCallOutputItem {
  /** Discriminant. */
  readonly type: "function_call_output";
  /** The `call_id` of the call it answers. */
  readonly call_id: string;
  /**
   * The result as text (`formatToolResult`): the output, or the run's structured error as JSON; for
   * a rich result (`toolContent`) with images or files, its parts as content.
   */
  readonly output: string | OpenAIFunctionCallOutputContent[];
}

/**
 * One part of a rich `function_call_output`: text, an image or a file, inline as data URLs.
 *
 * @public
 */
export type OpenAIFunctionCallOutputContent =
  | { readonly type: "input_text"; readonly text: string }
  | { readonly type: "input_image"; readonly image_url: string; readonly detail: "auto" }
  | { readonly type: "input_file"; readonly file_data: string; readonly filename: string };

/**
 * An image or a file of a Chat Completions `user` message (tool messages take text only).
 *
 * @public
 */
export type OpenAIChatUserContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }
  | { readonly type: "file"; readonly file: { readonly file_data: string; readonly filename: string } };

/**
 * The `user` message that carries the images and files of a batch's rich results, after its tool
 * messages (Chat Completions tool messages take text only).
 * @public
 */
export interface OpenAIChatUserMessage {
  /** Discriminant. */
  readonly role: "user";
  /** A line naming the calls, then their images and files. */
  readonly content: OpenAIChatUserContentPart[];
}

/**
 * `tool_choice` of the Responses API restricting the calls to some of the tools sent.
 *
 * @public
 */
export type OpenAIResponsesAllowedToolsChoice = {
  /** Discriminant. */
  readonly type: "allowed_tools";
  /** See {@link OpenAIAllowedToolsMode}. */
  readonly mode: OpenAIAllowedToolsMode;
  /** The tools the model may call now. */
  tools: { readonly type: "function"; readonly name: string }[];
};
