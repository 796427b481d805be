import type { ToolCallResult } from "agent-tool-catalog";

/**
 * The output of a call that must have succeeded, as text. Throws with the structured error, so a
 * test that expected success fails with the code and message the model would have seen.
 */
export function okText(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

/**
 * The structured error of a call that must have failed. Throws with the output, so a test that
 * expected a refusal fails with what the call did instead.
 */
export function failure(result: ToolCallResult): Extract<ToolCallResult, { ok: false }>["error"] {
  if (result.ok) throw new Error(`expected failure: ${String(result.output)}`);
  return result.error;
}
