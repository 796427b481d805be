/**
 * Red team round 6: arguments and results no model could send, from hosts and handlers that pass
 * objects straight through (the Anthropic adapter hands `tool_use.input` over as an object).
 * A sparse array whose `length` is 2^32 - 1 once crashed the process in the argument size check
 * (V8 "invalid size error": an abort, not a catchable error).
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cpuMsSince } from "../support/cpu-time.js";

function sparse(length: number): unknown[] {
  const array: unknown[] = [];
  array.length = length;
  array[length - 1] = 1;
  return array;
}

describe("hostile arguments", () => {
  let runs = 0;
  const zodTool = defineTool({
    name: "zod_tool",
    description: "Takes a list.",
    inputSchema: z.object({ xs: z.array(z.unknown()) }),
    handler: ({ xs }) => {
      runs++;
      return xs.length;
    },
  });
  const jsonTool = defineTool({
    name: "json_tool",
    description: "Takes a list.",
    inputSchema: { type: "object", properties: { xs: { type: "array" } } },
    handler: () => ++runs,
  });

  it("a sparse array of length 2^32 - 1 in the arguments is input_too_large, and the process lives", async () => {
    // The Symbol-keys test below runs zod_tool too: counted from here, the checks hold in any order
    // (`--sequence.shuffle` ran it first).
    runs = 0;
    const run = createRegistry({ tools: [zodTool, jsonTool] }).createRun();
    for (const tool of ["zod_tool", "json_tool"]) {
      // CPU, not wall time (which at load 10-20 on 2 cores measures the machine): walking the
      // 2^32 holes would take minutes of it.
      const started = process.cpuUsage();
      expect(await run.call(tool, { xs: sparse(2 ** 32 - 1) })).toMatchObject({ ok: false, error: { code: "input_too_large" } });
      expect(await run.call(tool, { nested: [{ xs: sparse(2 ** 31) }] })).toMatchObject({
        ok: false,
        error: { code: "input_too_large" },
      });
      const cpuMs = cpuMsSince(started);
      if (process.env.ATC_WALL_TO_CPU) console.log(`${tool}: ${Math.round(cpuMs)} ms CPU`);
      expect(cpuMs, `${tool}: CPU ms`).toBeLessThan(2_000);
    }
    expect(runs).toBe(0);
    // Control: a short sparse array is plain input (its holes are nulls in JSON).
    expect(await run.call("zod_tool", { xs: sparse(3) })).toMatchObject({ ok: true, output: 3 });
    expect(runs).toBe(1);
  });

  it("Symbol keys are not arguments: ignored, as JSON would", async () => {
    const run = createRegistry({ tools: [zodTool] }).createRun();
    expect(await run.call("zod_tool", { xs: [1], [Symbol("hidden")]: () => 1 })).toMatchObject({ ok: true, output: 1 });
  });
});
