/**
 * What a gitignored tree of 20,000 directories (`.venv/`, as a Python checkout has) costs grep,
 * against the same workspace without it and against ripgrep on the same tree, in the same rounds.
 * The workspace: a copy of `node_modules/zod` (840 files, 30 directories) and a `.gitignore`
 * naming `.venv/`; the other workspace the same without `.venv`. Measured per round:
 *  - grep's look at the ignore files ripgrep would open (`findUnsafeIgnoreFile`), host CPU: as grep
 *    runs it (ignore rules applied as it walks, `.venv` not entered), and with every directory
 *    entered (no rules: the look before it applied them), and on `node_modules/zod` itself;
 *  - `run.call("grep")` in each workspace, unsandboxed and under bubblewrap (scope `workspace`,
 *    where it can start): the host process's CPU per call (ripgrep and bwrap are children, not in it);
 *  - `rg -n` with the tool's filters on the tree with `.venv`: its CPU (reaped children's), per run.
 * Checked: the look finds nothing unsafe; every call answers with ripgrep (the look found nothing)
 * and prints exactly rg's matching lines. Medians of the rounds, after one call per run not counted.
 *   node --import tsx bench/tools/grep-ignored-tree.ts [rounds]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { constants, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry } from "../../src/index.js";
import { findUnsafeIgnoreFile } from "../../src/tools/fs/grep-ignore-scan.js";
import { readIgnoreFile } from "../../src/tools/fs/grep-javascript.js";
import { createGrepTool } from "../../src/tools/index.js";
import { median, round } from "../stats.js";
import { referenceArguments, sameLines } from "./grep-bench.js";

const PATTERN = "ZodType";
/** rg runs per round: its CPU comes in clock ticks (10 ms), so a run of several is divided. */
const RG_REPEATS = 5;

/** What {@link measureGrepIgnoredTree} measured (ms of CPU, medians of the rounds). */
export interface GrepIgnoredTreeResult {
  readonly skipped?: string;
  readonly rounds: number;
  readonly ignoredDirectories: number;
  readonly matches: number;
  /** The look as grep runs it, in the workspace with `.venv` and without. */
  readonly lookWithMs: number;
  readonly lookWithoutMs: number;
  /** The look entering every directory (no ignore rules), in the workspace with `.venv`. */
  readonly lookEnteringAllMs: number;
  /** The look on `node_modules/zod` (30 directories). */
  readonly lookZodMs: number;
  /** Host CPU per grep call, unsandboxed, with `.venv` and without. */
  readonly grepWithMs: number;
  readonly grepWithoutMs: number;
  /** Host CPU per grep call under bubblewrap (scope `workspace`), with and without; absent where it cannot start. */
  readonly sandboxedWithMs?: number;
  readonly sandboxedWithoutMs?: number;
  readonly sandboxNote?: string;
  /** rg's CPU per run on the tree with `.venv`. */
  readonly rgMs: number;
  readonly engines: readonly string[];
  readonly loadAverage: readonly number[];
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function ticksPerSecond(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** Reaped children's CPU (cutime + cstime of /proc/self/stat), ms. */
function childrenCpuMs(ticks: number): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[13]) + Number(fields[14])) / ticks) * 1000;
}

function rgLines(directory: string): string[] {
  const result = spawnSync(
    "rg",
    [...referenceArguments(), "--line-number", "--with-filename", "--no-heading", "--color", "never", "--regexp", PATTERN],
    { cwd: directory, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] },
  );
  if (result.status !== 0) throw new Error(`rg exited ${result.status}: ${result.stderr}`);
  return result.stdout.replace(/\n$/, "").split("\n");
}

