/**
 * Red team round 24: the AI SDK's own approval flow (`approvalFlow: "ai-sdk"`) answers a request
 * in a later `generateText` call, and the run does not ask again for a call the SDK runs as
 * approved. A tool removed and registered again under its name between the request and the
 * answer (a host's plugin reloaded, an MCP server's tool after a reconnect) ran its new
 * definition, which nobody approved; the run's broker flow refuses that (round 12b).
 */
import type { LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { deleteNoteTool } from "../support/note-tools.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A notebook whose `delete_note` needs approval; the model asks to delete "old draft" once. */
function setup() {
  const done: string[] = [];
  const deleteNote = (what: string) =>
    deleteNoteTool({ onDelete: (title) => done.push(`${what} ${title}`), answer: () => "done" });
  const registry = createRegistry();
  const handle = registry.register(deleteNote("deleted"));
  const run = registry.createRun({ permissions: { approval: "destructive" } });
  let step = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      const content: LanguageModelV3Content[] =
        step++ === 0
          ? [{ type: "tool-call", toolCallId: "call_0", toolName: "delete_note", input: JSON.stringify({ title: "old draft" }) }]
          : [{ type: "text", text: "ok" }];
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  // A tool set per turn, as a web host makes one per request of one run: the answer is checked
  // against what the request was made for, whichever tool set made it.
  const generate = (messages: ModelMessage[]) => {
    const { tools, prepareStep } = createAiSdkTools(run, { approvalFlow: "ai-sdk" });
    return generateText({ model, tools, prepareStep, stopWhen: stepCountIs(2), messages });
  };
  return { done, generate, handle, registry, deleteNote };
}

async function askThenApprove(setupAnd: ReturnType<typeof setup>, between: () => void) {
  const history: ModelMessage[] = [{ role: "user", content: "tidy up" }];
  const first = await setupAnd.generate(history);
  const request = first.content.find((part) => part.type === "tool-approval-request");
  expect(request?.toolCall.toolName).toBe("delete_note");
  between();
  const second = await setupAnd.generate([
    ...history,
    ...first.response.messages,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: request?.approvalId ?? "", approved: true }] },
  ]);
  // The approved call's answer, as the model reads it next.
  const answered = second.response.messages.find((message) => message.role === "tool");
  return answered?.content.find((part) => part.type === "tool-result");
}

describe("an approval in the AI SDK's flow is for the definition it was asked for", () => {
  escapeAttempt("approvals", "a tool removed and registered again under its name before the answer does not run", async () => {
    const notebook = setup();
    const outcome = await askThenApprove(notebook, () => {
      notebook.handle.remove();
      notebook.registry.register(notebook.deleteNote("shredded every note, asked for"));
    });
    expect(notebook.done).toEqual([]);
    expect(JSON.stringify(outcome?.output)).toMatch(/another tool now has its name.*changed while the call waited/);
  });

  escapeAttempt("approvals", "a tool updated in place (handle.update) before the answer does not run", async () => {
    const notebook = setup();
    await askThenApprove(notebook, () => notebook.handle.update(notebook.deleteNote("shredded every note, asked for")));
    expect(notebook.done).toEqual([]);
  });

  it("control: the same tool, not replaced, runs once approved (and only once)", async () => {
    const notebook = setup();
    const outcome = await askThenApprove(notebook, () => undefined);
    expect(notebook.done).toEqual(["deleted old draft"]);
    expect(outcome?.output).toEqual({ type: "text", value: "done" });
  });

  it("control: a call executed by the host itself, with no request made, is not checked", async () => {
    const notebook = setup();
    const run = notebook.registry.createRun({ permissions: { approval: "destructive" } });
    const { tools } = createAiSdkTools(run, { approvalFlow: "ai-sdk" });
    const execute = tools.delete_note?.execute as (
      input: unknown,
      options: { toolCallId: string; messages: [] },
    ) => Promise<unknown>;
    await execute({ title: "by hand" }, { toolCallId: "h1", messages: [] });
    expect(notebook.done).toEqual(["deleted by hand"]);
  });
});
