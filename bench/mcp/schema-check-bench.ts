/**
 * How long an MCP server's slow input schema holds the host's event loop: the two schemas of
 * test/mcp/servers/slow-schema-server.mjs (30 levels that each refer 6 times to themselves,
 * slow to compile; an `anyOf` that checks every level twice, 2^depth steps for an argument nested
 * `depth` deep), called through the catalog (compiled and checked in the schema check thread),
 * against the same compile and check on the host's thread with the same validator
 * (`createJsonSchemaValidator`, a new compiler each round, as the host did before the thread), in
 * the same rounds. The hold is the event loop's longest: a 1 ms timer's wall time between two
 * ticks less the host thread's wait for a CPU (test/support/event-loop-hold.ts); CPU is this
 * process's, every thread. Medians of the rounds, each round a new connection (so a new compile).
 * Checked: both ways accept the arguments and the tool runs (`... ran`). Then an argument 40 deep
 * (minutes of checking) with the limit lowered to 1 s: checked to fail with `input_schema_too_slow`.
 *   node --import tsx bench/mcp/schema-check-bench.ts [depth] [rounds]
 */
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry } from "../../src/index.js";
import { connectMcpServer } from "../../src/mcp/index.js";
import type { JsonSchema } from "../../src/tool/json-schema.js";
import { createJsonSchemaValidator, JsonSchemaCompiler } from "../../src/tool/json-schema-validator.js";
import { doubleCheck, nestedRefs } from "../../test/mcp/servers/slow-schemas.mjs";
import { longestHold } from "../../test/support/event-loop-hold.js";
import { median, round } from "../stats.js";

const SERVER = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "test",
  "mcp",
  "servers",
  "slow-schema-server.mjs",
);

/** One schema's medians, ms. */
export interface SchemaHoldRow {
  readonly schema: string;
  /** Longest event-loop hold of the call through the catalog. */
  readonly threadHoldMs: number;
  /** The same compile and check on the host's thread: its hold. */
  readonly hostThreadHoldMs: number;
  /** threadHoldMs / hostThreadHoldMs, paired per round, median. */
  readonly ratio: number;
  /** CPU of the call through the catalog (every thread of the process). */
  readonly threadCallCpuMs: number;
}

/**
 * An argument nested so deep that checking it would take minutes (2^40 steps): the check thread
 * stops at the time limit and the call fails with `input_schema_too_slow`; on the host's thread
 * nothing could have stopped it, so the reference is the call's own wall time.
 */
export interface DeepArgumentRow {
  readonly depth: number;
  /** `schemaTimeoutMs` for this connection (lowered from the default 5,000 to keep the bench short). */
  readonly limitMs: number;
  /** Longest event-loop hold during the call, ms (median). */
  readonly holdMs: number;
  /** The call's wall time, ms (median). */
  readonly callWallMs: number;
  /** The error code every round's call failed with. */
  readonly code: string;
}

/** What {@link measureSchemaCheckHold} measured. */
export interface SchemaCheckHoldResult {
  readonly depth: number;
  readonly rounds: number;
  readonly rows: readonly SchemaHoldRow[];
  readonly deep: DeepArgumentRow;
  readonly loadAverage: readonly number[];
}

function deeplyNested(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) node = { child: node };
  return { tree: node };
}

