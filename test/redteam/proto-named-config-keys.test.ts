/**
 * Red team round 13: `[tools.load_mode]` in a tool configuration is keyed by tool name, and
 * "__proto__" is a valid tool name (round 12b). parseToolConfig assigned each mode into a plain
 * object, so `__proto__ = "off"` set the object's prototype (ignored, a string) and the tool the
 * host turned off stayed on, without a word.
 */
import { createRegistry, defineTool, parseToolConfig } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const named = (name: string) =>
  defineTool({ name, description: `Tool ${name}.`, tier: "core", inputSchema: z.object({}), handler: () => `ran ${name}` });

describe("[tools.load_mode] keyed by a tool named __proto__", () => {
  it("is kept as an own key, and the tool is off in the run", () => {
    const config = parseToolConfig('[tools.load_mode]\n__proto__ = "off"\nconstructor = "off"\n');
    expect(Object.keys(config.loadModes ?? {}).sort()).toEqual(["__proto__", "constructor"]);
    const run = createRegistry({ tools: [named("__proto__"), named("constructor"), named("kept")] }).createRun({ config });
    const sent = run.definitions().map((tool) => tool.name);
    expect(sent).not.toContain("__proto__");
    expect(sent).not.toContain("constructor");
    // Control: a tool the configuration does not name is sent.
    expect(sent).toContain("kept");
  });
});

describe("the approval digest of arguments holding a __proto__ key", () => {
  // The digest binds an approval to the arguments that were shown (approve(id, { argumentsDigest })).
  // Its canonical form assigned each key into a plain object, so a "__proto__" field was dropped:
  // two calls differing only there had one digest, and a request's input could be swapped there
  // without the approval noticing.
  const digest = (input: unknown) =>
    RedisApprovalBroker.argumentsDigest({ runId: "r", callId: "c", toolName: "t", input: input as Record<string, unknown> });

  it("differs when only the __proto__ field differs, or is missing", () => {
    const shown = digest(JSON.parse('{"path":"a.txt","__proto__":{"mode":"safe"}}'));
    expect(digest(JSON.parse('{"path":"a.txt","__proto__":{"mode":"destroy"}}'))).not.toBe(shown);
    expect(digest(JSON.parse('{"path":"a.txt"}'))).not.toBe(shown);
    expect(digest(JSON.parse('{"path":"a.txt","__proto__":"x"}'))).not.toBe(
      digest(JSON.parse('{"path":"a.txt","__proto__":"y"}')),
    );
  });

  it("control: key order does not change it", () => {
    expect(digest(JSON.parse('{"b":1,"__proto__":{"y":2,"x":1},"a":2}'))).toBe(
      digest(JSON.parse('{"a":2,"__proto__":{"x":1,"y":2},"b":1}')),
    );
  });
});
