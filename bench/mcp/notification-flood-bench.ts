/**
 * What MCP notification floods cost the host (red team rounds 12 and 39), each against the same
 * server without the flood, in the same rounds:
 *  - during a call: a stdio server (the SDK's McpServer, test/mcp/servers/notification-flood-server.mjs)
 *    whose call sends `count` notifications of one kind before it answers, against the same call
 *    sending none. Host CPU (this process, user + system) per call, medians of the rounds, kinds
 *    interleaved. Checked: every call's answer arrives (`flooded <count>`).
 *  - `tools/list_changed` in a loop: a server of 4,000 tools sending it every 120 ms
 *    (test/mcp/servers/list-changed-flood-server.mjs), against the same server never sending it,
 *    both connected for the same window; the host's CPU over the window's wall time (its busy
 *    share), medians of the rounds. Checked: the flooding server's tools were re-listed
 *    (`tools.refreshed`) and the quiet one's never.
 *   node --import tsx bench/mcp/notification-flood-bench.ts [count] [rounds]
 */
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry } from "../../src/index.js";
import { connectMcpServer } from "../../src/mcp/index.js";
import { median, round } from "../stats.js";

const servers = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "mcp", "servers");
const FLOOD_SERVER = path.join(servers, "notification-flood-server.mjs");
const LIST_CHANGED_SERVER = path.join(servers, "list-changed-flood-server.mjs");

/**
 * Notification kinds the flood server sends: one the host acts on (coalesced), and two it drops
 * (progress, whose SDK path was the dearest, and an unknown method; logging costs as the latter).
 */
export const FLOOD_KINDS = ["progress", "list_changed", "unknown"] as const;

/** One kind's medians. */
export interface FloodRow {
  readonly kind: string;
  /** Host CPU of the call with the flood, ms. */
  readonly floodCpuMs: number;
  /** Host CPU of the same call sending no notification, same rounds, ms. */
  readonly quietCpuMs: number;
  /** floodCpuMs - quietCpuMs, paired per round, median: the flood's cost. */
  readonly addedCpuMs: number;
  /** Wall time of the call with the flood, ms. */
  readonly floodWallMs: number;
}

/** The list_changed loop's figures. */
export interface ListChangedLoop {
  readonly tools: number;
  readonly intervalMs: number;
  readonly windowMs: number;
  /** Host CPU over wall time with the flooding server connected (median of the rounds). */
  readonly floodShare: number;
  /** The same with the server that never sends it. */
  readonly quietShare: number;
  /** Refreshes seen in each flooding window. */
  readonly refreshes: readonly number[];
}

/** What {@link measureNotificationFlood} measured. */
export interface NotificationFloodResult {
  readonly count: number;
  readonly rounds: number;
  readonly rows: readonly FloodRow[];
  readonly listChanged: ListChangedLoop;
  readonly loadAverage: readonly number[];
}

function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

async function callFloods(count: number, rounds: number): Promise<FloodRow[]> {
  const registry = createRegistry();
  try {
    await connectMcpServer(registry, { name: "flood", command: process.execPath, args: [FLOOD_SERVER], timeoutMs: 120_000 });
    const run = registry.createRun();
    run.activate(["mcp_flood_flood"]);
    const call = async (kind: string, n: number) => {
      const cpu0 = cpuMs();
      const wall0 = performance.now();
      const result = await run.call("mcp_flood_flood", { kind, count: n });
      const spent = { cpu: cpuMs() - cpu0, wall: performance.now() - wall0 };
      if (!JSON.stringify(result).includes(`flooded ${n}`))
        throw new Error(`notification flood: ${kind}'s call did not answer: ${JSON.stringify(result).slice(0, 300)}`);
      return spent;
    };
    // Warm up (JIT, connection) so that the first kind does not pay for it.
    await call("unknown", 1_000);
    await call("unknown", 0);
    const flood = new Map<string, { cpu: number; wall: number }[]>();
    const quiet = new Map<string, number[]>();
    for (let r = 0; r < rounds; r++)
      for (const kind of r % 2 === 0 ? FLOOD_KINDS : [...FLOOD_KINDS].reverse()) {
        quiet.set(kind, [...(quiet.get(kind) ?? []), (await call(kind, 0)).cpu]);
        flood.set(kind, [...(flood.get(kind) ?? []), await call(kind, count)]);
      }
    return FLOOD_KINDS.map((kind) => {
      const loud = flood.get(kind) ?? [];
      const calm = quiet.get(kind) ?? [];
      return {
        kind,
        floodCpuMs: round(median(loud.map((one) => one.cpu)), 1),
        quietCpuMs: round(median(calm), 1),
        addedCpuMs: round(median(loud.map((one, i) => one.cpu - (calm[i] ?? Number.NaN))), 1),
        floodWallMs: round(median(loud.map((one) => one.wall)), 1),
      };
    });
  } finally {
    await registry.close();
  }
}

