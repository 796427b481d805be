/**
 * What starting a command under bubblewrap costs, against a plain spawn of the same command in the
 * same rounds: `true` started from this process (`child_process.spawn`, waited for), under a bare
 * `bwrap` (new namespaces, `/` read-only, its own `/dev` and `/proc`), and through the sandbox
 * driver (`BubblewrapSandbox` scope `workspace` with `runSandboxed`, as `bash` runs a command:
 * launcher, git-state scan, mount check, seccomp filter), without resource limits and, where this
 * host can enforce them, with (a cgroup per command). CPU is this process's (user + system) plus
 * its reaped children's (`/proc/self/stat` cutime + cstime, whole runs of `starts` so their clock
 * ticks add up), per start; wall per start; medians of the rounds, the kinds interleaved. Checked:
 * every start exits 0; a host directory outside the workspace that a plain spawn writes is not
 * written from either bwrap, and the driver's command writes its workspace. Without bubblewrap (or
 * where the sandbox cannot start) it is skipped and says so.
 *   node --import tsx bench/tools/bwrap-start.ts [starts] [rounds]
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { SandboxUnavailableError } from "../../src/tools/sandbox/sandbox-unavailable-error.js";
import { median, round } from "../stats.js";

/** One way of starting `true`: medians of the rounds, per start. */
export interface StartCost {
  readonly kind: string;
  /** CPU of this process and its children per start, ms. */
  readonly cpuMs: number;
  /** Wall time per start, ms. */
  readonly wallMs: number;
  /** cpuMs / the plain spawn's (paired per round, median). */
  readonly cpuRatio: number;
  /** cpuMs - the plain spawn's (paired per round, median): what the sandbox adds. */
  readonly addedCpuMs: number;
  readonly addedWallMs: number;
}

/** What {@link measureBwrapStart} measured; `skipped` names why nothing was. */
export interface BwrapStartResult {
  readonly skipped?: string;
  readonly starts: number;
  readonly rounds: number;
  readonly rows: readonly StartCost[];
  /** Why the "with limits" row is missing, if it is. */
  readonly limitsNote?: string;
  readonly loadAverage: readonly number[];
}

const BARE_BWRAP = ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];

function ticksPerSecond(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** This process's CPU plus its reaped children's, ms. */
function cpuWithChildren(ticks: number): number {
  // Fields after the command name's closing parenthesis: cutime and cstime are fields 16 and 17.
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const children = (Number(fields[13]) + Number(fields[14])) / ticks;
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + children * 1000;
}

function plainStart(command: string, args: readonly string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "ignore" });
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
}

/**
 * Checked: both bwraps are sandboxes. A host directory outside the workspace that a plain spawn
 * writes (the control) is not written from either; the driver's command writes its workspace.
 */
async function checkConfinement(
  driver: (sandbox: BubblewrapSandbox, command?: string, args?: string[]) => Promise<number | null>,
  sandbox: BubblewrapSandbox,
  workspace: string,
  outside: string,
): Promise<void> {
  const touch = (name: string) => ["-c", `touch '${outside}/${name}' 2>/dev/null; exit 0`];
  await plainStart("sh", touch("plain"));
  await plainStart("bwrap", [...BARE_BWRAP, "sh", ...touch("bare")]);
  await driver(sandbox, "sh", touch("driver"));
  await driver(sandbox, "sh", ["-c", "touch inside"]);
  if (!existsSync(path.join(outside, "plain")) || !existsSync(path.join(workspace, "inside")))
    throw new Error("bwrap-start: the controls wrote nothing (a plain spawn outside, the driver's command in its workspace)");
  if (existsSync(path.join(outside, "bare")) || existsSync(path.join(outside, "driver")))
    throw new Error("bwrap-start: a sandboxed command wrote a host directory outside its workspace");
}

