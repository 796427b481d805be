/**
 * The OpenAI runners parse argument text that holds `null` themselves, to drop the `null`s strict
 * mode sends for optional fields. Text over the run's `maxInputLength` must be refused as the run
 * refuses it, unparsed: parsing it first cost seconds of blocked event loop (round 46 measured
 * 8.4 s for 10 MB of nested arrays) for a call that could only fail.
 */
import { createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { type OpenAIFunctionCallItem, runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cpuMsSince } from "../support/cpu-time.js";

function noteRun(maxInputLength?: number): { run: Run; seen: unknown[] } {
  const seen: unknown[] = [];
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "note",
        description: "Keep a note.",
        inputSchema: z.object({ text: z.string(), tag: z.string().optional() }),
        handler: (input) => {
          seen.push(input);
          return "kept";
        },
      }),
    ],
  });
  return { run: registry.createRun(maxInputLength === undefined ? {} : { maxInputLength }), seen };
}

// 2,500,000 nested arrays around a null: 5 MB of text, over the default 4 MiB. JSON.parse takes
// seconds of CPU on it; the length check takes none.
const LEVELS = 2_500_000;
const deep = `${"[".repeat(LEVELS)}null${"]".repeat(LEVELS)}`;

describe("argument text over the run's limit is refused unparsed by the OpenAI runners", () => {
  it("chat and responses: input_too_large within 500 ms of CPU, the handler never runs", async () => {
    const { run, seen } = noteRun();
    expect(deep.length).toBeGreaterThan(run.maxInputLength);
    const started = process.cpuUsage();
    const [chat] = await runOpenAIChatToolCalls(run, [
      { id: "call_deep", type: "function", function: { name: "note", arguments: deep } },
    ]);
    const deepCall: OpenAIFunctionCallItem = { type: "function_call", call_id: "call_deep", name: "note", arguments: deep };
    const [responses] = await runOpenAIResponsesFunctionCalls(run, [deepCall]);
    const cpuMs = cpuMsSince(started);
    expect(String(chat?.content)).toContain("input_too_large");
    expect(String(responses?.output)).toContain("input_too_large");
    expect(seen).toEqual([]);
    expect(cpuMs).toBeLessThan(500);
  });

  it("control: text under the limit still has its optional nulls dropped and runs", async () => {
    const { run, seen } = noteRun();
    const [chat] = await runOpenAIChatToolCalls(run, [
      { id: "call_ok", type: "function", function: { name: "note", arguments: '{"text":"hi","tag":null}' } },
    ]);
    expect(chat?.content).toBe("kept");
    expect(seen).toEqual([{ text: "hi" }]);
  });

  it("control: a run whose limit is lowered refuses text the default would take, by its own limit", async () => {
    const { run, seen } = noteRun(10);
    expect(run.maxInputLength).toBe(10);
    const [chat] = await runOpenAIChatToolCalls(run, [
      { id: "call_small", type: "function", function: { name: "note", arguments: '{"text":"hi","tag":null}' } },
    ]);
    expect(String(chat?.content)).toContain("input_too_large");
    expect(seen).toEqual([]);
  });
});
