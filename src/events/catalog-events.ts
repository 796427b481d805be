import type { ToolCallErrorInfo, ToolCallResult } from "../tool/tool-call-result.js";
import type { ApprovalEvents } from "./approval-events.js";

/**
 * Payload of `tool.activated`.
 *
 * @public
 */
export interface ToolActivatedEvent {
  /** The run. */
  readonly runId: string;
  /** The activated tool. */
  readonly name: string;
  /** Who activated it: `"find_tool"`, `"api"`, or another tool's name. */
  readonly via: string;
  /**
   * The id of the call (of `find_tool`, `toolbox`, ...) that activated it; `undefined` when the
   * host activated it (`run.activate`, `restoreFromTranscript`). Tells apart the activations of
   * calls running in parallel in one step.
   */
  readonly callId?: string | undefined;
}

/**
 * Payload of `tool.called`: a call passed visibility and validation and is about to run.
 *
 * @public
 */
export interface ToolCalledEvent {
  /** The run. */
  readonly runId: string;
  /** The call's id. */
  readonly callId: string;
  /** The tool. */
  readonly name: string;
  /** A copy of the validated input, frozen at every level (the handler runs its own). */
  readonly input: unknown;
}

/**
 * Payload of `tool.result`: a call ended, well or not.
 *
 * @public
 */
export interface ToolResultEvent {
  /** The run. */
  readonly runId: string;
  /** The call's id. */
  readonly callId: string;
  /** The tool. */
  readonly name: string;
  /** How long the call took, in milliseconds. */
  readonly durationMs: number;
  /** The result given back to the model. */
  readonly result: ToolCallResult;
}

/**
 * Payload of `tool.error`: a call failed (unknown tool, bad input, handler error, ...).
 *
 * @public
 */
export interface ToolErrorEvent {
  /** The run. */
  readonly runId: string;
  /** The call's id. */
  readonly callId: string;
  /** The tool name the model used. */
  readonly name: string;
  /** What went wrong, as the model sees it. */
  readonly error: ToolCallErrorInfo;
  /** The exception a handler threw, when there was one. */
  readonly cause: unknown;
}

/**
 * Payload of `registry.changed`.
 *
 * @public
 */
export interface RegistryChangedEvent {
  /** Tools added. */
  readonly added: readonly string[];
  /** Tools removed or disabled. */
  readonly removed: readonly string[];
  /** Tools whose definition changed. */
  readonly updated: readonly string[];
}

/**
 * Payload of `run.diagnostic`: see `run.diagnostics()`.
 *
 * @public
 */
export interface RunDiagnosticEvent {
  /** The run. */
  readonly runId: string;
  /** `unknown_allowed_tool`, `stale_activation`, `unknown_load_mode_tool`, `state_save_failed` or `disposer_failed` (see `RunDiagnostic`). */
  readonly kind: "unknown_allowed_tool" | "stale_activation" | "unknown_load_mode_tool" | "state_save_failed" | "disposer_failed";
  /** The tool name concerned. */
  readonly name: string;
  /** One sentence for a log. */
  readonly message: string;
  /** The closest registered names. */
  readonly suggestions: readonly string[];
}

/**
 * Every event of the catalog, by type. Names are noun-verb.
 *
 * @public
 */
export interface CatalogEvents {
  /** A deferred tool was activated in a run. */
  "tool.activated": ToolActivatedEvent;
  /** A tool call is about to run its handler. */
  "tool.called": ToolCalledEvent;
  /** A tool call ended. */
  "tool.result": ToolResultEvent;
  /** A tool call failed. */
  "tool.error": ToolErrorEvent;
  /** A run found something the host should know (an unknown allowed tool, a stale activation). */
  "run.diagnostic": RunDiagnosticEvent;
  /** The registry's tool set changed. */
  "registry.changed": RegistryChangedEvent;
  /** A call waits for approval. */
  "approval.requested": ApprovalEvents["approval.requested"];
  /** An approval request was decided, timed out or withdrawn. */
  "approval.resolved": ApprovalEvents["approval.resolved"];
}
