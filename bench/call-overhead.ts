import { performance } from "node:perf_hooks";
import { z } from "zod";
import { createRegistry, defineTool } from "../src/index.js";
import { median, round } from "./stats.js";

/** Per-call cost of `run.call()` beyond calling the handler itself. */
export interface CallOverheadResult {
  readonly calls: number;
  /** Median over batches of the direct `await handler(input)` cost, in microseconds. */
  readonly directMicros: number;
  /** Median over batches of `await run.call(name, input)`, in microseconds. */
  readonly runCallMicros: number;
  /** The difference: visibility, parsing, validation, policy, events. */
  readonly overheadMicros: number;
  /** The same with a listener on every event. */
  readonly overheadWithListenersMicros: number;
}

/** Measures `run.call()` on a trivial tool against calling its handler directly. */
export async function measureCallOverhead(calls = 20_000, batches = 7): Promise<CallOverheadResult> {
  const echo = defineTool({
    name: "echo",
    description: "Echo.",
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => text,
  });
  const registry = createRegistry({ tools: [echo] });
  const run = registry.createRun();
  const input = { text: "hello" };
  const context = undefined as never;
  const time = async (task: () => unknown): Promise<number> => {
    const start = performance.now();
    for (let index = 0; index < calls; index++) await task();
    return ((performance.now() - start) * 1000) / calls;
  };
  const direct: number[] = [];
  const viaRun: number[] = [];
  const viaRunWithListeners: number[] = [];
  await time(() => run.call("echo", input));
  for (let batch = 0; batch < batches; batch++) {
    direct.push(await time(() => echo.handler(input, context)));
    viaRun.push(await time(() => run.call("echo", input)));
  }
  let events = 0;
  for (const type of ["tool.called", "tool.result", "tool.error"] as const) run.events.on(type, () => events++);
  for (let batch = 0; batch < batches; batch++) viaRunWithListeners.push(await time(() => run.call("echo", input)));
  if (events === 0) throw new Error("listeners were not called");
  const directMicros = median(direct);
  return {
    calls,
    directMicros: round(directMicros, 3),
    runCallMicros: round(median(viaRun), 3),
    overheadMicros: round(median(viaRun) - directMicros, 3),
    overheadWithListenersMicros: round(median(viaRunWithListeners) - directMicros, 3),
  };
}