/** The host's busy share over `windowMs` with a 4,000-tool server sending list_changed every `intervalMs` (0: never). */
async function listChangedWindow(
  tools: number,
  intervalMs: number,
  windowMs: number,
): Promise<{ share: number; refreshes: number }> {
  const registry = createRegistry();
  try {
    const handle = await connectMcpServer(registry, {
      name: "flood",
      command: process.execPath,
      args: [LIST_CHANGED_SERVER, String(tools), String(intervalMs)],
    });
    let refreshes = 0;
    handle.events.on("tools.refreshed", () => {
      refreshes++;
    });
    const cpu0 = cpuMs();
    const wall0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    return { share: (cpuMs() - cpu0) / (performance.now() - wall0), refreshes };
  } finally {
    await registry.close();
  }
}

async function listChangedLoop(rounds: number, windowMs: number): Promise<ListChangedLoop> {
  const tools = 4_000;
  const intervalMs = 120;
  const flood: number[] = [];
  const quiet: number[] = [];
  const refreshes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const loud = await listChangedWindow(tools, intervalMs, windowMs);
    const calm = await listChangedWindow(tools, 0, windowMs);
    if (loud.refreshes === 0) throw new Error("notification flood: the list_changed server's tools were never re-listed");
    if (calm.refreshes !== 0) throw new Error("notification flood: the quiet server's tools were re-listed");
    flood.push(loud.share);
    quiet.push(calm.share);
    refreshes.push(loud.refreshes);
  }
  return {
    tools,
    intervalMs,
    windowMs,
    floodShare: round(median(flood), 3),
    quietShare: round(median(quiet), 3),
    refreshes,
  };
}

/** Both cases, `rounds` rounds each. */
export async function measureNotificationFlood(count = 100_000, rounds = 3, windowMs = 3_500): Promise<NotificationFloodResult> {
  const rows = await callFloods(count, rounds);
  const listChanged = await listChangedLoop(rounds, windowMs);
  return { count, rounds, rows, listChanged, loadAverage: loadavg().map((value) => round(value, 1)) };
}

/** The README's paragraph for {@link measureNotificationFlood}. */
export function renderNotificationFlood(result: NotificationFloodResult): string {
  const loop = result.listChanged;
  return [
    "### MCP notification floods",
    "",
    `A stdio server (the SDK's McpServer) whose call sends ${result.count.toLocaleString("en-US")} notifications of one kind before it answers, against the same call sending none, in the same rounds; host CPU (this process) per call, medians of ${result.rounds} rounds; checked: every call's answer arrives. Load average ${result.loadAverage.join(" / ")} on ${cpus().length} cores.`,
    "",
    "| kind | host CPU with the flood (ms) | without (ms) | added by the flood (ms) | call's wall time (ms) |",
    "| --- | --- | --- | --- | --- |",
    ...result.rows.map(
      (row) => `| ${row.kind} | ${row.floodCpuMs} | ${row.quietCpuMs} | ${row.addedCpuMs} | ${row.floodWallMs} |`,
    ),
    "",
    `\`tools/list_changed\` in a loop: a server of ${loop.tools.toLocaleString("en-US")} tools sending it every ${loop.intervalMs} ms, connected for ${loop.windowMs / 1000} s, against the same server never sending it: the host's CPU over wall time ${loop.floodShare} against ${loop.quietShare} (medians of ${result.rounds}; ${loop.refreshes.join(", ")} refreshes in the windows; checked: the quiet server's tools were never re-listed).`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureNotificationFlood(Number(process.argv[2] ?? 100_000), Number(process.argv[3] ?? 3));
  console.log(JSON.stringify(result, null, 2));
  console.log(renderNotificationFlood(result));
}
