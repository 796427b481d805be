/**
 * What a multi-file change's transaction costs over writing the same files plainly, restore
 * copies included: each change runs in a child process (file-transaction-child.mjs), under the
 * open-file limit the group tests use (`prlimit`, test/tools/group-*.test.ts), and the same
 * change written four ways is timed in the same rounds, their order rotated each round.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median, round } from "../stats.js";

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const child = path.join(repo, "bench/tools/file-transaction-child.mjs");

/** How the change is written (see file-transaction-child.mjs). */
export const MODES = ["apply_patch", "plain", "flushed", "copies"] as const;
export type Mode = (typeof MODES)[number];

/** One change's shape: `files` files in `dirs` directories (half updated, half added), under `limit` open files. */
export interface TransactionCase {
  readonly name: string;
  readonly files: number;
  readonly dirs: number;
  /** `ulimit -n` of the child (undefined: the host's). */
  readonly limit: number | undefined;
}

/** The grouped change of the group tests (groups of 64 directories at 256) and a one-group 50-file change. */
export const TRANSACTION_CASES: readonly TransactionCase[] = [
  { name: "grouped: 800 files in 400 directories, ulimit -n 256", files: 800, dirs: 400, limit: 256 },
  { name: "one group: 50 files in 10 directories", files: 50, dirs: 10, limit: undefined },
];

/** Medians over the rounds of one case, per mode, and the ratios of apply_patch to the references. */
export interface TransactionCostResult {
  readonly case: TransactionCase;
  readonly rounds: number;
  /** Median CPU (user + system of the child, during the change only) and wall milliseconds per mode. */
  readonly cpuMs: Record<Mode, number>;
  readonly wallMs: Record<Mode, number>;
  /** apply_patch / plain and apply_patch / flushed (CPU and wall). */
  readonly ratioToPlain: { readonly cpu: number; readonly wall: number };
  readonly ratioToFlushed: { readonly cpu: number; readonly wall: number };
  /**
   * The restore copies' own cost as measured by the references: "copies" less "flushed" (a
   * flushed copy of each replaced file), and that as a share of apply_patch's time.
   */
  readonly restoreCopies: {
    readonly cpuMs: number;
    readonly wallMs: number;
    readonly shareOfCpu: number;
    readonly shareOfWall: number;
  };
  /** The 1-minute load average before and after the case's rounds. */
  readonly load: readonly [number, number];
}

function seed(workspace: string, files: number, dirs: number): void {
  rmSync(workspace, { recursive: true, force: true });
  for (let d = 0; d < dirs; d++) mkdirSync(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < files; i += 2) writeFileSync(path.join(workspace, `d${i % dirs}`, `f${i}.txt`), `old ${i}\n`);
  // The seed's dirty pages go to disk now, not during the next timing.
  spawnSync("sync");
}

async function once(workspace: string, shape: TransactionCase, mode: Mode): Promise<{ cpuMs: number; wallMs: number }> {
  seed(workspace, shape.files, shape.dirs);
  const argument = JSON.stringify({ workspace, files: shape.files, dirs: shape.dirs, limit: shape.limit, mode });
  const { stdout } = await run(process.execPath, ["--import", "tsx", child, argument], { cwd: repo, timeout: 600_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as { cpuMs: number; wallMs: number };
}

/** Measures one case over `rounds` rounds, each mode once per round, the order rotated. */
export async function measureTransactionCost(shape: TransactionCase, rounds: number): Promise<TransactionCostResult> {
  const base = mkdtempSync(path.join(tmpdir(), "atc-txcost-"));
  const before = loadavg()[0] as number;
  const samples = new Map<Mode, { cpuMs: number[]; wallMs: number[] }>(MODES.map((mode) => [mode, { cpuMs: [], wallMs: [] }]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < MODES.length; k++) {
        const mode = MODES[(r + k) % MODES.length] as Mode;
        const sample = await once(path.join(base, "w"), shape, mode);
        samples.get(mode)?.cpuMs.push(sample.cpuMs);
        samples.get(mode)?.wallMs.push(sample.wallMs);
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const of = (key: "cpuMs" | "wallMs") =>
    Object.fromEntries(MODES.map((mode) => [mode, round(median(samples.get(mode)?.[key] ?? []), 1)])) as Record<Mode, number>;
  const cpuMs = of("cpuMs");
  const wallMs = of("wallMs");
  const copiesCpu = Math.max(0, cpuMs.copies - cpuMs.flushed);
  const copiesWall = Math.max(0, wallMs.copies - wallMs.flushed);
  return {
    case: shape,
    rounds,
    cpuMs,
    wallMs,
    ratioToPlain: { cpu: round(cpuMs.apply_patch / cpuMs.plain, 2), wall: round(wallMs.apply_patch / wallMs.plain, 2) },
    ratioToFlushed: { cpu: round(cpuMs.apply_patch / cpuMs.flushed, 2), wall: round(wallMs.apply_patch / wallMs.flushed, 2) },
    restoreCopies: {
      cpuMs: round(copiesCpu, 1),
      wallMs: round(copiesWall, 1),
      shareOfCpu: round(copiesCpu / cpuMs.apply_patch, 3),
      shareOfWall: round(copiesWall / wallMs.apply_patch, 3),
    },
    load: [round(before, 2), round(loadavg()[0] as number, 2)],
  };
}

/** The bench section as Markdown. */
export function renderTransactionCost(results: readonly TransactionCostResult[]): string {
  const load = results.flatMap((result) => result.load);
  return [
    "### File tools: what a multi-file transaction costs",
    "",
    `One change (half the files updated, half added) written four ways, each in a child process under the open-file limit shown (\`prlimit\`, as the group tests do), after a warm-up change in the same process; median of ${results[0]?.rounds ?? 0} rounds, the four ways alternated in each round; CPU is the child's user + system during the change only. ` +
      "plain: a temporary file beside each file and a rename over it; flushed: plain with an fsync of every file and directory; copies: flushed plus a flushed copy of each replaced file's old content (what apply_patch's restore copies write). The three references write one file at a time (synchronous calls, each fsync waited for in turn) where apply_patch queues its flushes together, so their wall times, and the restore copies' share of wall, are upper bounds; CPU compares like with like. " +
      `1-minute load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)} on ${cpus().length} cores.`,
    "",
    "| change | apply_patch CPU / wall ms | plain | flushed | copies | apply_patch / plain (CPU, wall) | apply_patch / flushed (CPU, wall) | restore copies: copies - flushed, ms (share of apply_patch) CPU / wall |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...results.map((r) => {
      const cell = (mode: Mode) => `${r.cpuMs[mode]} / ${r.wallMs[mode]}`;
      return `| ${r.case.name} | ${cell("apply_patch")} | ${cell("plain")} | ${cell("flushed")} | ${cell("copies")} | ${r.ratioToPlain.cpu}, ${r.ratioToPlain.wall} | ${r.ratioToFlushed.cpu}, ${r.ratioToFlushed.wall} | ${r.restoreCopies.cpuMs} (${Math.round(r.restoreCopies.shareOfCpu * 100)}%) / ${r.restoreCopies.wallMs} (${Math.round(r.restoreCopies.shareOfWall * 100)}%) |`;
    }),
  ].join("\n");
}
