import type { ToolResultMediaOptions } from "../shared/tool-result-media.js";
import type { OpenAIAllowedToolsMode } from "./openai-types.js";

/**
 * Options shared by the OpenAI tool builders.
 *
 * @public
 */
export interface OpenAIToolsOptions {
  /**
   * Send each tool in strict mode when its schema has a strict form (`toStrictJsonSchema`): the
   * model's arguments are then guaranteed to match it. A tool whose schema strict mode cannot
   * express is sent with its own schema and `strict: false`. Optional fields become nullable in
   * strict form; the call runners strip the `null`s the model sends for them before `run.call()`.
   *
   * It does not turn parallel calls off: OpenAI documents that strict mode does not hold for the
   * calls of a turn that makes several, so their arguments are not guaranteed (the run still
   * validates every call and answers a bad one with `invalid_input` and its issues). Send
   * `parallel_tool_calls: false` yourself when every call must match.
   * @defaultValue `false`
   */
  readonly strict?: boolean;
}

/**
 * Options of the request builders that keep the tool list identical on every turn (which keeps
 * the prompt cache warm) and say with `tool_choice` which tools the model may call now.
 * @public
 */
export interface OpenAIAllowedToolsOptions extends OpenAIToolsOptions {
  /**
   * Send every tool the run may ever see (`run.availableTools()`, in registry order, in full) on
   * every turn, and restrict the calls to the tools visible now (`run.definitions()`: core tools
   * and activated ones) with `tool_choice: { type: "allowed_tools", ... }`. Activating a tool then
   * changes only `tool_choice`, not the tools prefix of the prompt. The price: deferred tools'
   * definitions are in the prompt from the first turn.
   * @defaultValue `false`: send `run.definitions()` only, with no `tool_choice`
   */
  readonly allowedToolsChoice?: boolean;
  /**
   * With `allowedToolsChoice`: `"auto"` lets the model answer or call an allowed tool, `"required"`
   * makes it call one.
   * @defaultValue `"auto"`
   */
  readonly allowedToolsMode?: OpenAIAllowedToolsMode;
}

/**
 * Options of the OpenAI call runners.
 *
 * @public
 */
export interface RunOpenAIToolCallsOptions extends ToolResultMediaOptions {
  /** Cancels the calls; a cancelled call still gets its output (an `aborted` error). */
  readonly signal?: AbortSignal;
}
