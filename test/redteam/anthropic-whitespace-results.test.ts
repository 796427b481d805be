/**
 * Red team round 14: the Messages API refuses text that is only whitespace ("messages: text
 * content blocks must contain non-whitespace text"), a 400 for the whole request, and since the
 * result stays in the conversation, for every later request too. A tool whose output is only a
 * newline (a command that printed nothing but a line end, an empty file read as text) was sent as
 * `content: "\n"`, and a rich result's whitespace text part as its own text block.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { createRegistry, defineTool, toolContent } from "agent-tool-catalog";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function run() {
  const tool = (name: string, handler: () => unknown) =>
    defineTool({ name, description: `${name}.`, inputSchema: z.object({}), handler });
  return createRegistry({
    tools: [
      tool("newline", () => "\n"),
      tool("spaces", () => "  \t \n "),
      tool("spaced_parts", () =>
        toolContent([
          { type: "text", text: " \n" },
          { type: "image", data: PNG, mediaType: "image/png" },
        ]),
      ),
      tool("text", () => " kept \n"),
    ],
  }).createRun();
}

const use = (name: string) => [{ type: "tool_use", id: `toolu_${name}`, name, input: {} }] as const;

/** Every text the API would read: string content and text blocks. */
function texts(result: Anthropic.Messages.ToolResultBlockParam | undefined): string[] {
  const content = result?.content;
  if (content === undefined) return [];
  if (typeof content === "string") return [content];
  return content.flatMap((block) => (block.type === "text" ? [block.text] : []));
}

describe("Anthropic: whitespace-only tool output", () => {
  it("never reaches the API as whitespace-only text", async () => {
    const current = run();
    for (const name of ["newline", "spaces", "spaced_parts"]) {
      const [result] = await runAnthropicToolUses(current, [...use(name)]);
      expect(result?.tool_use_id).toBe(`toolu_${name}`);
      for (const text of texts(result)) expect(text.trim(), `${name}: ${JSON.stringify(text)}`).not.toBe("");
    }
    const [parts] = await runAnthropicToolUses(current, [...use("spaced_parts")]);
    expect(Array.isArray(parts?.content) && parts.content.map((block) => block.type)).toEqual(["image"]);
  });

  it("positive control: text with whitespace around it is sent as it is", async () => {
    const [result] = await runAnthropicToolUses(run(), [...use("text")]);
    expect(result?.content).toBe(" kept \n");
  });
});
