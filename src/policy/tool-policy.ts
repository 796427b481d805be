import { ToolError } from "../errors/tool-error.js";
import { compileTool } from "../tool/compile-tool.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";
import type { ToolContext } from "../tool/tool-context.js";
import type { AnyToolDefinition } from "../tool/tool-definition.js";
import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import type { ApprovalBroker } from "./approval-broker.js";
import { awaitApproval } from "./await-approval.js";
import { frozenEventCopy } from "./frozen-event-copy.js";
import { handlerInputCopy } from "./handler-input-copy.js";
import type { ApprovalPolicy, ResolvedPermissionConfig } from "./permission-config.js";

/**
 * What the policy of a run needs: its permissions and where approvals are asked.
 *
 * @public
 */
export interface ToolPolicy {
  /** The run's permissions. */
  readonly permissions: ResolvedPermissionConfig;
  /** Where approval requests wait. */
  readonly approvals: ApprovalBroker;
  /** How long one request waits before it is denied; the broker's default when absent. */
  readonly approvalTimeoutMs?: number | undefined;
}

/**
 * Which policy asks for approval of a call of `tool`, or `undefined` when none does.
 *
 * @public
 */
export function approvalRequiredBy(
  approval: ApprovalPolicy,
  tool: Pick<ToolDescriptor, "mutating">,
): "destructive" | "all" | undefined {
  if (approval === "all") return "all";
  if (approval === "destructive" && tool.mutating) return "destructive";
  return undefined;
}

/** One call to authorize. */
export interface CallToAuthorize {
  readonly runId: string;
  readonly callId: string;
  readonly tool: ToolDescriptor;
  readonly input: unknown;
  readonly signal: AbortSignal;
}

/**
 * Asks for approval when the run's policy requires it. Resolves to `undefined` when the call may
 * run, or to the error the model gets (`approval_denied`, `aborted`): the call then does nothing.
 * The broker gets a frozen copy of the input (`frozenEventCopy`), never `call.input` itself: an
 * `approval.requested` listener that rewrote the shared object in place changed what the broker
 * listed and what later listeners (the approval page) showed, while the handler ran its own copy
 * of the original, so a person approved a call other than the one that ran (round 44).
 */
export async function authorizeCall(policy: ToolPolicy, call: CallToAuthorize): Promise<ToolCallErrorInfo | undefined> {
  const requiredBy = approvalRequiredBy(policy.permissions.approval, call.tool);
  if (requiredBy === undefined) return undefined;
  const outcome = await awaitApproval(
    () =>
      policy.approvals.request(
        {
          runId: call.runId,
          callId: call.callId,
          toolName: call.tool.name,
          input: frozenEventCopy(call.input),
          mutating: call.tool.mutating,
          policy: requiredBy,
        },
        policy.approvalTimeoutMs === undefined
          ? { signal: call.signal }
          : { signal: call.signal, timeoutMs: policy.approvalTimeoutMs },
      ),
    call.signal,
    policy.approvalTimeoutMs,
  );
  if (outcome.kind === "aborted")
    return { code: "aborted", message: `The call to "${call.tool.name}" was cancelled while waiting for approval.` };
  if (outcome.kind === "timed_out") {
    return {
      code: "approval_denied",
      message: `The call to "${call.tool.name}" was not approved: nobody answered in time. Nothing was done.`,
      hint: "Do not repeat the same call. Ask the user how to proceed, or take another approach.",
    };
  }
  const { resolution } = outcome;
  if (resolution.decision === "approved") return undefined;
  if (resolution.resolvedBy === "abort")
    return { code: "aborted", message: `The call to "${call.tool.name}" was cancelled while waiting for approval.` };
  return {
    code: "approval_denied",
    message: `The call to "${call.tool.name}" was not approved: ${resolution.reason ?? "denied"}. Nothing was done.`,
    hint: "Do not repeat the same call. Ask the user how to proceed, or take another approach.",
  };
}

/**
 * Wraps a tool's handler in a policy, for hosts that call handlers outside a run. (Runs apply
 * their own policy to every call already, built-in, MCP and host tools alike.) A denied call
 * throws a `ToolError` with code `approval_denied` and never reaches the handler.
 * @public
 */
export function applyPolicy<Tool extends AnyToolDefinition>(tool: Tool, policy: ToolPolicy): Tool {
  const { descriptor } = compileTool(tool);
  const wrapped = {
    ...tool,
    handler: async (input: unknown, context: ToolContext) => {
      // Taken before the wait: the broker gets a frozen copy of its own (authorizeCall), and the
      // handler runs what was approved even if the caller's object changes while a person decides.
      const own = handlerInputCopy(input);
      const refusal = await authorizeCall(policy, {
        runId: context.runId,
        callId: context.callId,
        tool: descriptor,
        input,
        signal: context.signal,
      });
      if (refusal !== undefined) {
        throw new ToolError(refusal.code, refusal.message, refusal.hint === undefined ? {} : { hint: refusal.hint });
      }
      return tool.handler(own, context);
    },
  };
  return Object.freeze(wrapped) as unknown as Tool;
}
