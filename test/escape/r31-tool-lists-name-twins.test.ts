/**
 * Red team round 31: a model (through each adapter's batch runner) calls a tool by a twin of its
 * name: other case, fullwidth letters, a zero-width or soft hyphen inside, a trailing space, a
 * Cyrillic look-alike letter, an accent on a plain name (composed and combining). The host's lists fold names (`disabledTools`
 * denies every spelling that folds alike; `allowedTools` folds MCP names), so a lookup that folded
 * too would reach a tool by a name the host never allowed, or a turned-off tool by a spelling the
 * list does not hold. Here `allowedTools` allows `notes` and `cafe` only, `disabledTools` turns
 * `wipe` off, and every run of a tool is counted. Held when no twin runs anything: each is answered
 * under its own call id as an unknown tool (no approval asked). Controls: the exact `notes` and
 * `cafe` run, `wipe` is refused as turned off (`tool_disabled`) and `hidden` (registered, not allowed) as not allowed.
 */
import { createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

const TWINS = [
  "NOTES",
  "Notes",
  "\uff4e\uff4f\uff54\uff45\uff53",
  "no\u200btes",
  "no\u00adtes",
  "notes ",
  "n\u043etes",
  "cafe\u0301",
  "caf\u00e9",
  "CAFE",
  "WIPE",
  "wipe\u200b",
  "HIDDEN",
];
const EXACT = ["notes", "cafe", "wipe", "hidden"];

type Call = { readonly id: string; readonly name: string };
type Adapter = (run: Run, calls: readonly Call[]) => Promise<{ id: string; text: string }[]>;

const adapters: readonly (readonly [string, Adapter])[] = [
  [
    "Anthropic",
    async (run, calls) =>
      (
        await runAnthropicToolUses(
          run,
          calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: {} })),
        )
      ).map((block) => ({ id: block.tool_use_id, text: JSON.stringify(block.content) })),
  ],
  [
    "OpenAI chat",
    async (run, calls) =>
      (
        await runOpenAIChatToolCalls(
          run,
          calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: "{}" } })),
        )
      ).map((message) => ({
        id: "tool_call_id" in message ? message.tool_call_id : "(a user message)",
        text: JSON.stringify(message.content),
      })),
  ],
  [
    "OpenAI Responses",
    async (run, calls) =>
      (
        await runOpenAIResponsesFunctionCalls(
          run,
          calls.map((call) => ({ type: "function_call", call_id: call.id, name: call.name, arguments: "{}" })),
        )
      ).map((item) => ({ id: item.call_id, text: JSON.stringify(item.output) })),
  ],
];

function harness() {
  const ran: string[] = [];
  const asked: string[] = [];
  const tool = (name: string) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      mutating: true,
      inputSchema: z.object({}),
      handler: () => {
        ran.push(name);
        return `ran ${name}`;
      },
    });
  const registry = createRegistry({ tools: ["notes", "cafe", "wipe", "hidden"].map(tool) });
  registry.events.on("approval.requested", (request) => {
    asked.push(request.toolName);
    registry.approvals.approve(request.id);
  });
  const run = registry.createRun({
    permissions: { sandbox: "unrestricted", approval: "all" },
    allowedTools: ["notes", "cafe", "wipe"],
    disabledTools: ["wipe"],
  });
  return { run, ran, asked, close: () => registry.close() };
}

describe("escape attempts: round 31, tool names that are twins of an allowed or turned-off one", () => {
  for (const [name, adapter] of adapters) {
    escapeAttempt("tool-lists", `${name}: calls named by case, width, invisible-character and script twins`, async () => {
      const attack = harness();
      try {
        const calls = TWINS.map((twin, index) => ({ id: `call_${index}`, name: twin }));
        const answers = await adapter(attack.run, calls);
        expect(answers.map((answer) => answer.id)).toEqual(calls.map((call) => call.id));
        expect(attack.ran).toEqual([]);
        expect(attack.asked).toEqual([]);
        for (const answer of answers) expect(answer.text, answer.id).toContain("unknown_tool");
        // Control: the exact names: the allowed ones run (approved), the turned-off one is refused.
        const exact = await adapter(
          attack.run,
          EXACT.map((exactName, index) => ({ id: `exact_${index}`, name: exactName })),
        );
        expect(attack.ran).toEqual(["notes", "cafe"]);
        expect(exact[2]?.text).toContain("tool_disabled");
        expect(exact[3]?.text).toContain("tool_not_allowed");
      } finally {
        await attack.close();
      }
    });
  }
});
