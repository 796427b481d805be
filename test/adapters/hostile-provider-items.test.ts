// What a provider (or a proxy, or a bug in the host's own message store) hands the batch runners
// may hold entries that are not blocks at all: null, a number, an object whose reads throw, a call
// whose name or arguments are not strings. The runners promise never to reject and to answer
// every call that has an id, so the next request is well-formed.
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";
import { plainRun } from "./adapter-fixtures.js";

const hostile = new Proxy(
  {},
  {
    get: () => {
      throw new Error("get trap");
    },
    has: () => {
      throw new Error("has trap");
    },
    getOwnPropertyDescriptor: () => {
      throw new Error("descriptor trap");
    },
  },
);
const junk = [null, undefined, 5, "text", hostile];

describe("hostile provider items never reject a batch", () => {
  it("answers the well-formed calls and every call with an id, in all three formats", async () => {
    const anthropic = await runAnthropicToolUses(plainRun(), [
      ...junk,
      { type: "tool_use", id: "toolu_ok", name: "echo", input: { text: "still here" } },
      { type: "tool_use", id: "toolu_name", name: 7, input: {} },
      { type: "tool_use", id: "toolu_input", name: "echo", input: hostile },
    ] as never);
    expect(anthropic.map((block) => [block.tool_use_id, block.is_error ?? false])).toEqual([
      ["toolu_ok", false],
      ["toolu_name", true],
      ["toolu_input", true],
    ]);
    expect(anthropic[0]?.content).toBe("still here");
    expect(String(anthropic[1]?.content)).toContain("unknown_tool");

    const responses = await runOpenAIResponsesFunctionCalls(plainRun(), [
      ...junk,
      { type: "function_call", call_id: "call_ok", name: "echo", arguments: '{"text":"still here"}' },
      { type: "function_call", call_id: "call_name", name: 7, arguments: "{}" },
      { type: "function_call", call_id: "call_args", name: "echo", arguments: 42 },
    ] as never);
    expect(responses.map((item) => item.call_id)).toEqual(["call_ok", "call_name", "call_args"]);
    expect(responses.map((item) => String(item.output))).toEqual([
      "still here",
      expect.stringContaining("unknown_tool"),
      expect.stringContaining("invalid_input"),
    ]);

    const chat = await runOpenAIChatToolCalls(plainRun(), [
      ...junk,
      { id: "call_ok", type: "function", function: { name: "echo", arguments: '{"text":"still here"}' } },
      { id: "call_fn", type: "function", function: null },
      { id: "call_trap", type: "function", function: hostile },
    ] as never);
    expect(chat.map((message) => [(message as { tool_call_id?: unknown }).tool_call_id, message.content])).toEqual([
      ["call_ok", "still here"],
      ["call_fn", expect.stringContaining("unknown_tool")],
      ["call_trap", expect.stringContaining("unknown_tool")],
    ]);
  });
});
