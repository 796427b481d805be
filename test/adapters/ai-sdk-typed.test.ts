import { ConfigurationError, createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const echo = defineTool({
  name: "echo",
  description: "Echo.",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

describe("createAiSdkTools({ definitions })", () => {
  it("makes the given tools static and every other tool dynamic", () => {
    const run = createRegistry({ tools: [echo] }).createRun();
    const { tools } = createAiSdkTools(run, { definitions: { echo } });
    const all = tools as Record<string, { type?: string }>;
    expect(all.echo?.type).not.toBe("dynamic");
    expect(all.find_tool?.type).toBe("dynamic");
    // Without definitions nothing is dynamic (the ToolSet is untyped anyway).
    const untyped = createAiSdkTools(run).tools as Record<string, { type?: string }>;
    expect(Object.values(untyped).some((tool) => tool.type === "dynamic")).toBe(false);
  });

  it("refuses a key that is not its definition's name", () => {
    const run = createRegistry({ tools: [echo] }).createRun();
    const wrong = () => createAiSdkTools(run, { definitions: { say: echo } });
    expect(wrong).toThrow(ConfigurationError);
    expect(wrong).toThrow('definitions.say must be the definition of the tool named "say", got "echo".');
  });
});
