/**
 * Red team round 13: `[tools.load_mode]` in a tool configuration is keyed by tool name, and
 * "__proto__" is a valid tool name (round 12b). parseToolConfig assigned each mode into a plain
 * object, so `__proto__ = "off"` set the object's prototype (ignored, a string) and the tool the
 * host turned off stayed on, without a word.
 */
import { createRegistry, defineTool, parseToolConfig } from "agent-tool-catalog";
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
