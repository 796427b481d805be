import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";

/** {@link CallOptions} as read once, each field checked. */
export interface ReadCallOptions {
  readonly signal: AbortSignal | undefined;
  readonly callId: string | undefined;
  readonly approved: boolean;
  readonly approvedTool: object | undefined;
}

/**
 * Reads a host's call options once, field by field: a getter that throws, an AbortController
 * passed where its signal belongs, or a non-object are host slips, and the call fails with a
 * message that names the field instead of a bare `internal_error` from deep inside the call.
 *
 * A signal is accepted by shape (a boolean `aborted`, `addEventListener` and
 * `removeEventListener`), so a signal from another realm or a polyfill works too.
 */
export function readCallOptions(options: unknown): ReadCallOptions | ToolCallErrorInfo {
  if (options === undefined || options === null) {
    return { signal: undefined, callId: undefined, approved: false, approvedTool: undefined };
  }
  if (typeof options !== "object" && typeof options !== "function") {
    return hostSlip(`The call options must be an object; got ${typeof options}.`);
  }
  let signal: unknown;
  let callId: unknown;
  let approved: unknown;
  let approvedTool: unknown;
  try {
    const fields = options as { signal?: unknown; callId?: unknown; approved?: unknown; approvedTool?: unknown };
    signal = fields.signal;
    callId = fields.callId;
    approved = fields.approved;
    approvedTool = fields.approvedTool;
  } catch {
    return hostSlip("Reading the call options threw.");
  }
  if (signal !== undefined && signal !== null && !isAbortSignalLike(signal)) {
    const controller = isAbortSignalLike(safeGet(signal, "signal")) ? " (an AbortController: pass its .signal)" : "";
    return hostSlip(`The call options' signal is not an AbortSignal${controller}.`);
  }
  return {
    signal: (signal ?? undefined) as AbortSignal | undefined,
    callId: typeof callId === "string" ? callId : undefined,
    approved: approved === true,
    // Compared by identity with the tool's registry entry: anything but an object matches nothing.
    approvedTool:
      approvedTool === undefined ? undefined : typeof approvedTool === "object" && approvedTool !== null ? approvedTool : {},
  };
}

function hostSlip(detail: string): ToolCallErrorInfo {
  return { code: "internal_error", message: `${detail} The tool was not called; this is the host's mistake, not the model's.` };
}

function safeGet(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

function isAbortSignalLike(value: unknown): value is AbortSignal {
  if (typeof value !== "object" || value === null) return false;
  try {
    const candidate = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown };
    return (
      typeof candidate.aborted === "boolean" &&
      typeof candidate.addEventListener === "function" &&
      typeof candidate.removeEventListener === "function"
    );
  } catch {
    return false;
  }
}
