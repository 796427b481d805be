/**
 * Red team round 23: the AI SDK's own approval flow (`approvalFlow: "ai-sdk"`) keys approvals by
 * provider call id. The run does not ask again for a call the SDK says was approved, so the call
 * that runs must be exactly the one the host was shown. A model that gives two calls one id in one
 * message, or a provider that reuses `call_0` every turn while the host answers an older request,
 * must not get a call run that nobody saw.
 */
import type { LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

const call = (id: string, name: string, input: unknown): LanguageModelV3Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName: name,
  input: JSON.stringify(input),
});

/** A notebook whose two tools need approval, and a model that plays `turns` in order, then stops. */
function setup(turns: LanguageModelV3Content[][]) {
  const done: string[] = [];
  const mutating = (name: string) =>
    defineTool({
      name,
      description: `${name} a note.`,
      mutating: true,
      inputSchema: z.object({ title: z.string() }),
      handler: ({ title }) => {
        done.push(`${name} ${title}`);
        return `${name} ${title}: done`;
      },
    });
  const registry = createRegistry({ tools: [mutating("delete_note"), mutating("archive_note")] });
  const run = registry.createRun({ permissions: { approval: "destructive" } });
  let step = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      const content = turns[step++] ?? [{ type: "text", text: "ok" }];
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const { tools, prepareStep } = createAiSdkTools(run, { approvalFlow: "ai-sdk" });
  const generate = (messages: ModelMessage[]) => generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), messages });
  return { done, generate };
}

/** What the host is shown: each request's tool and input. */
function shown(result: Awaited<ReturnType<ReturnType<typeof setup>["generate"]>>) {
  return result.content.flatMap((part) =>
    part.type === "tool-approval-request"
      ? [{ approvalId: part.approvalId, call: `${part.toolCall.toolName} ${(part.toolCall.input as { title: string }).title}` }]
      : [],
  );
}

function answer(approvals: readonly { approvalId: string; approved: boolean }[]): ModelMessage {
  return { role: "tool", content: approvals.map((a) => ({ type: "tool-approval-response" as const, ...a })) };
}

describe("approvals in the AI SDK's flow approve exactly the call shown", () => {
  const orders: [string, LanguageModelV3Content[]][] = [
    [
      "same tool, the unseen call first",
      [call("X", "delete_note", { title: "thesis" }), call("X", "delete_note", { title: "old draft" })],
    ],
    [
      "same tool, the unseen call last",
      [call("X", "delete_note", { title: "old draft" }), call("X", "delete_note", { title: "thesis" })],
    ],
    ["two tools", [call("X", "delete_note", { title: "thesis" }), call("X", "archive_note", { title: "old draft" })]],
  ];
  for (const [label, calls] of orders) {
    escapeAttempt(
      "approvals",
      `one message with two calls of one id (${label}): approving what is shown runs nothing unseen`,
      async () => {
        const { done, generate } = setup([calls]);
        const history: ModelMessage[] = [{ role: "user", content: "tidy up" }];
        const first = await generate(history);
        const requests = shown(first);
        expect(requests.length).toBeGreaterThan(0);
        expect(done).toEqual([]);
        await generate([
          ...history,
          ...first.response.messages,
          answer(requests.map((r) => ({ approvalId: r.approvalId, approved: true }))),
        ]);
        // Whatever ran was shown; here nothing runs, since the approval cannot name one of the two.
        for (const ran of done) expect(requests.map((r) => r.call)).toContain(ran);
        expect(done).toEqual([]);
      },
    );
  }

  escapeAttempt(
    "approvals",
    "a provider reusing call_0: an answer to the older request does not run the newer call",
    async () => {
      const { done, generate } = setup([
        [call("call_0", "delete_note", { title: "old draft" })],
        [{ type: "text", text: "ok" }],
        [call("call_0", "delete_note", { title: "thesis" })],
      ]);
      const history: ModelMessage[] = [{ role: "user", content: "tidy up" }];
      const first = await generate(history);
      const [old] = shown(first);
      expect(old?.call).toBe("delete_note old draft");
      const second = await generate([
        ...history,
        ...first.response.messages,
        answer([{ approvalId: old?.approvalId ?? "", approved: true }]),
      ]);
      expect(done).toEqual(["delete_note old draft"]); // control: the answered request ran
      const turn2: ModelMessage[] = [
        ...history,
        ...first.response.messages,
        ...second.response.messages,
        { role: "user", content: "and the thesis?" },
      ];
      const third = await generate(turn2);
      expect(shown(third).map((r) => r.call)).toEqual(["delete_note thesis"]);
      // A host that answers again with the approval it stored for the first request.
      await generate([...turn2, ...third.response.messages, answer([{ approvalId: old?.approvalId ?? "", approved: true }])]);
      expect(done).toEqual(["delete_note old draft"]);
    },
  );

  it("control: distinct ids, and call_0 reused with the newest request answered, run what was approved", async () => {
    const { done, generate } = setup([
      [call("a", "delete_note", { title: "old draft" }), call("b", "archive_note", { title: "thesis" })],
      [{ type: "text", text: "ok" }],
      [call("a", "delete_note", { title: "notes" })],
    ]);
    const history: ModelMessage[] = [{ role: "user", content: "tidy up" }];
    const first = await generate(history);
    const requests = shown(first);
    expect(requests.map((r) => r.call).sort()).toEqual(["archive_note thesis", "delete_note old draft"]);
    const second = await generate([
      ...history,
      ...first.response.messages,
      answer(requests.map((r) => ({ approvalId: r.approvalId, approved: r.call.startsWith("delete") }))),
    ]);
    expect(done).toEqual(["delete_note old draft"]);
    const turn2: ModelMessage[] = [
      ...history,
      ...first.response.messages,
      ...second.response.messages,
      { role: "user", content: "more" },
    ];
    const third = await generate(turn2);
    const [newest] = shown(third);
    await generate([...turn2, ...third.response.messages, answer([{ approvalId: newest?.approvalId ?? "", approved: true }])]);
    expect(done).toEqual(["delete_note old draft", "delete_note notes"]);
  });
});
