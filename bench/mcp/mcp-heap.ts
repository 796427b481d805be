/**
 * Heap per MCP call over many calls on one run (issue 15.3): an abort listener left on the run's
 * long-lived signal per call used to keep about 1-3 KB per call for the run's life.
 *   node --expose-gc --import tsx bench/mcp/mcp-heap.ts [--calls=20000]
 * Writes bench/results/mcp-heap.json.
 */

import { getEventListeners } from "node:events";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { createRegistry, defineTool } from "../../src/index.js";
import { connectMcpServer } from "../../src/mcp/index.js";
import { inMemoryFixture } from "../../test/mcp/support/in-memory-fixture.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run with node --expose-gc.");
const collect = gc;

/** What the bench measured. */
export interface McpHeapResult {
  readonly calls: number;
  readonly samples: readonly { readonly calls: number; readonly heapUsedBytes: number }[];
  /** Least-squares slope of heap over calls, after warm-up. */
  readonly bytesPerCall: number;
  /** Listeners on the run's signal after every call settled (0 is right). */
  readonly listenersLeft: number;
  readonly warnings: readonly string[];
}

/** Runs `calls` MCP calls on one run and samples the heap after a full GC every tenth of them. */
export async function measureMcpHeap(calls = 20_000): Promise<McpHeapResult> {
  const warnings: string[] = [];
  process.on("warning", (warning) => warnings.push(warning.name));
  let signal: AbortSignal | undefined;
  const peek = defineTool({
    name: "peek",
    description: "Captures the run's signal.",
    inputSchema: z.object({}),
    handler: (_input, context) => {
      signal = context.signal;
      return "ok";
    },
  });
  const registry = createRegistry({ tools: [peek] });
  await connectMcpServer(registry, inMemoryFixture("mem"));
  const run = registry.createRun();
  run.activate(["mcp_mem_echo"]);
  await run.call("peek", {});
  const heap = () => {
    collect();
    collect();
    return process.memoryUsage().heapUsed;
  };
  for (let index = 0; index < 1000; index++) await run.call("mcp_mem_echo", { text: "warm-up" });
  const samples: { calls: number; heapUsedBytes: number }[] = [{ calls: 0, heapUsedBytes: heap() }];
  const step = Math.max(1, Math.floor(calls / 10));
  for (let done = 0; done < calls; ) {
    for (let index = 0; index < step && done < calls; index++, done++) {
      const result = await run.call("mcp_mem_echo", { text: `call ${done}` });
      if (!result.ok) throw new Error(`call ${done} failed: ${result.error.message}`);
    }
    samples.push({ calls: done, heapUsedBytes: heap() });
  }
  const listenersLeft = signal === undefined ? -1 : getEventListeners(signal, "abort").length;
  await registry.close();
  return { calls, samples, bytesPerCall: Math.round(slope(samples) * 10) / 10, listenersLeft, warnings };
}

function slope(samples: readonly { calls: number; heapUsedBytes: number }[]): number {
  const n = samples.length;
  const meanX = samples.reduce((sum, s) => sum + s.calls, 0) / n;
  const meanY = samples.reduce((sum, s) => sum + s.heapUsedBytes, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.calls - meanX) * (s.heapUsedBytes - meanY);
    den += (s.calls - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = process.argv.find((each) => each.startsWith("--calls="));
  const calls = arg === undefined ? 20_000 : Number(arg.slice("--calls=".length));
  const result = await measureMcpHeap(calls);
  const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "mcp-heap.json");
  const machine = { node: process.version, date: new Date().toISOString().slice(0, 10) };
  writeFileSync(out, `${JSON.stringify({ machine, results: result }, null, 2)}\n`);
  console.log(`${result.calls} calls: ${result.bytesPerCall} bytes/call, ${result.listenersLeft} listeners left; wrote ${out}`);
}