function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** The two calls, `rounds` rounds, each way; `depth` for the double check's argument. */
export async function measureSchemaCheckHold(depth = 22, rounds = 3): Promise<SchemaCheckHoldResult> {
  const cases = [
    { schema: "nested_refs (30 x 6 self-references)", tool: "nested_refs", inputSchema: nestedRefs(30, 6), args: {} },
    { schema: `double_check, argument ${depth} deep`, tool: "double_check", inputSchema: doubleCheck, args: deeplyNested(depth) },
  ];
  const thread = new Map<string, { hold: number; cpu: number }[]>();
  const host = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    const registry = createRegistry();
    try {
      await connectMcpServer(registry, { name: "slow", command: process.execPath, args: [SERVER] });
      const run = registry.createRun();
      run.activate(cases.map((one) => `mcp_slow_${one.tool}`));
      for (const one of cases) {
        const cpu0 = cpuMs();
        const { result, longestMs } = await longestHold(() => run.call(`mcp_slow_${one.tool}`, one.args));
        const cpu = cpuMs() - cpu0;
        if (!JSON.stringify(result).includes(`${one.tool} ran`))
          throw new Error(`schema check: ${one.tool} did not run: ${JSON.stringify(result).slice(0, 300)}`);
        thread.set(one.schema, [...(thread.get(one.schema) ?? []), { hold: longestMs, cpu }]);
        const validate = createJsonSchemaValidator(one.inputSchema as JsonSchema, new JsonSchemaCompiler(), () => 0);
        const hold = await longestHold(async () => validate(one.args));
        if (!hold.result.ok) throw new Error(`schema check: ${one.tool}'s arguments failed on the host's thread`);
        host.set(one.schema, [...(host.get(one.schema) ?? []), hold.longestMs]);
      }
    } finally {
      await registry.close();
    }
  }
  const rows = cases.map(({ schema }) => {
    const viaThread = thread.get(schema) ?? [];
    const onHost = host.get(schema) ?? [];
    return {
      schema,
      threadHoldMs: round(median(viaThread.map((one) => one.hold)), 1),
      hostThreadHoldMs: round(median(onHost), 1),
      ratio: round(median(viaThread.map((one, i) => one.hold / (onHost[i] ?? Number.NaN))), 3),
      threadCallCpuMs: round(median(viaThread.map((one) => one.cpu)), 1),
    };
  });
  const deep = await deepArgument(40, 1_000, rounds);
  return { depth, rounds, rows, deep, loadAverage: loadavg().map((value) => round(value, 1)) };
}

async function deepArgument(depth: number, limitMs: number, rounds: number): Promise<DeepArgumentRow> {
  const holds: number[] = [];
  const walls: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const registry = createRegistry();
    try {
      await connectMcpServer(registry, { name: "slow", command: process.execPath, args: [SERVER], schemaTimeoutMs: limitMs });
      const run = registry.createRun();
      run.activate(["mcp_slow_double_check"]);
      // Compiled first, so the timed call's limit covers the check alone.
      await run.call("mcp_slow_double_check", deeplyNested(2));
      const wall0 = performance.now();
      const { result, longestMs } = await longestHold(() => run.call("mcp_slow_double_check", deeplyNested(depth)));
      walls.push(performance.now() - wall0);
      const code = (result as { error?: { code?: string } }).error?.code;
      if (code !== "input_schema_too_slow")
        throw new Error(`schema check: an argument ${depth} deep gave ${JSON.stringify(result).slice(0, 300)}`);
      holds.push(longestMs);
    } finally {
      await registry.close();
    }
  }
  return {
    depth,
    limitMs,
    holdMs: round(median(holds), 1),
    callWallMs: round(median(walls), 1),
    code: "input_schema_too_slow",
  };
}

/** The README's paragraph for {@link measureSchemaCheckHold}. */
export function renderSchemaCheckHold(result: SchemaCheckHoldResult): string {
  return [
    "### Slow MCP input schemas and the host's event loop",
    "",
    `A server's input schemas built to be slow, called through the catalog (compiled and checked in the schema check thread) against the same compile and check on the host's thread with the same validator, in the same rounds; the event loop's longest hold (a 1 ms timer's wall time between ticks less the thread's wait for a CPU), medians of ${result.rounds} rounds, a new connection (and compile) each; checked: the tool runs both ways. Load average ${result.loadAverage.join(" / ")} on ${cpus().length} cores.`,
    "",
    "| schema | hold, check thread (ms) | hold, host's thread (ms) | ratio | call's CPU, all threads (ms) |",
    "| --- | --- | --- | --- | --- |",
    ...result.rows.map(
      (row) => `| ${row.schema} | ${row.threadHoldMs} | ${row.hostThreadHoldMs} | ${row.ratio}x | ${row.threadCallCpuMs} |`,
    ),
    "",
    `An argument ${result.deep.depth} deep (2^${result.deep.depth} steps; on the host's thread nothing could stop it), the limit lowered to ${result.deep.limitMs} ms for the bench: the call fails with \`${result.deep.code}\` after ${result.deep.callWallMs} ms, the event loop held ${result.deep.holdMs} ms at most (medians of ${result.rounds}).`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureSchemaCheckHold(Number(process.argv[2] ?? 22), Number(process.argv[3] ?? 3));
  console.log(JSON.stringify(result, null, 2));
  console.log(renderSchemaCheckHold(result));
}
