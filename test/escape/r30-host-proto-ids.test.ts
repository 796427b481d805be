/**
 * Red team round 30: a hostile host (or the provider response it passes on) gives the adapters'
 * batch runners tool calls whose ids are `Object.prototype`'s own names (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`, `valueOf`), tool names alike, and arguments whose
 * JSON holds an own `__proto__` key. Under `approval: "all"` an approver approves exactly one call,
 * by its id; an id that met a plain object used as a map (`approved[id]`, `results[id] = ...`)
 * would find an inherited function there (truthy: approved), or set a prototype instead of a key.
 * Each adapter (Anthropic, OpenAI chat, OpenAI Responses) must answer every call once under its
 * own id, run only the approved one, with its own arguments, and leave `Object.prototype` as it
 * was. Control: the same batch with every call approved runs every call, each with its own text.
 */
import { createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

const IDS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "call_ok"] as const;
const APPROVED = "call_ok";

/** Arguments as a provider sends them: JSON text with an own `__proto__` key beside `text`. */
const argumentsOf = (id: string) => `{"__proto__":{"polluted":"${id}","approved":true},"text":"from ${id}"}`;

interface Harness {
  readonly run: Run;
  /** The texts the tool ran with, in order. */
  readonly ran: string[];
  /** The call ids approval was asked for. */
  readonly asked: string[];
  close(): Promise<void>;
}

function harness(approve: (callId: string) => boolean): Harness {
  const ran: string[] = [];
  const asked: string[] = [];
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "note",
        description: "Writes a note.",
        mutating: true,
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => {
          ran.push(text);
          return `wrote ${text}`;
        },
      }),
    ],
  });
  registry.events.on("approval.requested", (request) => {
    asked.push(request.callId);
    if (approve(request.callId)) registry.approvals.approve(request.id);
    else registry.approvals.deny(request.id, "not this call");
  });
  const run = registry.createRun({ permissions: { sandbox: "unrestricted", approval: "all" } });
  return { run, ran, asked, close: () => registry.close() };
}

type Adapter = (run: Run) => Promise<{ id: string; text: string; error: boolean }[]>;

const adapters: readonly (readonly [string, Adapter])[] = [
  [
    "Anthropic",
    async (run) =>
      (
        await runAnthropicToolUses(
          run,
          IDS.map((id) => ({ type: "tool_use", id, name: "note", input: JSON.parse(argumentsOf(id)) })),
        )
      ).map((block) => ({ id: block.tool_use_id, text: JSON.stringify(block.content), error: block.is_error === true })),
  ],
  [
    "OpenAI chat",
    async (run) =>
      (
        await runOpenAIChatToolCalls(
          run,
          IDS.map((id) => ({ id, type: "function", function: { name: "note", arguments: argumentsOf(id) } })),
        )
      ).map((message) => ({
        id: "tool_call_id" in message ? message.tool_call_id : "(a user message)",
        text: JSON.stringify(message.content),
        error: /"ok":false|approval_denied/.test(JSON.stringify(message.content)),
      })),
  ],
  [
    "OpenAI Responses",
    async (run) =>
      (
        await runOpenAIResponsesFunctionCalls(
          run,
          IDS.map((id) => ({ type: "function_call", call_id: id, name: "note", arguments: argumentsOf(id) })),
        )
      ).map((item) => ({
        id: item.call_id,
        text: JSON.stringify(item.output),
        error: /approval_denied/.test(JSON.stringify(item.output)),
      })),
  ],
];

function prototypeUntouched(): void {
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(probe.approved).toBeUndefined();
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
}

describe("escape attempts: round 30, call ids named like Object.prototype's members", () => {
  for (const [name, adapter] of adapters) {
    escapeAttempt("approvals", `${name}: calls with ids __proto__, constructor, toString... approved by id`, async () => {
      const attack = harness((callId) => callId === APPROVED);
      try {
        const answers = await adapter(attack.run);
        // One answer per call, under its own id, in order.
        expect(answers.map((answer) => answer.id)).toEqual([...IDS]);
        // Only the approved call ran, with its own text (not another call's, not a prototype's).
        expect(attack.ran).toEqual([`from ${APPROVED}`]);
        expect(attack.asked).toEqual([...IDS]);
        for (const answer of answers) {
          expect(answer.error, `${answer.id}: ${answer.text}`).toBe(answer.id !== APPROVED);
          if (answer.id === APPROVED) expect(answer.text).toContain(`wrote from ${APPROVED}`);
          else expect(answer.text).toContain("approval_denied");
        }
        prototypeUntouched();
      } finally {
        await attack.close();
      }
      // Control: every call approved, every call runs with its own text.
      const control = harness(() => true);
      try {
        const answers = await adapter(control.run);
        expect(control.ran).toEqual(IDS.map((id) => `from ${id}`));
        for (const answer of answers) expect(answer.text).toContain(`wrote from ${answer.id}`);
        prototypeUntouched();
      } finally {
        await control.close();
      }
    });
  }
});
