import type { CallOptions, Run, ToolCallResult } from "agent-tool-catalog";

/**
 * `run.call()`, for the adapters' batch runners: a call that rejects anyway (a closed run, a bug in
 * a hook) becomes a `tool_failed` result, so every other call of the batch still gets its answer
 * and the provider's turn stays well-formed. With `step` (the ids of the message's calls so far), a
 * call whose id the message already used is answered with `duplicate_call_id` and not run.
 */
export async function callSafely(
  run: Run,
  name: string,
  args: unknown,
  options: CallOptions & { callId: string },
  step?: Set<string>,
): Promise<ToolCallResult> {
  if (step !== undefined) {
    // One id twice in one assistant message: the batch runners call one after the other, so the
    // run's check of running ids does not see it; the second is answered, not run.
    if (step.has(options.callId)) return duplicateCallIdResult(String(name), options.callId);
    step.add(options.callId);
  }
  try {
    return await run.call(name, args, options);
  } catch {
    return {
      ok: false,
      tool: String(name),
      callId: options.callId,
      error: {
        code: "tool_failed",
        message: `The call of ${String(name)} failed before it returned a result.`,
        hint: "Try again, or go on without this tool.",
      },
    };
  }
}

/** The answer to a call whose provider call id another call of the same step already has; it did not run. */
export function duplicateCallIdResult(name: string, callId: string): ToolCallResult {
  return {
    ok: false,
    tool: name,
    callId,
    error: {
      code: "duplicate_call_id",
      message: `Another call with the id "${callId.slice(0, 200)}" is running or was answered in this step; this one was not run.`,
      hint: "Each tool call needs its own id; the other call's result answers this id.",
    },
  };
}
