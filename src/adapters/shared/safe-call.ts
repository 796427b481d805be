import type { CallOptions, Run, ToolCallResult } from "agent-tool-catalog";

/**
 * `run.call()`, for the adapters' batch runners: a call that rejects anyway (a closed run, a bug in
 * a hook) becomes a `tool_failed` result, so every other call of the batch still gets its answer
 * and the provider's turn stays well-formed.
 */
export async function callSafely(
  run: Run,
  name: string,
  args: unknown,
  options: CallOptions & { callId: string },
): Promise<ToolCallResult> {
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
