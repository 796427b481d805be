/**
 * The core soak: many registries, runs and calls (valid, invalid, hostile, cancelled), then heap,
 * file descriptors and child processes before and after. A small size runs in `npm test`
 * (src/run/soak.test.ts); `npm run bench` (or `node --import tsx bench/core/core-soak.ts`) runs
 * the full one and writes bench/results/core-soak.json.
 *
 * MCP connections and bash calls are soaked by the MCP and sandbox areas' own benches.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { z } from "zod";
import { createRegistry, defineTool } from "../../src/index.js";

/** Sizes of one soak. */
export interface SoakSizes {
  readonly registries: number;
  readonly runs: number;
  readonly calls: number;
}

/** What a soak measured. */
export interface SoakResult {
  readonly sizes: SoakSizes;
  readonly seconds: number;
  readonly heapBeforeMiB: number;
  readonly heapAfterMiB: number;
  readonly heapGrowthMiB: number;
  readonly fdsBefore: number;
  readonly fdsAfter: number;
  readonly childProcessesBefore: number;
  readonly childProcessesAfter: number;
  readonly failedResults: number;
  readonly okResults: number;
}

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  for (let i = 0; i < 3; i++) gc();
}

function heapMiB(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

function openFds(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return -1;
  }
}

function childProcesses(): number {
  try {
    let count = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (ppid === process.pid) count++;
      } catch {
        // the process ended while we looked
      }
    }
    return count;
  } catch {
    return -1;
  }
}

const echo = defineTool({
  name: "echo",
  description: "Echo a message back.",
  inputSchema: z.object({ message: z.string(), count: z.number().optional() }).strict(),
  handler: ({ message }) => message,
});
const jsonTool = defineTool({
  name: "json_tool",
  description: "A JSON Schema tool.",
  inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
  handler: (input: { n: number }) => ({ doubled: input.n * 2, big: BigInt(input.n) }),
});
const hostile = defineTool({
  name: "hostile",
  description: "Throws odd values or never settles.",
  inputSchema: z.object({ mode: z.enum(["throw", "never", "cycle"]) }),
  handler: ({ mode }): unknown => {
    if (mode === "throw") throw Object.create(null);
    if (mode === "never") return new Promise<string>(() => undefined);
    const value: Record<string, unknown> = {};
    value.self = value;
    return value;
  },
});
const deferred = defineTool({
  name: "weather",
  description: "Weather forecast for a city.",
  inputSchema: z.object({ city: z.string() }),
  tier: "deferred",
  handler: ({ city }) => `sunny in ${city}`,
});

/** Runs one soak of the given sizes. */
export async function runCoreSoak(sizes: SoakSizes): Promise<SoakResult> {
  const started = performance.now();
  const heapBefore = heapMiB();
  const fdsBefore = openFds();
  const childrenBefore = childProcesses();
  const runsPerRegistry = Math.max(1, Math.floor(sizes.runs / sizes.registries));
  const callsPerRun = Math.max(1, Math.floor(sizes.calls / (runsPerRegistry * sizes.registries)));
  let ok = 0;
  let failed = 0;
  for (let r = 0; r < sizes.registries; r++) {
    const registry = createRegistry({ tools: [echo, jsonTool, hostile, deferred] });
    for (let k = 0; k < runsPerRegistry; k++) {
      const run = registry.createRun({ approvalTimeoutMs: 1000 });
      const private_ = defineTool({
        name: "private_tool",
        description: "A run-private tool.",
        inputSchema: z.object({}),
        handler: () => "mine",
      });
      const handle = registry.register(private_, { runId: run.id });
      const calls: Promise<{ ok: boolean }>[] = [];
      for (let c = 0; c < callsPerRun; c++) {
        const controller = new AbortController();
        switch (c % 8) {
          case 0:
            calls.push(run.call("echo", { message: "hi" }));
            break;
          case 1:
            calls.push(run.call("echo", JSON.stringify({ message: 1, extra: "x".repeat(100) })));
            break;
          case 2:
            calls.push(run.call("json_tool", { n: c }));
            break;
          case 3:
            calls.push(run.call("hostile", { mode: "throw" }));
            break;
          case 4:
            calls.push(run.call("hostile", { mode: "never" }, { signal: controller.signal }));
            controller.abort();
            break;
          case 5:
            calls.push(run.call("hostile", { mode: "cycle" }));
            break;
          case 6:
            run.activate(["weather"]);
            calls.push(run.call("weather", { city: "Oslo" }));
            break;
          default:
            calls.push(run.call("ehco", {}));
            calls.push(run.call("private_tool", {}));
        }
      }
      for (const result of await Promise.all(calls)) {
        if (result.ok) ok++;
        else failed++;
      }
      run.definitions();
      handle.remove();
      await run.close();
    }
    await registry.close();
  }
  const heapAfter = heapMiB();
  return {
    sizes,
    seconds: (performance.now() - started) / 1000,
    heapBeforeMiB: Math.round(heapBefore * 10) / 10,
    heapAfterMiB: Math.round(heapAfter * 10) / 10,
    heapGrowthMiB: Math.round((heapAfter - heapBefore) * 10) / 10,
    fdsBefore,
    fdsAfter: openFds(),
    childProcessesBefore: childrenBefore,
    childProcessesAfter: childProcesses(),
    failedResults: failed,
    okResults: ok,
  };
}

const isMain = process.argv[1]?.endsWith("core-soak.ts") === true;
if (isMain) {
  const { writeFileSync, mkdirSync } = await import("node:fs");
  const { join, dirname } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const results = join(dirname(fileURLToPath(import.meta.url)), "..", "results");
  mkdirSync(results, { recursive: true });
  const result = await runCoreSoak({ registries: 500, runs: 5_000, calls: 20_000 });
  writeFileSync(join(results, "core-soak.json"), `${JSON.stringify({ node: process.version, result }, null, 2)}\n`);
  console.log(result);
}
