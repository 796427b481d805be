/**
 * Red team round 14: a Messages API response that stops at `max_tokens` while writing a tool call
 * (`stop_reason: "max_tokens"`, the last block a `tool_use` whose input was cut). anthropicToolLoop
 * returned that conversation with the `tool_use` unanswered, so the host's next request (or
 * continuing it with a user message) was refused by the API ("tool_use ids were found without
 * tool_result blocks immediately after"), and complete calls of the same turn were never run.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { anthropicToolLoop } from "agent-tool-catalog/anthropic";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function message(content: unknown[], stopReason: string): Anthropic.Messages.Message {
  return {
    id: `msg_${stopReason}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 10 },
  } as unknown as Anthropic.Messages.Message;
}

/** The real client, over a fetch that replays `responses` and records the request bodies. */
function client(responses: Anthropic.Messages.Message[]) {
  const bodies: Anthropic.Messages.MessageCreateParamsNonStreaming[] = [];
  const anthropic = new Anthropic({
    apiKey: "test-key",
    maxRetries: 0,
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)) as Anthropic.Messages.MessageCreateParamsNonStreaming);
      const body = responses[bodies.length - 1];
      if (body === undefined) throw new Error("unexpected request");
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  return { anthropic, bodies };
}

function catalog() {
  const written: string[] = [];
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "write_note",
        description: "Write a note.",
        inputSchema: z.object({ title: z.string(), body: z.string() }),
        handler: ({ title }) => {
          written.push(title);
          return "saved";
        },
      }),
    ],
  });
  return { run: registry.createRun(), written };
}

/** Every tool_use of an assistant message is answered by a tool_result in the next message. */
function expectEveryToolUseAnswered(messages: readonly Anthropic.Messages.MessageParam[]): void {
  messages.forEach((entry, index) => {
    if (entry.role !== "assistant" || !Array.isArray(entry.content)) return;
    const ids = entry.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
    if (ids.length === 0) return;
    const next = messages[index + 1];
    const answered = Array.isArray(next?.content)
      ? next.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))
      : [];
    expect(answered, `message ${index}`).toEqual(ids);
  });
}

describe("anthropicToolLoop: a tool call cut off at max_tokens", () => {
  it("runs the complete calls, answers the cut one with invalid_input (not run), and asks again", async () => {
    const { run, written } = catalog();
    const { anthropic, bodies } = client([
      message(
        [
          { type: "text", text: "Saving both notes." },
          { type: "tool_use", id: "toolu_done", name: "write_note", input: { title: "first", body: "short" } },
          // The API stopped mid-input: what it returns for the block is not the call the model meant.
          { type: "tool_use", id: "toolu_cut", name: "write_note", input: { title: "second" } },
        ],
        "max_tokens",
      ),
      message([{ type: "text", text: "I will write the second note in parts." }], "end_turn"),
    ]);
    const result = await anthropicToolLoop(run, {
      client: anthropic,
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "save" }],
    });
    expect(result.stopReason).toBe("end_turn");
    expect(bodies).toHaveLength(2);
    const conversation: Anthropic.Messages.MessageParam[] = result.messages;
    expectEveryToolUseAnswered(conversation);
    const results = conversation[2]?.content as Anthropic.Messages.ToolResultBlockParam[];
    expect(results[0]).toMatchObject({ tool_use_id: "toolu_done", content: "saved" });
    expect(results[0]?.is_error).toBeUndefined();
    expect(results[1]).toMatchObject({ tool_use_id: "toolu_cut", is_error: true });
    expect(String(results[1]?.content)).toContain("max_tokens");
    expect(String(results[1]?.content)).toContain("invalid_input");
    // The cut call never ran, even though its partial input would have been... partly valid.
    expect(written).toEqual(["first"]);
  });

  it("positive control: max_tokens in plain text still ends the loop as before", async () => {
    const { run } = catalog();
    const { anthropic, bodies } = client([message([{ type: "text", text: "A long answer that" }], "max_tokens")]);
    const result = await anthropicToolLoop(run, { client: anthropic, model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(result.stopReason).toBe("max_tokens");
    expect(bodies).toHaveLength(1);
  });

  it("at maxTurns the cut call is still answered, so the conversation can go on", async () => {
    const { run, written } = catalog();
    const { anthropic } = client([message([{ type: "tool_use", id: "toolu_cut", name: "write_note", input: {} }], "max_tokens")]);
    const result = await anthropicToolLoop(run, {
      client: anthropic,
      model: "m",
      messages: [{ role: "user", content: "save" }],
      maxTurns: 1,
    });
    expect(result.stopReason).toBe("max_turns");
    expectEveryToolUseAnswered(result.messages);
    expect(written).toEqual([]);
  });
});
