/**
 * Red team round 13: a native handler whose result has 100,000 text parts. Each part was condensed
 * alone (`condenseThreshold`), never their total, so every part reached the model (an MCP result
 * is merged and capped first; a native one was not). The text of a result's parts now stays within
 * `condenseThreshold` in all; what is dropped is counted in a closing line.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { createRegistry, defineTool, type Run, toolContent } from "agent-tool-catalog";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PNG } from "../adapters/adapter-fixtures.js";

const LIMIT = 40_000;

const SMALL_USE = [{ type: "tool_use", id: "toolu_1", name: "small", input: {}, caller: { type: "direct" } }] as const;
const SMALL_CALL: OpenAI.Responses.ResponseFunctionToolCall = {
  type: "function_call",
  call_id: "c1",
  name: "small",
  arguments: "{}",
};

type Part = { type: string; text?: string };

function run(): Run {
  const many = (count: number, text: (i: number) => string) => () =>
    toolContent(Array.from({ length: count }, (_, i) => ({ type: "text" as const, text: text(i) })));
  return createRegistry({
    tools: [
      defineTool({
        name: "small",
        description: "Small parts.",
        inputSchema: z.object({}),
        handler: many(100_000, (i) => `line ${i}`),
      }),
      defineTool({
        name: "medium",
        description: "Medium parts.",
        inputSchema: z.object({}),
        handler: many(400, (i) => `part ${i} `.padEnd(5_000, "x")),
      }),
      defineTool({ name: "empty", description: "Empty parts.", inputSchema: z.object({}), handler: many(100_000, () => "") }),
      defineTool({
        name: "broken_images",
        description: "Images that are not base64.",
        inputSchema: z.object({}),
        handler: () =>
          toolContent(
            Array.from({ length: 100_000 }, () => ({ type: "image" as const, data: "not base64!", mediaType: "image/png" })),
          ),
      }),
      defineTool({
        name: "few",
        description: "A few parts.",
        inputSchema: z.object({}),
        handler: () =>
          toolContent([
            { type: "text", text: "first" },
            { type: "image", data: PNG, mediaType: "image/png" },
            { type: "text", text: "second ".repeat(1_000) },
            { type: "text", text: "third" },
          ]),
      }),
      defineTool({
        name: "one_long",
        description: "One long part beside short ones.",
        inputSchema: z.object({}),
        handler: () =>
          toolContent([
            { type: "text", text: "head" },
            { type: "text", text: "y".repeat(39_000) },
            { type: "text", text: "z".repeat(10_000) },
            { type: "text", text: "tail" },
          ]),
      }),
    ],
  }).createRun();
}

function textOf(result: unknown): { parts: Part[]; total: number } {
  const parts = ((result as { content?: Part[] }).content ?? []) as Part[];
  return { parts, total: parts.reduce((sum, part) => sum + (part.text?.length ?? 0), 0) };
}

describe("a native result with many text parts", () => {
  it("of 100,000 small parts reaches the model with text under the limit, in order, and a line counting the rest", async () => {
    const result = await run().call("small", {});
    expect(result).toMatchObject({ ok: true });
    const { parts, total } = textOf(result);
    expect(total).toBeLessThanOrEqual(LIMIT);
    expect(parts.length).toBeLessThan(2_000);
    expect(parts[0]?.text).toBe("line 0");
    expect(parts[1]?.text).toBe("line 1");
    expect(parts.at(-1)?.text).toMatch(
      /^\[\d+ more text parts \(\d+ characters\) omitted: a result's text may total at most 40000 characters\]$/,
    );
    expect(JSON.stringify(result).length).toBeLessThan(3 * LIMIT);
  });

  it("of 400 medium parts (5,000 characters each) stays under the limit, each kept part condensed head and tail", async () => {
    const result = await run().call("medium", {});
    const { parts, total } = textOf(result);
    expect(total).toBeLessThanOrEqual(LIMIT);
    expect(parts[0]?.text).toMatch(
      /^part 0 x+\n\[\.\.\. \d+ characters \(0 lines\) omitted; showing the first \d+ and the last \d+ characters \.\.\.\]\nx+$/,
    );
    expect(parts.at(-1)?.text).toMatch(/more text parts \(\d+ characters\) omitted/);
  });

  it("of 100,000 empty parts: each part costs its wrapper, so they are bounded too", async () => {
    const result = await run().call("empty", {});
    const { parts } = textOf(result);
    expect(parts.length).toBeLessThan(LIMIT / 30);
    expect(parts.at(-1)?.text).toMatch(/more text parts \(0 characters\) omitted/);
  });

  it("of 100,000 images that are not base64: the lines saying so are held to the same budget", async () => {
    const { parts, total } = textOf(await run().call("broken_images", {}));
    expect(total).toBeLessThanOrEqual(LIMIT);
    expect(parts[0]?.text).toBe("[image omitted: its data is not base64 with a media type]");
    expect(parts.at(-1)?.text).toMatch(/more text parts \(\d+ characters\) omitted/);
  });

  it("cuts one long part beside short ones and keeps the short ones whole", async () => {
    const { parts, total } = textOf(await run().call("one_long", {}));
    expect(total).toBeLessThanOrEqual(LIMIT);
    expect(parts.map((part) => part.text?.slice(0, 4))).toEqual(["head", "yyyy", "zzzz", "tail"]);
    expect([parts[0]?.text, parts[3]?.text]).toEqual(["head", "tail"]);
    expect(parts[1]?.text).toContain("omitted");
  });

  it("positive control: a few parts under the limit arrive unchanged, in order", async () => {
    const result = await run().call("few", {});
    expect((result as { content?: unknown }).content).toEqual([
      { type: "text", text: "first" },
      { type: "image", data: PNG, mediaType: "image/png" },
      { type: "text", text: "second ".repeat(1_000) },
      { type: "text", text: "third" },
    ]);
  });

  it("the capped result is still well-formed for Anthropic and OpenAI", async () => {
    const [anthropic] = await runAnthropicToolUses(run(), [...SMALL_USE]);
    const blocks = anthropic?.content as Anthropic.Messages.ToolResultBlockParam["content"];
    expect(typeof blocks === "string" ? blocks.length : JSON.stringify(blocks).length).toBeLessThan(3 * LIMIT);
    const responses = await runOpenAIResponsesFunctionCalls(run(), [SMALL_CALL]);
    expect(JSON.stringify(responses).length).toBeLessThan(3 * LIMIT);
    const chat = await runOpenAIChatToolCalls(run(), [
      { id: "c1", type: "function", function: { name: "small", arguments: "{}" } },
    ]);
    expect(chat.map((message) => message.role)).toEqual(["tool"]);
    expect(String(chat[0]?.content)).toContain("line 0");
    expect(String(chat[0]?.content).length).toBeLessThanOrEqual(LIMIT + 200);
  });
});
