/**
 * Red team round 12b: "__proto__" is a valid tool name (`^[a-zA-Z0-9_-]{1,64}$`) and a valid JSON
 * Schema property name. Every object keyed by such a name must hold it as an own property: an
 * assignment sets the object's prototype instead, and the tool (or field) silently disappears from
 * what the model is sent while the run still says it is there.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { openAIResponsesTools } from "agent-tool-catalog/openai";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel as scripted } from "../support/scripted-model.js";

const named = (name: string, tier: "core" | "deferred" = "core", description = `Tool ${name}.`) =>
  defineTool({ name, description, tier, inputSchema: z.object({}), handler: () => `ran ${name}` });

describe("a tool named __proto__", () => {
  it("is sent to the model and called through the AI SDK like any other (control: constructor)", async () => {
    const run = createRegistry({ tools: [named("__proto__"), named("constructor")] }).createRun({});
    const { tools, prepareStep, activeTools } = createAiSdkTools(run);
    // The set keeps its plain prototype and holds both tools as its own.
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
    expect(Object.keys(tools).sort()).toEqual(["__proto__", "constructor", "find_tool"]);
    expect(activeTools().sort()).toEqual(["__proto__", "constructor", "find_tool"]);

    const { model, seen } = scripted([
      [
        { type: "tool-call", toolCallId: "p", toolName: "__proto__", input: "{}" },
        { type: "tool-call", toolCallId: "c", toolName: "constructor", input: "{}" },
      ],
    ]);
    await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "go" });
    // What the model was offered is what the run says is callable.
    expect((seen[0]?.tools ?? []).map((tool) => tool.name).sort()).toEqual(["__proto__", "constructor", "find_tool"]);
    const outputs = new Map<string, unknown>();
    for (const message of seen[1]?.prompt ?? []) {
      if (message.role !== "tool") continue;
      for (const part of message.content) if (part.type === "tool-result") outputs.set(part.toolCallId, part.output);
    }
    expect(outputs.get("p")).toEqual({ type: "text", value: "ran __proto__" });
    expect(outputs.get("c")).toEqual({ type: "text", value: "ran constructor" });
  });

  it("keeps its activation's identity in the saved state: a different tool of that name is not restored (control: plain)", () => {
    const saved = createRegistry({ tools: [named("__proto__", "deferred"), named("plain", "deferred")] }).createRun({});
    expect(saved.activate(["__proto__", "plain"]).activated).toEqual(["__proto__", "plain"]);
    const state = JSON.parse(JSON.stringify(saved.toJSON()));
    expect(Object.keys(state.activation.identities).sort()).toEqual(["__proto__", "plain"]);

    // The same tools: both restored.
    const same = createRegistry({ tools: [named("__proto__", "deferred"), named("plain", "deferred")] }).createRun({ state });
    expect(same.definitions().map((tool) => tool.name)).toEqual(["find_tool", "__proto__", "plain"]);
    // Other tools under the same names: neither is restored, and both are reported.
    const other = createRegistry({
      tools: [named("__proto__", "deferred", "Deletes everything."), named("plain", "deferred", "Deletes everything.")],
    }).createRun({ state });
    expect(other.definitions().map((tool) => tool.name)).toEqual(["find_tool"]);
    expect(
      other
        .diagnostics()
        .map((diagnostic) => [diagnostic.kind, diagnostic.name])
        .sort(),
    ).toEqual([
      ["stale_activation", "__proto__"],
      ["stale_activation", "plain"],
    ]);
  });
});

describe("an input property named __proto__ in a JSON Schema", () => {
  // Until round 44 this schema was accepted and kept in OpenAI's strict schema, so a strict model
  // could send the field. But Ajv never checks a field so named (it reads the name as the
  // prototype: any value passes, and `required` is met by `{}`), so the model was told of a field
  // nothing checked: such a schema is now refused (test/redteam/r44-mcp-proto-schema.test.ts).
  it("is refused at definition, naming the field (control: the property beside it alone)", () => {
    const inputSchema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"b":{"type":"string"}},"required":["__proto__"]}',
    );
    const keys = (schema: unknown) =>
      defineTool({
        name: "keys",
        description: "Lists its argument keys.",
        inputSchema: schema as never,
        handler: (input: Record<string, unknown>) => Object.keys(input).join(","),
      });
    expect(() => keys(inputSchema)).toThrow(/#\/properties names a field "__proto__"/);
    const control = createRegistry({ tools: [keys(JSON.parse('{"type":"object","properties":{"b":{"type":"string"}}}'))] });
    const sent = openAIResponsesTools(control.createRun({}), { strict: true }).find(
      (tool) => "name" in tool && tool.name === "keys",
    );
    expect(sent).toMatchObject({ strict: true });
  });
});
