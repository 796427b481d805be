import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createGitCache, createGitTools, GIT_TOOL_NAMES, type GitCache } from "../../src/git/index.js";
import { median, round } from "../stats.js";
import { writeSyntheticHistory } from "./synthetic-history.js";

/** One tool call and the git command that answers the same question. */
export interface GitBenchCase {
  /** A short name for the row. */
  readonly label: string;
  /** The tool. */
  readonly tool: (typeof GIT_TOOL_NAMES)[number];
  /** Its arguments. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The git CLI arguments of the equivalent command. */
  readonly cli: readonly string[];
  /** Arguments of a different call that warms the cache before the warm timing, when the warm call should not repeat the cold one. */
  readonly warmUpArgs?: Readonly<Record<string, unknown>>;
}

/** Timings of one case, in milliseconds (medians). */
export interface GitBenchMeasurement {
  /** The case's label. */
  readonly label: string;
  /** The tool. */
  readonly tool: string;
  /** The git command, for the report. */
  readonly command: string;
  /** The git CLI: process start included, as an agent calling git would pay it. */
  readonly cliMs: number;
  /** The tool's first call with an empty cache (JIT already warm). */
  readonly coldMs: number;
  /** The tool's call after the cache was warmed. */
  readonly warmMs: number;
  /** coldMs / cliMs. */
  readonly coldRatio: number;
  /** warmMs / cliMs. */
  readonly warmRatio: number;
}

/** The result of a git benchmark run. */
export interface GitBenchResult {
  /** The repository measured. */
  readonly repository: { readonly path: string; readonly commits: number; readonly synthetic: boolean };
  /** The git version compared against. */
  readonly gitVersion: string;
  /** Runs per measurement (the median is reported). */
  readonly runs: number;
  /** One row per case. */
  readonly measurements: readonly GitBenchMeasurement[];
}

/** Options of {@link runGitBench} and {@link runGitBenchOnRepository}. */
export interface GitBenchOptions {
  /** Runs per measurement. @defaultValue 5 */
  readonly runs?: number;
  /** Commits of the generated repository ({@link runGitBench} only). @defaultValue 10000 */
  readonly commits?: number;
}

