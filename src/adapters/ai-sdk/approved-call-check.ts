import type { ToolCallResult } from "agent-tool-catalog";

/** A message part as the SDK stores it: only the fields read here. */
interface Part {
  readonly type?: unknown;
  readonly toolCallId?: unknown;
  readonly approvalId?: unknown;
}

/** The parts of `message` when it is a message of `role`, else none. */
export function partsOf(message: unknown, role: string): readonly Part[] {
  if (typeof message !== "object" || message === null) return [];
  const { role: actual, content } = message as { role?: unknown; content?: unknown };
  if (actual !== role || !Array.isArray(content)) return [];
  return content.filter((part): part is Part => typeof part === "object" && part !== null);
}

/**
 * Why the SDK's approval of call `toolCallId` does not approve exactly one call the host was
 * shown, or `undefined` when it does. The AI SDK keys approvals by call id: when one model message
 * carries the id twice, it shows the host the last call's input and, once approved, runs the call
 * its own lookup finds, which may be the other one; and an answer to an older request that carried
 * the same id (providers that number calls per response reuse `call_0`) runs the newest call. So
 * the call is run only when the newest message holding its id holds it once, and every approval
 * answered for the id was asked in that message. `messages` the SDK did not give (a host calling
 * `execute` itself) are not checked.
 */
export function approvalMismatch(messages: unknown, toolCallId: string): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  let holder = -1;
  for (let index = messages.length - 1; index >= 0 && holder < 0; index--) {
    if (partsOf(messages[index], "assistant").some((part) => part.type === "tool-call" && part.toolCallId === toolCallId)) {
      holder = index;
    }
  }
  if (holder < 0) return undefined;
  const calls = partsOf(messages[holder], "assistant").filter(
    (part) => part.type === "tool-call" && part.toolCallId === toolCallId,
  ).length;
  if (calls > 1) return `one model message holds ${calls} tool calls with this id, so the approval cannot say which it approved`;
  const askedIn = new Map<unknown, number>();
  messages.forEach((message, index) => {
    for (const part of partsOf(message, "assistant")) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) askedIn.set(part.approvalId, index);
    }
  });
  for (const part of partsOf(messages.at(-1), "tool")) {
    if (part.type !== "tool-approval-response" || !askedIn.has(part.approvalId)) continue;
    if (askedIn.get(part.approvalId) !== holder) {
      return "the approval answered was asked for an earlier call with the same id, not for this one";
    }
  }
  return undefined;
}

/** The answer to an approved call {@link approvalMismatch} refused: it did not run. */
export function mismatchedApprovalResult(name: string, toolCallId: string, why: string): ToolCallResult {
  return {
    ok: false,
    tool: name,
    callId: toolCallId,
    error: {
      code: "approval_denied",
      message: `The call "${toolCallId.slice(0, 200)}" of "${name}" was not run: ${why}. Nothing was done.`,
      hint: "Call the tool again with an id of its own; it will be shown for approval again.",
    },
  };
}
