/**
 * What the descriptor scan a stdio MCP server's spawn makes (src/mcp/transports/
 * inherited-descriptors.ts) costs when the host holds many descriptors without close-on-exec: a
 * host child (inherited-descriptors-host.mjs) is started with `count` of them, and times, in the
 * same rounds, a plain spawn and the catalog's spawn of /bin/true, and the scan alone.
 */
import { type StdioOptions, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { round } from "../stats.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const host = path.join(repo, "bench/mcp/inherited-descriptors-host.mjs");

interface Timing {
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** One descriptor count's medians (host CPU and wall, ms) and ratios to the plain spawn. */
export interface SpawnDescriptorsResult {
  /** Descriptors the host was started with (fd 20 up, none close-on-exec). */
  readonly descriptors: number;
  /** How many the scan found (the host's own close-on-exec ones not counted). */
  readonly found: number;
  readonly rounds: number;
  readonly plain: Timing;
  readonly closing: Timing;
  readonly scan: Timing;
  /** closing / plain (CPU, wall). */
  readonly ratio: Timing;
  readonly load: readonly number[];
}

/** Starts a host with `count` inherited descriptors (all on one file) and has it time `rounds` rounds. */
export async function measureSpawnDescriptors(count: number, rounds: number): Promise<SpawnDescriptorsResult> {
  // One descriptor of this process per inherited one (several numbers on one descriptor would make
  // libuv copy each first in the child, and 10,000 of them pass a 20,000 limit).
  const fds = Array.from({ length: count }, () => openSync("/dev/null", "r"));
  try {
    // From fd 20 up, after a gap: Node marks close-on-exec every descriptor of the unbroken run from
    // 0 it starts with (libuv's uv_disable_stdio_inheritance stops at the first closed one past 15),
    // so descriptors right after 0-2 would not stay inheritable in the host.
    const stdio: StdioOptions = ["ignore", "pipe", "inherit", ...Array<"ignore">(17).fill("ignore"), ...fds];
    const child = spawn(process.execPath, ["--import", "tsx", host, JSON.stringify({ rounds })], { cwd: repo, stdio });
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    if (code !== 0) throw new Error(`the descriptor host exited with ${code}`);
    const result = JSON.parse(stdout.trim().split("\n").at(-1) as string) as {
      inherited: number;
      plain: Timing;
      closing: Timing;
      scan: Timing;
    };
    const r = (t: Timing): Timing => ({ cpuMs: round(t.cpuMs, 3), wallMs: round(t.wallMs, 3) });
    return {
      descriptors: count,
      found: result.inherited,
      rounds,
      plain: r(result.plain),
      closing: r(result.closing),
      scan: r(result.scan),
      ratio: {
        cpuMs: round(result.closing.cpuMs / result.plain.cpuMs, 2),
        wallMs: round(result.closing.wallMs / result.plain.wallMs, 2),
      },
      load: loadavg().map((value) => round(value, 2)),
    };
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** The bench section as Markdown. */
export function renderSpawnDescriptors(results: readonly SpawnDescriptorsResult[]): string {
  const load = results.map((result) => result.load[0] as number);
  return [
    "### MCP: spawning a stdio server from a host with inherited descriptors",
    "",
    `A host process started with N descriptors open without close-on-exec (from fd 20 up) spawns /bin/true until it exits: plainly, and as a stdio MCP server is spawned (the descriptor scan, then \`/dev/null\` put over each inherited one); and the scan alone. found: the descriptors the scan covers (with more than 256 open it reads no flags and covers every open one from 3 up, the host's own close-on-exec ones included). Host CPU (user + system) and wall, median of ${results[0]?.rounds ?? 0} alternated rounds; 1-minute load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)} on ${cpus().length} cores.`,
    "",
    "| inherited descriptors | found | plain spawn CPU / wall ms | MCP spawn CPU / wall ms | scan alone CPU / wall ms | MCP / plain (CPU, wall) |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ...results.map(
      (r) =>
        `| ${r.descriptors} | ${r.found} | ${r.plain.cpuMs.toFixed(1)} / ${r.plain.wallMs.toFixed(1)} | ${r.closing.cpuMs.toFixed(1)} / ${r.closing.wallMs.toFixed(1)} | ${r.scan.cpuMs.toFixed(1)} / ${r.scan.wallMs.toFixed(1)} | ${r.ratio.cpuMs}, ${r.ratio.wallMs} |`,
    ),
  ].join("\n");
}