function gitText(directory: string, args: readonly string[]): string {
  return execFileSync("git", ["-C", directory, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
}

function timeCli(directory: string, args: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync("git", ["-C", directory, ...args], { maxBuffer: 256 * 1024 * 1024 });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  return elapsed;
}

function newRun(directory: string, cache: GitCache = createGitCache()) {
  const run = createRegistry({ tools: createGitTools({ cache }) }).createRun({ permissions: { workspace: directory } });
  run.activate([...GIT_TOOL_NAMES]);
  return run;
}

/** Collects garbage when node runs with --expose-gc (as `npm run bench` does), so one case's heap does not slow the next. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function check(result: ToolCallResult, label: string): void {
  if (!result.ok) throw new Error(`${label} failed: ${JSON.stringify(result.error)}`);
}

async function measureCase(directory: string, benchCase: GitBenchCase, runs: number): Promise<GitBenchMeasurement> {
  const cli: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  for (let index = 0; index < runs; index++) {
    cli.push(timeCli(directory, benchCase.cli));
    const cache = createGitCache();
    const run = newRun(directory, cache);
    collectGarbage();
    let started = performance.now();
    check(await run.call(benchCase.tool, benchCase.args), benchCase.label);
    cold.push(performance.now() - started);
    if (benchCase.warmUpArgs !== undefined) {
      cache.clear();
      check(await run.call(benchCase.tool, benchCase.warmUpArgs), benchCase.label);
    }
    started = performance.now();
    check(await run.call(benchCase.tool, benchCase.args), benchCase.label);
    warm.push(performance.now() - started);
    cache.clear();
  }
  const [cliMs, coldMs, warmMs] = [median(cli), median(cold), median(warm)];
  return {
    label: benchCase.label,
    tool: benchCase.tool,
    command: `git ${benchCase.cli.join(" ")}`,
    cliMs: round(cliMs, 1),
    coldMs: round(coldMs, 1),
    warmMs: round(warmMs, 1),
    coldRatio: round(coldMs / cliMs, 2),
    warmRatio: round(warmMs / cliMs, 2),
  };
}

/** Measures `cases` on the repository at `directory`. */
export async function measureGitCases(
  directory: string,
  cases: readonly GitBenchCase[],
  options: GitBenchOptions & { readonly synthetic: boolean },
): Promise<GitBenchResult> {
  const runs = options.runs ?? 5;
  // One pass first, so that "cold" measures an empty cache, not a cold JIT.
  const warmUp = newRun(directory);
  for (const benchCase of cases) check(await warmUp.call(benchCase.tool, benchCase.args), benchCase.label);
  const measurements: GitBenchMeasurement[] = [];
  for (const benchCase of cases) measurements.push(await measureCase(directory, benchCase, runs));
  return {
    repository: {
      path: directory,
      commits: Number(gitText(directory, ["rev-list", "--count", "HEAD"]).trim()),
      synthetic: options.synthetic,
    },
    gitVersion: gitText(directory, ["--version"]).trim(),
    runs,
    measurements,
  };
}

/** What the cases are built from: a file with a long history, a rare string in it, a word in commit messages. */
export interface GitBenchSubject {
  /** A file that many commits changed. */
  readonly busyFile: string;
  /** Its lines at HEAD (blame covers up to 400). */
  readonly lines: number;
  /** A string few commits add or remove. */
  readonly rareToken: string;
  /** A word in some commit messages. */
  readonly messageWord: string;
  /** A second, more common string, searched on a cache warmed by the first. @defaultValue "cache_" */
  readonly otherToken?: string;
  /** How far back the diff case starts. @defaultValue 100 */
  readonly diffDistance?: number;
}

function searchCases(subject: GitBenchSubject): GitBenchCase[] {
  const { rareToken, messageWord } = subject;
  const other = subject.otherToken ?? "cache_";
  return [
    {
      label: "log search, message, first 20",
      tool: "git_log_search",
      args: { query: messageWord, mode: "message" },
      cli: ["log", "-i", "-F", `--grep=${messageWord}`, "-n", "21", "--format=%H"],
    },
    {
      label: "log search, message, whole history",
      tool: "git_log_search",
      args: { query: "no such message", mode: "message" },
      cli: ["log", "-i", "-F", "--grep=no such message", "--format=%H"],
    },
    {
      label: "log search, pickaxe, whole history",
      tool: "git_log_search",
      args: { query: rareToken, mode: "pickaxe", max_results: 200 },
      cli: ["log", `-S${rareToken}`, "--diff-merges=first-parent", "-s", "-n", "201", "--format=%H"],
    },
    {
      label: "log search, pickaxe, new query on a warm cache",
      tool: "git_log_search",
      args: { query: other, mode: "pickaxe", max_results: 200 },
      warmUpArgs: { query: rareToken, mode: "pickaxe", max_results: 200 },
      cli: ["log", `-S${other}`, "--diff-merges=first-parent", "-s", "-n", "201", "--format=%H"],
    },
  ];
}

function fileCases(subject: GitBenchSubject): GitBenchCase[] {
  const { busyFile } = subject;
  const lines = Math.min(400, subject.lines);
  const back = `HEAD~${subject.diffDistance ?? 100}`;
  const numstatFormat = "--format=%H%x00%ae%x00%an%x00%at";
  return [
    {
      label: "file history, 200 commits",
      tool: "git_file_history",
      args: { path: busyFile, max_results: 200 },
      cli: ["log", "--follow", "--diff-merges=first-parent", "--numstat", "-n", "201", "--format=%H", "--", busyFile],
    },
    {
      label: `blame, lines 1-${lines}`,
      tool: "git_blame_context",
      args: { path: busyFile, start_line: 1, end_line: lines, context: 0 },
      cli: ["blame", "--porcelain", "-L", `1,${lines}`, "HEAD", "--", busyFile],
    },
    {
      label: "blame, 7 lines",
      tool: "git_blame_context",
      args: { path: busyFile, line: Math.ceil(lines / 2), context: 3 },
      cli: ["blame", "--porcelain", "-L", `${Math.ceil(lines / 2) - 3},+7`, "HEAD", "--", busyFile],
    },
    {
      label: `diff, ${back} to HEAD`,
      tool: "git_diff_range",
      args: { from: back, max_bytes: 200_000 },
      cli: ["diff", back, "HEAD"],
    },
    {
      label: "contributors, whole repository",
      tool: "git_contributor_context",
      args: {},
      cli: ["log", "--numstat", numstatFormat],
    },
    {
      label: "contributors, one directory",
      tool: "git_contributor_context",
      args: { path: path.posix.dirname(busyFile) },
      cli: ["log", "--numstat", numstatFormat, "--", path.posix.dirname(busyFile)],
    },
  ];
}

/** The benchmark cases: one row per tool question, with the git command that answers it. */
export function benchCases(subject: GitBenchSubject): GitBenchCase[] {
  return [...searchCases(subject), ...fileCases(subject)];
}

/**
 * Generates a repository with 10,000+ commits (merges, renames, a binary file) with
 * `git fast-import`, measures every tool against its git CLI equivalent (median of `runs`, first
 * call on an empty cache and warm call), then deletes the repository.
 */
export async function runGitBench(options: GitBenchOptions = {}): Promise<GitBenchResult> {
  const directory = mkdtempSync(path.join(tmpdir(), "atc-git-bench-"));
  try {
    gitText(directory, ["init", "-q", "-b", "main"]);
    const history = writeSyntheticHistory(directory, { commits: options.commits ?? 10_000 });
    gitText(directory, ["reset", "-q", "--hard", "main"]);
    const lines = gitText(directory, ["show", `HEAD:${history.busyFile}`]).split("\n").length - 1;
    const subject = { busyFile: history.busyFile, lines, rareToken: history.rareToken, messageWord: history.messageWord };
    return await measureGitCases(directory, benchCases(subject), { ...options, synthetic: true });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The most often modified file among the last 2,000 commits that still exists. */
function busiestFile(directory: string): string {
  const counts = new Map<string, number>();
  for (const file of gitText(directory, ["log", "-n", "2000", "--diff-filter=M", "--format=", "--name-only"]).split("\n")) {
    if (file !== "") counts.set(file, (counts.get(file) ?? 0) + 1);
  }
  const present = new Set(gitText(directory, ["ls-files"]).split("\n"));
  const ranked = [...counts].filter(([file]) => present.has(file)).sort((a, b) => b[1] - a[1]);
  const file = ranked[0]?.[0];
  if (file === undefined) throw new Error(`${directory} has no modified files in its recent history`);
  return file;
}

/**
 * The same measurements on an existing repository (a real clone with a long history): the busy
 * file is the most modified one, the pickaxe query an identifier from it, the message word "fix".
 */
export async function runGitBenchOnRepository(directory: string, options: GitBenchOptions = {}): Promise<GitBenchResult> {
  const busyFile = busiestFile(directory);
  const content = gitText(directory, ["show", `HEAD:${busyFile}`]);
  const identifiers = content.match(/[A-Za-z_][A-Za-z0-9_]{7,}/g) ?? ["function"];
  const token = identifiers[0] ?? "function";
  const otherToken = identifiers[Math.floor(identifiers.length / 2)] ?? token;
  const subject = { busyFile, lines: content.split("\n").length - 1, rareToken: token, otherToken, messageWord: "fix" };
  return measureGitCases(directory, benchCases(subject), { ...options, synthetic: false });
}

/** The result as a Markdown table (tool vs git, cold and warm), for a README or a results file. */
export function renderGitBench(result: GitBenchResult): string {
  const { repository } = result;
  const rows = result.measurements.map(
    (row) =>
      `| ${row.label} | \`${row.command}\` | ${row.cliMs} | ${row.coldMs} (${row.coldRatio}x) | ${row.warmMs} (${row.warmRatio}x) |`,
  );
  return [
    `Repository: ${repository.synthetic ? "generated" : repository.path}, ${repository.commits} commits; ${result.gitVersion}; median of ${result.runs} runs, ms.`,
    "",
    "| Question | git command | git | tool, first call | tool, warm |",
    "| --- | --- | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}
