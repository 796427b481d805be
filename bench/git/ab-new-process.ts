/**
 * Development aid: one git tool call in a new node process, an old and a new build of `dist/`
 * alternately (order swapped each round), with `node -e 0` and the git command timed in the same
 * rounds; wall time and CPU time (user + system, from `/usr/bin/time`) of each whole process.
 * Builds the bench's generated 20,000-commit history once (and its copy with changed-path Bloom
 * filters). The child is the bench's own `cold-call.mjs`, given the `dist/` directory.
 *
 * Usage: `node --import tsx bench/git/ab-new-process.ts <old dist> <new dist> [rounds] [case filter]`
 * (build the old code into a scratch directory: `git archive <commit> | tar -x -C <dir>`, link
 * `node_modules`, `npx tsup` there).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, round } from "../stats.js";
import { benchCases, cachedSyntheticHistory, type GitBenchCase, withChangedPaths } from "./git-bench.js";

const [oldDist, newDist, roundsArgument = "7", filter = ""] = process.argv.slice(2);
if (oldDist === undefined || newDist === undefined)
  throw new Error("usage: ab-new-process.ts <old dist> <new dist> [rounds] [filter]");
const rounds = Number(roundsArgument);
const coldCall = path.join(path.dirname(fileURLToPath(import.meta.url)), "cold-call.mjs");
const timeFile = path.join(mkdtempSync(path.join(tmpdir(), "atc-ab-new-process-")), "time");

/**
 * Wall and CPU milliseconds of one command, run to its end (stdout kept, as a pipe); for the
 * tool's process also the CPU time it reports itself before exiting (finer than `time`'s 10 ms).
 */
function timed(command: string, args: readonly string[]): { wall: number; cpu: number; ownCpu: number } {
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%e %U %S", "-o", timeFile, command, ...args], {
    maxBuffer: 1 << 28,
    encoding: "utf8",
  });
  const wall = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr}`);
  const [, user = 0, system = 0] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1)?.split(" ").map(Number) ?? [];
  const own = /"cpuMs":([0-9.]+)/.exec(result.stdout)?.[1];
  return { wall, cpu: (user + system) * 1000, ownCpu: own === undefined ? Number.NaN : Number(own) };
}

const history = cachedSyntheticHistory(20_000);
const bloom = withChangedPaths(history.directory);
const lines =
  execFileSync("git", ["-C", history.directory, "show", `HEAD:${history.busyFile}`], { encoding: "utf8" }).split("\n").length - 1;
const subject = { ...history, lines };
// Stop 42's rows over 3x of git net of node's start, and the short questions measured before.
const wanted = new Set([
  "log search, message, first 20",
  "log search, message, whole history",
  "log search, pickaxe, new query on a warm cache",
  "diff, HEAD~100 to HEAD",
  `blame, lines 1-${Math.min(400, lines)}`,
  "blame, 7 lines",
  "file history, 200 commits",
  "contributors, one directory",
]);
/** Rows the changed-path Bloom filters can change, measured on the copy that has them too. */
const bloomToo = ["log search, pickaxe, new query", "blame, lines", "file history", "contributors, one directory"];
const cases: { label: string; directory: string; benchCase: GitBenchCase }[] = [];
for (const benchCase of benchCases(subject).filter((one) => wanted.has(one.label))) {
  cases.push({ label: benchCase.label, directory: history.directory, benchCase });
  if (bloomToo.some((prefix) => benchCase.label.startsWith(prefix)))
    cases.push({ label: `${benchCase.label}, Bloom filters`, directory: bloom, benchCase });
}

type Sample = Record<"git" | "node" | "old" | "new", { wall: number; cpu: number; ownCpu: number }>;
const samples = new Map<string, Sample[]>();
const loads: number[] = [];
for (let index = 0; index < rounds; index++) {
  loads.push(loadavg()[0] ?? 0);
  for (const { label, directory, benchCase } of cases.filter((one) => one.label.includes(filter))) {
    const call = (dist: string) =>
      timed(process.execPath, [coldCall, directory, benchCase.tool, JSON.stringify(benchCase.args), dist]);
    const git = timed("git", ["-C", directory, ...benchCase.cli]);
    const node = timed(process.execPath, ["-e", "0"]);
    const [first, second] = index % 2 === 0 ? [oldDist, newDist] : [newDist, oldDist];
    const a = call(first);
    const b = call(second);
    const sample: Sample = { git, node, old: index % 2 === 0 ? a : b, new: index % 2 === 0 ? b : a };
    samples.set(label, [...(samples.get(label) ?? []), sample]);
  }
}
loads.push(loadavg()[0] ?? 0);
rmSync(path.dirname(timeFile), { recursive: true, force: true });

const ms = (value: number) => `${Math.round(value)}`;
console.log(
  `${rounds} rounds, load ${round(Math.min(...loads), 1)}-${round(Math.max(...loads), 1)}; medians, ms (wall / CPU from time; for the tool's processes also the CPU they report)`,
);
console.log("| question | git | node -e 0 | old | new | new/old CPU (paired, own) | new net of node / git (wall) |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const [label, rows] of samples) {
  const pick = (side: keyof Sample, field: "wall" | "cpu" | "ownCpu") => median(rows.map((row) => row[side][field]));
  const own = (side: keyof Sample) => (side === "old" || side === "new" ? ` (${ms(pick(side, "ownCpu"))})` : "");
  const both = (side: keyof Sample) => `${ms(pick(side, "wall"))} / ${ms(pick(side, "cpu"))}${own(side)}`;
  const paired = median(rows.map((row) => row.new.ownCpu / row.old.ownCpu));
  const net = (side: "old" | "new") => round(Math.max(0, pick(side, "wall") - pick("node", "wall")) / pick("git", "wall"), 2);
  console.log(
    `| ${label} | ${both("git")} | ${both("node")} | ${both("old")} | ${both("new")} | ${round(paired, 3)} | ${net("old")}x → ${net("new")}x |`,
  );
}
