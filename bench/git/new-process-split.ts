/**
 * Development aid: where a new process's CPU goes, per bench case. Each round times, on the
 * bench's generated 20,000-commit history, the git command and `node -e 0` (bash's `time`, user +
 * system) and one new node process running `new-process-phases.mjs`, which reports its own CPU per
 * step: node's start, importing the git and root entries, importing the git handler chunk and zlib,
 * building the registry and run, opening the repository, the question; then the same question on
 * a new cache with the code already compiled (outside the total). Every answer is checked
 * against git's (the bench's own `verify`). CPU time, not wall, because the machine is shared.
 *
 * Usage: `node --import tsx bench/git/new-process-split.ts [rounds] [case filter] [dist directory] [baseline dist directory] [result file name]`
 * (the filter: parts of row labels, `|` between alternatives; a baseline, a copy of an earlier
 * build's dist, is timed in the same rounds right after the dist, so a before/after comparison
 * sees the same load) (`npm run build` first); prints a table and writes
 * `bench/results/git-new-process-split.json` (or the result file name given, in bench/results/).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, round } from "../stats.js";
import { benchCases, cachedSyntheticHistory, type GitBenchCase, withChangedPaths } from "./git-bench.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const [roundsArgument = "3", filter = "", distArgument, baselineArgument, resultName = "git-new-process-split.json"] =
  process.argv.slice(2);
const rounds = Number(roundsArgument);
const dist = path.resolve(distArgument ?? path.join(here, "..", "..", "dist"));
const baseline = baselineArgument === undefined || baselineArgument === "" ? undefined : path.resolve(baselineArgument);
const phases = path.join(here, "new-process-phases.mjs");

/** CPU milliseconds (user + system) of one command run to its end, from bash's `time`. */
function cpuOf(command: string, args: readonly string[]): number {
  const timed = execFileSync("bash", ["-c", 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null; } 2>&1', "timed", command, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const [user = Number.NaN, system = Number.NaN] = timed.trim().split(/\s+/).slice(-2).map(Number);
  return (user + system) * 1000;
}

const steps = [
  "startCpuMs",
  "importEntriesCpuMs",
  "importRootCpuMs",
  "importHandlersCpuMs",
  "setupCpuMs",
  "openCpuMs",
  "queryCpuMs",
  "cpuMs",
  "queryWarmCodeCpuMs",
] as const;
type Steps = Record<(typeof steps)[number], number>;

function phasesOf(directory: string, benchCase: GitBenchCase, build = dist): Steps {
  const result = spawnSync(process.execPath, [phases, directory, benchCase.tool, JSON.stringify(benchCase.args), build], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0) throw new Error(`${benchCase.label} in a new process failed: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as Steps & { output: unknown; warmOutput: unknown };
  benchCase.verify(report.output, directory);
  benchCase.verify(report.warmOutput, directory);
  return report;
}

const history = cachedSyntheticHistory(20_000);
const lines =
  execFileSync("git", ["-C", history.directory, "show", `HEAD:${history.busyFile}`], { encoding: "utf8" }).split("\n").length - 1;
const subject = { ...history, lines };
/** Rows the changed-path Bloom filters can change, measured on the copy that has them too. */
const bloomToo = ["log search, pickaxe, new query", "blame, lines", "file history", "contributors, one directory"];
const cases: { label: string; directory: string; benchCase: GitBenchCase }[] = [];
const wanted = filter.split("|");
for (const benchCase of benchCases(subject).filter((one) => wanted.some((part) => one.label.includes(part)))) {
  cases.push({ label: benchCase.label, directory: history.directory, benchCase });
  if (bloomToo.some((prefix) => benchCase.label.startsWith(prefix)))
    cases.push({ label: `${benchCase.label}, Bloom filters`, directory: withChangedPaths(history.directory), benchCase });
}

const samples = new Map<string, { git: number; node: number; tool: Steps; before: Steps | undefined }[]>();
const loads = [loadavg()[0] ?? 0];
for (let index = 0; index < rounds; index++) {
  for (const { label, directory, benchCase } of cases) {
    const git = cpuOf("git", ["-C", directory, ...benchCase.cli]);
    const node = cpuOf(process.execPath, ["-e", "0"]);
    const tool = phasesOf(directory, benchCase);
    const before = baseline === undefined ? undefined : phasesOf(directory, benchCase, baseline);
    samples.set(label, [...(samples.get(label) ?? []), { git, node, tool, before }]);
  }
  loads.push(loadavg()[0] ?? 0);
}

const rows = [...samples].map(([label, runs]) => {
  const pick = (get: (run: (typeof runs)[number]) => number) => round(median(runs.map(get)), 1);
  const git = pick((run) => run.git);
  const tool = Object.fromEntries(steps.map((step) => [step, pick((run) => run.tool[step])])) as Steps;
  const net = tool.cpuMs - tool.startCpuMs;
  const before =
    baseline === undefined
      ? undefined
      : {
          importHandlersCpuMs: pick((run) => run.before?.importHandlersCpuMs ?? Number.NaN),
          openCpuMs: pick((run) => run.before?.openCpuMs ?? Number.NaN),
          queryCpuMs: pick((run) => run.before?.queryCpuMs ?? Number.NaN),
          cpuMs: pick((run) => run.before?.cpuMs ?? Number.NaN),
          queryWarmCodeCpuMs: pick((run) => run.before?.queryWarmCodeCpuMs ?? Number.NaN),
        };
  return {
    label,
    gitCpuMs: git,
    nodeStartCpuMs: pick((run) => run.node),
    ...tool,
    ratio: round(tool.cpuMs / git, 2),
    netOfStartRatio: round(net / git, 2),
    queryRatio: round(tool.queryCpuMs / git, 2),
    queryWarmCodeRatio: round(tool.queryWarmCodeCpuMs / git, 2),
    /** Share of the process outside node's start that is the package's fixed cost (imports, setup, open). */
    fixedShare: round((net - tool.queryCpuMs) / net, 2),
    /** The baseline build's figures, same rounds (when one was given). */
    ...(before === undefined ? {} : { before }),
  };
});
const load = { min: round(Math.min(...loads), 1), max: round(Math.max(...loads), 1), cpus: cpus().length };
const header = `${rounds} rounds, load average ${load.min}-${load.max} on ${load.cpus} CPUs; medians of CPU ms (user + system); every answer checked against git's.`;
console.log(header);
console.log(
  "| question | git | node -e 0 | new process: start | import entries (root's share) | import handlers + zlib | setup | open | query | total (x git; net of start) | query x git | query again, code warm, new cache (x git) |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) {
  if (row.before !== undefined)
    console.log(
      `| ${row.label}, baseline | | | | | ${row.before.importHandlersCpuMs} | | ${row.before.openCpuMs} | ${row.before.queryCpuMs} | ${row.before.cpuMs} | | ${row.before.queryWarmCodeCpuMs} |`,
    );
  console.log(
    `| ${row.label} | ${row.gitCpuMs} | ${row.nodeStartCpuMs} | ${row.startCpuMs} | ${row.importEntriesCpuMs} (${row.importRootCpuMs}) | ${row.importHandlersCpuMs} | ${row.setupCpuMs} | ${row.openCpuMs} | ${row.queryCpuMs} | ${row.cpuMs} (${row.ratio}x; ${row.netOfStartRatio}x) | ${row.queryRatio}x | ${row.queryWarmCodeCpuMs} (${row.queryWarmCodeRatio}x) |`,
  );
}
writeFileSync(
  path.join(here, "..", "results", path.basename(resultName)),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString().slice(0, 10), rounds, load, rows }, null, 2)}\n`,
);
