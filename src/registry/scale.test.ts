import { describe, expect, it } from "vitest";
import { defineTool } from "../tool/define-tool.js";
import type { JsonObjectSchema } from "../tool/json-schema.js";
import { createRegistry } from "./registry.js";

const schema: JsonObjectSchema = { type: "object", properties: { q: { type: "string" } } };
const deferredTools = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    defineTool({
      name: `tool_${i}`,
      description: `Tool ${i} does thing ${i % 97}.`,
      inputSchema: schema,
      tier: "deferred",
      handler: () => "",
    }),
  );

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The median time of `task` over a few rounds, each after a change that empties every cache. */
function timeAfterChange(registry: ReturnType<typeof createRegistry>, task: () => void): number {
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    const handle = registry.register(
      defineTool({ name: `churn_${round}`, description: "Churn.", inputSchema: schema, tier: "deferred", handler: () => "" }),
    );
    const started = performance.now();
    task();
    samples.push(performance.now() - started);
    handle.remove();
  }
  return median(samples);
}

describe("a run's cost grows with what it sees, not with the registry (issue 18)", () => {
  it("definitions() and a misspelled name cost about the same at 20,000 tools as at 200", async () => {
    const small = createRegistry({ tools: deferredTools(200) });
    const large = createRegistry({ tools: deferredTools(20_000) });
    const smallRun = small.createRun();
    const largeRun = large.createRun();
    largeRun.activate(["tool_5"]);
    smallRun.activate(["tool_5"]);
    const smallDefinitions = timeAfterChange(small, () => smallRun.definitions());
    const largeDefinitions = timeAfterChange(large, () => largeRun.definitions());
    // Walking every tool made this ~100x slower (150 ms at 20,000 tools); allow noise, not a walk.
    expect(largeDefinitions).toBeLessThan(Math.max(5, smallDefinitions * 10));
    expect(largeRun.definitions().map((tool) => tool.name)).toEqual(["find_tool", "tool_5"]);

    // A misspelled name: matched through the trigram index, not by edit distance to every name
    // (that took about 100 ms at 20,000 tools, 100x the cost at 200). Medians of a few lookups,
    // compared with the small registry's, so machine load moves both sides.
    const misspelledCost = async (run: typeof largeRun) => {
      await run.call("tool_99x9", {}); // warm-up: the first call compiles code paths
      const samples: number[] = [];
      for (const name of ["tool_123x", "tool_12x4", "tool_1x34", "tool_x234", "tool_1234x"]) {
        const started = performance.now();
        const result = await run.call(name, {});
        samples.push(performance.now() - started);
        expect(result).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
      }
      return median(samples);
    };
    const smallMisspelled = await misspelledCost(smallRun);
    const largeMisspelled = await misspelledCost(largeRun);
    expect(largeMisspelled).toBeLessThan(Math.max(10, smallMisspelled * 10));
    expect(await largeRun.call("tool_1234x", {})).toMatchObject({
      ok: false,
      error: { code: "unknown_tool", suggestions: expect.arrayContaining(["tool_1234"]) },
    });
  }, 60_000);
});
