import type { Run, ToolDescriptor } from "agent-tool-catalog";
import { partsOf } from "./approved-call-check.js";

/**
 * How many requested calls a run remembers the definition of. Requests nobody answers would
 * otherwise be kept for the run's life; past the bound the oldest is forgotten, and its call,
 * if approved later, runs unchecked, as one approved in another process does.
 */
const MAX_NOTED_REQUESTS = 1_000;

/**
 * The definition each call waiting for the SDK's approval was shown with, per run (not per tool
 * set: a host may make a new tool set for each turn of one run), by tool name and call id.
 */
const requested = new WeakMap<Run, Map<string, ToolDescriptor>>();

const keyOf = (name: string, toolCallId: string) => `${name}\u0000${toolCallId}`;

/**
 * True when `messages` answers a request for `toolCallId`: the SDK calls `needsApproval` again for
 * an approved call before running it, and that call must not note the definition in force then.
 */
function answersRequestFor(messages: unknown, toolCallId: string): boolean {
  if (!Array.isArray(messages)) return false;
  const asked = new Set<unknown>();
  for (const message of messages) {
    for (const part of partsOf(message, "assistant")) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) asked.add(part.approvalId);
    }
  }
  return partsOf(messages.at(-1), "tool").some((part) => part.type === "tool-approval-response" && asked.has(part.approvalId));
}

/**
 * Notes the registry's definition of `name` as the SDK asks for approval of call `toolCallId`:
 * the approval is for that definition. A tool removed and registered again under its name (a
 * host's own, an MCP server's after a reconnect) before the answer is then refused at `execute`,
 * as the broker flow refuses a tool replaced while its call waited.
 */
export function noteRequestedTool(run: Run, name: string, toolCallId: string, messages: unknown): void {
  if (answersRequestFor(messages, toolCallId)) return;
  const descriptor = run.availableTools().find((candidate) => candidate.name === name);
  let noted = requested.get(run);
  if (noted === undefined) {
    noted = new Map();
    requested.set(run, noted);
  }
  const key = keyOf(name, toolCallId);
  // Deleted first so a newer request of a reused id (`call_0`) counts as the newest.
  noted.delete(key);
  // A tool gone when asked is refused by the run itself; nothing to note.
  if (descriptor === undefined) return;
  noted.set(key, descriptor);
  if (noted.size > MAX_NOTED_REQUESTS) {
    for (const oldest of noted.keys()) {
      noted.delete(oldest);
      break;
    }
  }
}

/**
 * The call option binding an approved call to the definition its request was made for, taken
 * once: `{ approvedTool }`, or nothing when this process did not see the request (answered in
 * another process, or forgotten past the bound).
 */
export function requestedToolOption(run: Run, name: string, toolCallId: string): { approvedTool?: ToolDescriptor } {
  const noted = requested.get(run);
  const key = keyOf(name, toolCallId);
  const descriptor = noted?.get(key);
  if (descriptor === undefined) return {};
  noted?.delete(key);
  return { approvedTool: descriptor };
}