function workspace(base: string, name: string, ignored: number): string {
  const directory = path.join(base, name);
  mkdirSync(directory);
  cpSync(zodDirectory(), path.join(directory, "zod"), { recursive: true });
  writeFileSync(path.join(directory, ".gitignore"), ".venv/\n");
  for (let outer = 0; outer < ignored / 100; outer++)
    for (let inner = 0; inner < 100; inner++)
      mkdirSync(path.join(directory, ".venv", `p${outer}`, `m${inner}`), { recursive: true });
  return directory;
}

function zodDirectory(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "node_modules", "zod");
}

async function look(start: string, applyRules: boolean): Promise<number> {
  const readIgnore = (file: string) => readIgnoreFile((target) => open(target, constants.O_RDONLY | constants.O_NONBLOCK), file);
  const before = cpuMs();
  const unsafe = await findUnsafeIgnoreFile(start, {
    signal: new AbortController().signal,
    root: start,
    ...(applyRules ? { readIgnore } : {}),
  });
  const took = cpuMs() - before;
  if (unsafe !== undefined) throw new Error(`grep-ignored-tree: the look found ${unsafe.absolute} unsafe (${unsafe.reason})`);
  return took;
}

function bubblewrapStarts(): string | undefined {
  if (process.platform !== "linux") return "not Linux";
  const probe = spawnSync("bwrap", ["--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], {
    stdio: "ignore",
  });
  return probe.status === 0 ? undefined : "bubblewrap is missing or cannot start here";
}

