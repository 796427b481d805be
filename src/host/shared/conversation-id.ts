import type { ToolContext } from "agent-tool-catalog";

/**
 * The `createRun({ context })` key that names the conversation a run belongs to. Cron jobs,
 * delayed callbacks, subagents and workflow runs belong to a conversation, which outlives one
 * run when a host resumes it in a new run; a host that does so sets this key.
 * @public
 */
export const CONVERSATION_ID_CONTEXT_KEY = "conversationId";

/**
 * The conversation of a call: `hostContext.conversationId` when it is a non-empty string, else the run's id.
 *
 * @public
 */
export function conversationIdOf(context: ToolContext): string {
  const value = context.hostContext[CONVERSATION_ID_CONTEXT_KEY];
  return typeof value === "string" && value !== "" ? value : context.runId;
}
