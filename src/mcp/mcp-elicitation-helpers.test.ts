import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { type McpQuestionChannel, mcpElicitationFromQuestionBroker } from "./mcp-elicitation-helpers.js";

/** A broker that answers "Continue" to the first question, then each field's text in order. */
function answering(...answers: string[]): McpQuestionChannel {
  const queue = ["Continue", ...answers];
  return { ask: async () => ({ answers: [queue.shift() ?? ""] }) };
}

const context = { server: "forms", signal: new AbortController().signal } as never;

describe("mcpElicitationFromQuestionBroker", () => {
  it("keeps a field named __proto__ as an own field of the answer (JSON schemas may name one so)", async () => {
    // Parsed from JSON, as a server's schema arrives: `__proto__` is an ordinary own key there.
    const params = JSON.parse(
      '{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string"},"name":{"type":"string"}},"required":["__proto__","name"]}}',
    ) as ElicitRequest["params"];
    const handler = mcpElicitationFromQuestionBroker(answering("polluted?", "Ada"));
    const result = await handler(params as never, context);
    expect(result.action).toBe("accept");
    expect(JSON.parse(JSON.stringify(result.content))).toEqual(JSON.parse('{"__proto__":"polluted?","name":"Ada"}'));
    expect(Object.getPrototypeOf(result.content)).toBe(Object.prototype);
    expect(Object.hasOwn(result.content ?? {}, "__proto__")).toBe(true);
  });

  it("control: ordinary fields are answered", async () => {
    const handler = mcpElicitationFromQuestionBroker(answering("Ada"));
    const result = await handler(
      {
        message: "m",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      } as never,
      context,
    );
    expect(result).toEqual({ action: "accept", content: { name: "Ada" } });
  });
});