/** `rounds` rounds over a `.venv` of `ignored` directories (a multiple of 100). */
export async function measureGrepIgnoredTree(rounds: number, ignored = 20_000): Promise<GrepIgnoredTreeResult> {
  const loadAverage = loadavg();
  if (spawnSync("rg", ["--version"], { stdio: "ignore" }).status !== 0)
    return {
      skipped: "ripgrep (rg) is not installed",
      rounds: 0,
      ignoredDirectories: ignored,
      matches: 0,
      lookWithMs: 0,
      lookWithoutMs: 0,
      lookEnteringAllMs: 0,
      lookZodMs: 0,
      grepWithMs: 0,
      grepWithoutMs: 0,
      rgMs: 0,
      engines: [],
      loadAverage,
    };
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-grep-ignored-")));
  try {
    const withVenv = workspace(base, "with", ignored);
    const withoutVenv = workspace(base, "without", 0);
    const sandboxNote = bubblewrapStarts();
    const sandboxes = sandboxNote === undefined ? (["unrestricted", "workspace"] as const) : (["unrestricted"] as const);
    const runs = new Map<string, ReturnType<ReturnType<typeof createRegistry>["createRun"]>>();
    for (const sandbox of sandboxes)
      for (const [label, directory] of [
        ["with", withVenv],
        ["without", withoutVenv],
      ] as const)
        runs.set(
          `${sandbox}/${label}`,
          createRegistry({ tools: [createGrepTool()] }).createRun({
            profile: "full",
            permissions: { workspace: directory, sandbox },
            condenseThreshold: Number.POSITIVE_INFINITY,
          }),
        );
    const reference = rgLines(withVenv);
    if (!sameLines(reference, rgLines(withoutVenv)))
      throw new Error("grep-ignored-tree: rg's lines differ with and without .venv");
    // One call per run before the rounds: the tool's first call compiles and starts what later ones reuse.
    for (const run of runs.values()) await run.call("grep", { pattern: PATTERN, max_results: 5000 });
    const times = new Map<string, number[]>();
    const add = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
    const engines = new Set<string>();
    const ticks = ticksPerSecond();
    for (let round = 0; round < rounds; round++) {
      add("lookWith", await look(withVenv, true));
      add("lookWithout", await look(withoutVenv, true));
      add("lookEnteringAll", await look(withVenv, false));
      add("lookZod", await look(zodDirectory(), true));
      for (const [key, run] of runs) {
        const before = cpuMs();
        const result = await run.call("grep", { pattern: PATTERN, max_results: 5000 });
        add(key, cpuMs() - before);
        if (!result.ok) throw new Error(`grep-ignored-tree: grep failed (${key}): ${result.error.message}`);
        const lines = String(result.output).split("\n");
        const engine = (lines.at(-1) ?? "").replace(/^\[engine: (.*)\]$/, "$1");
        engines.add(engine);
        if (!engine.startsWith("ripgrep")) throw new Error(`grep-ignored-tree: ${key} answered with ${engine}`);
        if (!sameLines(lines.slice(0, -1), reference)) throw new Error(`grep-ignored-tree: ${key} printed other lines than rg`);
      }
      const before = childrenCpuMs(ticks);
      for (let repeat = 0; repeat < RG_REPEATS; repeat++) rgLines(withVenv);
      add("rg", (childrenCpuMs(ticks) - before) / RG_REPEATS);
    }
    const at = (key: string) => round(median(times.get(key) ?? [Number.NaN]), 1);
    return {
      rounds,
      ignoredDirectories: ignored,
      matches: reference.length,
      lookWithMs: at("lookWith"),
      lookWithoutMs: at("lookWithout"),
      lookEnteringAllMs: at("lookEnteringAll"),
      lookZodMs: at("lookZod"),
      grepWithMs: at("unrestricted/with"),
      grepWithoutMs: at("unrestricted/without"),
      ...(sandboxNote === undefined
        ? { sandboxedWithMs: at("workspace/with"), sandboxedWithoutMs: at("workspace/without") }
        : { sandboxNote }),
      rgMs: at("rg"),
      engines: [...engines],
      loadAverage,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** The section as Markdown. */
export function renderGrepIgnoredTree(result: GrepIgnoredTreeResult): string {
  const title = "### grep and a gitignored tree";
  if (result.skipped !== undefined) return [title, "", `Skipped: ${result.skipped}.`].join("\n");
  const sandboxed =
    result.sandboxedWithMs === undefined
      ? `| under bubblewrap | not run: ${result.sandboxNote} | | |`
      : `| \`run.call("grep")\` under bubblewrap (\`workspace\`), host CPU | ${result.sandboxedWithMs} | ${result.sandboxedWithoutMs} | ${round((result.sandboxedWithMs as number) - (result.sandboxedWithoutMs as number), 1)} |`;
  return [
    title,
    "",
    `A copy of \`node_modules/zod\` (840 files, 30 directories) with a \`.gitignore\` naming \`.venv/\` and ${result.ignoredDirectories.toLocaleString("en-US")} directories under \`.venv\`, ` +
      `against the same workspace without \`.venv\`, in the same rounds; pattern \`${PATTERN}\`, ${result.matches} matches. ` +
      `ms of CPU, medians of ${result.rounds} rounds; load average ${result.loadAverage.map((value) => value.toFixed(1)).join(" / ")}. ` +
      "Checked: the look finds nothing unsafe, every call answers with ripgrep and prints exactly rg's lines. The look: grep's walk over the ignore files ripgrep would open (`findUnsafeIgnoreFile`).",
    "",
    "| what | with `.venv` | without | added |",
    "| --- | ---: | ---: | ---: |",
    `| the look, ignore rules applied as it walks | ${result.lookWithMs} | ${result.lookWithoutMs} | ${round(result.lookWithMs - result.lookWithoutMs, 1)} |`,
    `| the look entering every directory (no rules) | ${result.lookEnteringAllMs} | | |`,
    `| \`run.call("grep")\` unsandboxed, host CPU | ${result.grepWithMs} | ${result.grepWithoutMs} | ${round(result.grepWithMs - result.grepWithoutMs, 1)} |`,
    sandboxed,
    `| \`rg -n\` with the tool's filters (its CPU) | ${result.rgMs} | | |`,
    `| the look on \`node_modules/zod\` itself | ${result.lookZodMs} | | |`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureGrepIgnoredTree(Number(process.argv[2] ?? 3));
  console.log(JSON.stringify(result, null, 2));
  console.log(renderGrepIgnoredTree(result));
}
