// Wire shapes of the Anthropic Messages API, declared structurally so that this subpath needs
// neither a runtime nor a type dependency on `@anthropic-ai/sdk`. The tests assign every shape
// to the SDK's own types, so a drift fails `tsc`.

/**
 * A tool's `input_schema`: a JSON object schema, passed through as the tool declared it.
 *
 * @public
 */
export interface AnthropicInputSchema {
  /** Always `"object"`. */
  readonly type: "object";
  /** Every other JSON Schema keyword. */
  readonly [keyword: string]: unknown;
}

/**
 * A client tool for `messages.create({ tools })`: the model asks, the host runs it.
 *
 * @public
 */
export interface AnthropicCustomTool {
  /** The tool's name, as the model calls it. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The input the tool accepts. */
  readonly input_schema: AnthropicInputSchema;
  /**
   * Set on deferred tools when the provider's tool search is used: the definition stays out of the
   * prompt until a search returns a `tool_reference` to it.
   */
  readonly defer_loading?: true;
}

/**
 * Which of the provider's tool search tools to use: natural-language BM25 or regular expressions.
 *
 * @public
 */
export type AnthropicToolSearchVariant = "bm25" | "regex";

/**
 * The provider's tool search tool (a server tool: Anthropic runs it, not the host).
 *
 * @public
 */
export type AnthropicToolSearchTool =
  | { readonly type: "tool_search_tool_bm25_20251119"; readonly name: "tool_search_tool_bm25" }
  | { readonly type: "tool_search_tool_regex_20251119"; readonly name: "tool_search_tool_regex" };

/**
 * One entry of `messages.create({ tools })` as this adapter produces it.
 *
 * @public
 */
export type AnthropicTool = AnthropicCustomTool | AnthropicToolSearchTool;

/**
 * Any content block of an assistant message. The adapter reads only the kinds it knows
 * (`tool_use`, `tool_search_tool_result`) and checks their fields at run time; the rest is ignored.
 * @public
 */
export interface AnthropicContentBlock {
  /** The block's kind, e.g. `"text"`, `"tool_use"`, `"server_tool_use"`. */
  readonly type: string;
}

/**
 * A call of a client tool, as the model emits it.
 *
 * @public
 */
export interface AnthropicToolUseBlock extends AnthropicContentBlock {
  /** Discriminant. */
  readonly type: "tool_use";
  /** The call's id, echoed by its `tool_result`. */
  readonly id: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, already parsed by the provider. */
  readonly input: unknown;
}

/**
 * The answer to one `tool_use` block, sent back in the next `user` message.
 *
 * @public
 */
export interface AnthropicToolResultBlock {
  /** Discriminant. */
  readonly type: "tool_result";
  /** The `id` of the `tool_use` block it answers. */
  readonly tool_use_id: string;
  /**
   * The result as text (`formatToolResult`): the output, or the run's structured error as JSON; for
   * a rich result (`toolContent`) with images or files, its parts as content blocks. Absent when a
   * handler returned nothing.
   */
  readonly content?: string | AnthropicToolResultContentBlock[];
  /** Present (always `true`) when the call failed, so the model reads the content as an error. */
  readonly is_error?: true;
}

/**
 * A text block of a rich tool result.
 *
 * @public
 */
export interface AnthropicResultTextBlock {
  /** Discriminant. */
  readonly type: "text";
  /** The text (never empty: the API refuses empty text blocks). */
  readonly text: string;
}

/**
 * An image of a rich tool result, inline as base64.
 *
 * @public
 */
export interface AnthropicResultImageBlock {
  /** Discriminant. */
  readonly type: "image";
  /** The bytes. */
  readonly source: {
    readonly type: "base64";
    readonly media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
    readonly data: string;
  };
}

/**
 * A document of a rich tool result: a PDF (base64) or plain text.
 *
 * @public
 */
export interface AnthropicResultDocumentBlock {
  /** Discriminant. */
  readonly type: "document";
  /** The document. */
  readonly source:
    | { readonly type: "base64"; readonly media_type: "application/pdf"; readonly data: string }
    | { readonly type: "text"; readonly media_type: "text/plain"; readonly data: string };
  /** The file name, when the part had one. */
  readonly title?: string;
}

/**
 * One block of a rich `tool_result`'s content.
 *
 * @public
 */
export type AnthropicToolResultContentBlock = AnthropicResultTextBlock | AnthropicResultImageBlock | AnthropicResultDocumentBlock;
