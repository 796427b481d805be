import type { ModelErrorCode } from "../errors/model-error-code.js";
import type { ToolContentPart } from "./tool-content.js";
import type { ValidationIssue } from "./validation-issue.js";

/**
 * Error codes a run itself produces (a subset of `ModelErrorCode`).
 *
 * @public
 */
export type RunErrorCode = Extract<
  ModelErrorCode,
  | "unknown_tool"
  | "tool_not_activated"
  | "tool_not_allowed"
  | "tool_disabled"
  | "use_toolbox"
  | "invalid_input"
  | "input_too_large"
  | "tool_failed"
  | "invalid_output"
  | "aborted"
  | "approval_denied"
  | "call_interrupted"
  | "internal_error"
>;

/**
 * What went wrong in a call, as the model sees it.
 *
 * @public
 */
export interface ToolCallErrorInfo {
  /** A stable code, e.g. `"tool_not_activated"`: a `ModelErrorCode`, or a host tool's own. */
  readonly code: ModelErrorCode | (string & {});
  /** What went wrong, in one or two sentences. */
  readonly message: string;
  /** What to do next. */
  readonly hint?: string;
  /** For `invalid_input`: each field that is wrong and why. */
  readonly issues?: readonly ValidationIssue[];
  /** For unknown names: the closest names that exist. */
  readonly suggestions?: readonly string[];
}

/**
 * A call that succeeded.
 *
 * @public
 */
export interface ToolCallSuccess {
  /** Discriminant. */
  readonly ok: true;
  /** The tool's name. */
  readonly tool: string;
  /** The call's id. */
  readonly callId: string;
  /** What the handler returned (for a `toolContent` result: its `output`, else its text). */
  readonly output: unknown;
  /**
   * The parts of a rich result (`toolContent`): text, images, files, size-capped by the run.
   * Adapters send them in the provider's own shape.
   */
  readonly content?: readonly ToolContentPart[];
}

/**
 * A call that failed; the run goes on.
 *
 * @public
 */
export interface ToolCallFailure {
  /** Discriminant. */
  readonly ok: false;
  /** The tool name the model used. */
  readonly tool: string;
  /** The call's id. */
  readonly callId: string;
  /** What went wrong. */
  readonly error: ToolCallErrorInfo;
}

/**
 * The result of `run.call()`: never an exception for a model mistake.
 *
 * @public
 */
export type ToolCallResult = ToolCallSuccess | ToolCallFailure;

/**
 * The text a provider sends back to the model for a result: a string output as is, any other
 * output as JSON, and a failure as `{"error":{...}}` JSON.
 * @public
 */
export function formatToolResult(result: ToolCallResult): string {
  try {
    if (!result.ok) return JSON.stringify({ error: result.error });
    const { output } = result;
    if (typeof output === "string") return output;
    if (output === undefined) return "";
    return JSON.stringify(output) ?? String(output);
  } catch {
    // Results from run.call are JSON-safe already; a result built by hand may not be. Never lose
    // a batch of results over one of them.
    return JSON.stringify({ error: { code: "invalid_output", message: "The tool's result could not be serialised." } });
  }
}