/** Starts `true` `starts` times each way, `rounds` rounds, interleaved. */
export async function measureBwrapStart(starts = 20, rounds = 3): Promise<BwrapStartResult> {
  const loadAverage = () => loadavg().map((value) => round(value, 1));
  if (process.platform !== "linux" || spawnSync("bwrap", ["--version"]).status !== 0)
    return { skipped: "no bwrap on this machine", starts, rounds, rows: [], loadAverage: loadAverage() };
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-bwrap-start-")));
  const outside = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-bwrap-start-outside-")));
  try {
    let unlimited: BubblewrapSandbox;
    let limited: BubblewrapSandbox;
    try {
      unlimited = new BubblewrapSandbox({ scope: "workspace", workspace, limits: false });
      limited = new BubblewrapSandbox({ scope: "workspace", workspace });
    } catch (error) {
      return { skipped: `the sandbox cannot start here: ${String(error)}`, starts, rounds, rows: [], loadAverage: loadAverage() };
    }
    const limitsNote = limited.resourceLimits.enforced
      ? undefined
      : `limits not enforced here: ${limited.resourceLimits.reason ?? "no cgroup"}`;
    const driver = async (sandbox: BubblewrapSandbox, command = "true", args: string[] = []) =>
      (await runSandboxed(sandbox, { command, args, cwd: workspace })).exitCode;
    try {
      await checkConfinement(driver, unlimited, workspace, outside);
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) throw error;
      return { skipped: `the sandbox cannot start here: ${error.message}`, starts, rounds, rows: [], loadAverage: loadAverage() };
    }
    const kinds: { kind: string; start: () => Promise<number | null> }[] = [
      { kind: "plain spawn of `true`", start: () => plainStart("true", []) },
      { kind: "bare `bwrap ... true`", start: () => plainStart("bwrap", [...BARE_BWRAP, "true"]) },
      { kind: "driver, no limits", start: () => driver(unlimited) },
    ];
    if (limitsNote === undefined) kinds.push({ kind: "driver, with limits (cgroup)", start: () => driver(limited) });
    for (const { start } of kinds) await start(); // warm: code compiled, files cached
    const ticks = ticksPerSecond();
    const cpu = new Map<string, number[]>(kinds.map(({ kind }) => [kind, []]));
    const wall = new Map<string, number[]>(kinds.map(({ kind }) => [kind, []]));
    for (let round_ = 0; round_ < rounds; round_++)
      for (const { kind, start } of round_ % 2 === 0 ? kinds : [...kinds].reverse()) {
        const cpu0 = cpuWithChildren(ticks);
        const wall0 = performance.now();
        for (let i = 0; i < starts; i++) {
          const code = await start();
          if (code !== 0) throw new Error(`bwrap-start: ${kind} exited ${String(code)}`);
        }
        wall.get(kind)?.push((performance.now() - wall0) / starts);
        cpu.get(kind)?.push((cpuWithChildren(ticks) - cpu0) / starts);
      }
    const reference = kinds[0]?.kind as string;
    const paired = (values: Map<string, number[]>, kind: string, f: (a: number, b: number) => number) =>
      median((values.get(kind) ?? []).map((value, i) => f(value, values.get(reference)?.[i] ?? Number.NaN)));
    const rows = kinds.map(({ kind }) => ({
      kind,
      cpuMs: round(median(cpu.get(kind) ?? []), 2),
      wallMs: round(median(wall.get(kind) ?? []), 2),
      cpuRatio: round(
        paired(cpu, kind, (a, b) => a / b),
        2,
      ),
      addedCpuMs: round(
        paired(cpu, kind, (a, b) => a - b),
        2,
      ),
      addedWallMs: round(
        paired(wall, kind, (a, b) => a - b),
        2,
      ),
    }));
    return { starts, rounds, rows, ...(limitsNote === undefined ? {} : { limitsNote }), loadAverage: loadAverage() };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
}

/** The README's paragraph for {@link measureBwrapStart}. */
export function renderBwrapStart(result: BwrapStartResult): string {
  const title = "### Starting a command under bubblewrap";
  if (result.skipped !== undefined) return [title, "", `Not measured: ${result.skipped}.`].join("\n");
  return [
    title,
    "",
    `\`true\` started ${result.starts} times in a row each way, ${result.rounds} rounds, the ways interleaved; CPU is the bench process's and its children's (bwrap, the launcher, the command), per start; the ratio and the added cost are against the plain spawn of the same round (medians); checked: every start exits 0, a host directory outside the workspace that a plain spawn writes is not written from either bwrap, the driver's command writes its workspace. Bare bwrap: new namespaces, \`/\` read-only, its own \`/dev\` and \`/proc\`. Driver: \`BubblewrapSandbox\` scope \`workspace\` with \`runSandboxed\`, as \`bash\` runs a command. Load average ${result.loadAverage.join(" / ")} on ${cpus().length} cores.${result.limitsNote === undefined ? "" : ` (${result.limitsNote}.)`}`,
    "",
    "| start | CPU per start (ms) | wall per start (ms) | CPU / plain spawn | CPU added (ms) | wall added (ms) |",
    "| --- | --- | --- | --- | --- | --- |",
    ...result.rows.map(
      (row) => `| ${row.kind} | ${row.cpuMs} | ${row.wallMs} | ${row.cpuRatio}x | ${row.addedCpuMs} | ${row.addedWallMs} |`,
    ),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureBwrapStart(Number(process.argv[2] ?? 20), Number(process.argv[3] ?? 3));
  console.log(JSON.stringify(result, null, 2));
  console.log(renderBwrapStart(result));
}
