// Red team round 8: providers parse request bodies strictly, and a lone surrogate (raw, or
// escaped as `\ud83d` by JSON.stringify) fails the whole request with HTTP 400 "no low surrogate
// in string" (anthropics/claude-code#1939, #6273). The result stays in the conversation, so every
// later turn fails too. Condensing cut text between UTF-16 units, so a long output full of emoji
// (valid text) came out with half an emoji at each cut; a tool's own broken string (or an echo of
// the model's `"\ud800"`) went through as it was. Every text a run reports is now well-formed.
import { createRegistry, defineTool, formatToolResult, type Run, ToolError, toolContent } from "agent-tool-catalog";
import { type AnthropicToolUseBlock, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { type OpenAIFunctionCallItem, runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";
import { MAX_ERROR_TEXT_LENGTH } from "../../src/run/describe-failure.js";

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const EMOJI = "\u{1F600}";
const anyInput = { type: "object", properties: { text: { type: "string" } } } as const;

function catalog(): Run {
  const tools = [];
  // Every head length modulo the cut points: some offsets put a cut inside a pair, some do not.
  for (let offset = 0; offset < 8; offset++) {
    const pad = "a".repeat(offset);
    tools.push(
      defineTool({
        name: `emoji_text_${offset}`,
        description: "Emoji text.",
        inputSchema: anyInput,
        handler: () => pad + EMOJI.repeat(30_000),
      }),
      defineTool({
        name: `emoji_object_${offset}`,
        description: "An object of emoji.",
        inputSchema: anyInput,
        handler: () => ({ [pad]: EMOJI.repeat(30_000) }),
      }),
      defineTool({
        name: `emoji_part_${offset}`,
        description: "A text part of emoji.",
        inputSchema: anyInput,
        handler: () => toolContent([{ type: "text", text: pad + EMOJI.repeat(30_000) }]),
      }),
      defineTool({
        name: `emoji_error_${offset}`,
        description: "An error message of emoji.",
        inputSchema: anyInput,
        handler: () => {
          throw new ToolError("emoji_error", pad + EMOJI.repeat(MAX_ERROR_TEXT_LENGTH), { hint: "retry" });
        },
      }),
    );
  }
  tools.push(
    defineTool({ name: "echo", description: "Echo.", inputSchema: anyInput, handler: ({ text }) => text ?? "" }),
    defineTool({
      name: "broken",
      description: "Broken strings, keys, parts and errors.",
      inputSchema: anyInput,
      handler: ({ text }) => {
        if (text === "key") return { "half \uD83D": "low \uDE00 end" };
        if (text === "part") return toolContent([{ type: "text", text: "half \uD83D" }]);
        if (text === "throw") throw new Error("half \uD83D");
        return `half \uD83D, ${EMOJI} whole`;
      },
    }),
  );
  return createRegistry({ tools }).createRun({ profile: "full" });
}

/** The texts the three provider formats would send back for one call, and the run's own. */
async function sentTexts(run: Run, name: string, input: Record<string, unknown>): Promise<string[]> {
  const args = JSON.stringify(input);
  const result = await run.call(name, args);
  const use: AnthropicToolUseBlock = { type: "tool_use", id: "toolu_1", name, input };
  const anthropic = await runAnthropicToolUses(run, [use]);
  const item: OpenAIFunctionCallItem = { type: "function_call", call_id: "c1", name, arguments: args };
  const responses = await runOpenAIResponsesFunctionCalls(run, [item]);
  const chat = await runOpenAIChatToolCalls(run, [{ id: "c1", type: "function", function: { name, arguments: args } }]);
  return [
    formatToolResult(result),
    JSON.stringify(result),
    JSON.stringify(anthropic),
    JSON.stringify(responses),
    JSON.stringify(chat),
  ];
}

/** JSON.stringify writes a lone surrogate as an escape (`\\ud83d`): look for both forms. */
const LONE_ESCAPED =
  /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/;
function hasLoneSurrogate(text: string): boolean {
  return LONE.test(text) || LONE_ESCAPED.test(text);
}

describe("text a run reports never holds a lone surrogate", () => {
  it("condensing a long output of emoji cuts between code points, in every format", async () => {
    const run = catalog();
    for (let offset = 0; offset < 8; offset++) {
      for (const kind of ["text", "object", "part", "error"]) {
        const texts = await sentTexts(run, `emoji_${kind}_${offset}`, {});
        for (const text of texts) expect(hasLoneSurrogate(text), `${kind} ${offset}`).toBe(false);
        // positive control: the emoji are there, condensed (or cut) with the marker
        expect(texts[0]).toContain(EMOJI.repeat(100));
        expect(texts[0]).toMatch(/omitted|\(cut\)/);
      }
    }
  });

  it("a tool's broken string, key, text part or error, and an echo of the model's own, become U+FFFD", async () => {
    const run = catalog();
    for (const input of [{}, { text: "key" }, { text: "part" }, { text: "throw" }]) {
      const texts = await sentTexts(run, "broken", input);
      for (const text of texts) expect(hasLoneSurrogate(text), JSON.stringify(input)).toBe(false);
      expect(texts[0]).toContain("half \uFFFD");
    }
    const echoed = await sentTexts(run, "echo", { text: "model \uD800 said" });
    for (const text of echoed) expect(hasLoneSurrogate(text)).toBe(false);
    expect(echoed[0]).toBe("model \uFFFD said");
    // positive control: well-formed text, emoji included, is sent unchanged
    const whole = await sentTexts(run, "echo", { text: `fine ${EMOJI} text` });
    expect(whole[0]).toBe(`fine ${EMOJI} text`);
    expect(whole[2]).toContain(`fine ${EMOJI} text`);
  });
});
