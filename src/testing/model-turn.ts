import type { ToolCallResult, ToolDescriptor } from "agent-tool-catalog";

/**
 * One tool call a (fake) model makes.
 *
 * @public
 */
export interface ModelToolCall {
  /** The call id. @defaultValue `"call_<turn>_<index>"` */
  readonly id?: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, as an object or a JSON string. */
  readonly args?: unknown;
}

/**
 * What a model answers in one turn: text, tool calls, or both. A turn without calls ends the loop.
 *
 * @public
 */
export interface ModelTurn {
  /** Text for the user. */
  readonly text?: string;
  /** Tool calls to run before the next turn. */
  readonly toolCalls?: readonly ModelToolCall[];
}

/**
 * A message of the loop's conversation.
 *
 * @public
 */
export type LoopMessage =
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly text: string | undefined; readonly toolCalls: readonly ModelToolCall[] }
  | {
      readonly role: "tool";
      readonly callId: string;
      readonly name: string;
      readonly content: string;
      readonly result: ToolCallResult;
    };

/**
 * What the model is given in one turn.
 *
 * @public
 */
export interface ModelRequest {
  /** The turn's number, from 1. */
  readonly turn: number;
  /** The tools sent this turn (`run.definitions()`). */
  readonly tools: readonly ToolDescriptor[];
  /** The conversation so far. */
  readonly messages: readonly LoopMessage[];
}

/**
 * Anything that answers a {@link ModelRequest}: a scripted fake, or an adapter around a real model.
 *
 * @public
 */
export interface LoopModel {
  /** Answers one turn. */
  respond(request: ModelRequest): ModelTurn | Promise<ModelTurn>;
}
