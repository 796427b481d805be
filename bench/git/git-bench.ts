import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import { createGitCache, createGitTools, GIT_TOOL_NAMES, type GitCache } from "../../src/git/index.js";
import { NodeObjectStore, objectDirectories } from "../../src/git/objects/node-object-store.js";
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
  /**
   * Checks the tool's answer against git's (computed with its own git command, untimed); throws
   * on any difference, so the bench never reports the speed of a wrong answer.
   */
  readonly verify: (output: unknown, directory: string) => void;
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
  /** One call in a new node process (start, module loading, call, exit), when dist/ is built. */
  readonly processMs?: number;
  /** Peak RSS of that process (its own VmHWM, not the bench's inherited high-water mark), MiB. */
  readonly processRssMb?: number;
  /** In that process: milliseconds from its start to its first line of JavaScript (node's own start). */
  readonly processBootMs?: number;
  /** In that process: importing the package's git and root entries (`dist/`). */
  readonly processImportMs?: number;
  /** In that process: registering the tools and the call itself. */
  readonly processCallMs?: number;
  /** processMs / cliMs. */
  readonly processRatio?: number;
  /** `node -e 0` in the same runs: node's own start and exit, which no module of this package can shorten. */
  readonly nodeStartMs?: number;
  /** (processMs - nodeStartMs) / cliMs: the new process net of node's own start. */
  readonly processNetRatio?: number;
  /** The answer was checked against git's and matched. */
  readonly verified: true;
  /** coldMs / cliMs. */
  readonly coldRatio: number;
  /** warmMs / cliMs. */
  readonly warmRatio: number;
}

/** The result of a git benchmark run. */
export interface GitBenchResult {
  /** The repository measured. */
  readonly repository: {
    readonly path: string;
    readonly commits: number;
    readonly synthetic: boolean;
    /** Whether its commit-graph has changed-path Bloom filters (`git commit-graph write --changed-paths`); git and the tools both use them. */
    readonly changedPaths: boolean;
  };
  /** The git version compared against. */
  readonly gitVersion: string;
  /** The machine's 1-minute load average before and after the run (2 cores shared with other work skew figures). */
  readonly load: { readonly before: number; readonly after: number; readonly cpus: number };
  /** Runs per measurement (the median is reported). */
  readonly runs: number;
  /** One row per case. */
  readonly measurements: readonly GitBenchMeasurement[];
}

/** Options of {@link runGitBench} and {@link runGitBenchOnRepository}. */
export interface GitBenchOptions {
  /** Runs per measurement. @defaultValue 5 */
  readonly runs?: number;
  /** Commits of the generated repository ({@link runGitBench} only). @defaultValue 20000 */
  readonly commits?: number;
  /**
   * Measure a copy of the generated repository whose commit-graph has changed-path Bloom filters
   * ({@link runGitBench} only). @defaultValue false
   */
  readonly changedPaths?: boolean;
  /**
   * Labels of the rows to measure (all when absent); the warm-up pass still runs, and checks
   * against git, every case, so a row re-measured alone starts from the same warmed JIT.
   */
  readonly only?: readonly string[];
}

function availableCpus(): number {
  return Number(execFileSync("nproc", { encoding: "utf8" }).trim()) || 1;
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

function check(result: ToolCallResult, label: string): unknown {
  if (!result.ok) throw new Error(`${label} failed: ${JSON.stringify(result.error)}`);
  // A large answer may come back as its JSON text (the run's size-capped result); read it back.
  if (typeof result.output !== "string") return result.output;
  try {
    return JSON.parse(result.output) as unknown;
  } catch {
    throw new Error(`${label}: the answer was cut by the run's output size cap; ask a smaller question`);
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));
const coldCallScript = path.join(here, "cold-call.mjs");
const distBuilt = () => existsSync(path.join(here, "..", "..", "dist", "git", "index.js"));

/** `node -e 0`: what any new node process costs before it loads a module. */
function timeNodeStart(): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ["-e", "0"]);
  if (result.status !== 0) throw new Error("node -e 0 failed");
  return performance.now() - started;
}

/** One call in a new node process (needs `npm run build`); `undefined` without dist/. */
interface ProcessTiming {
  readonly ms: number;
  readonly rssMb: number;
  readonly bootMs: number;
  readonly importMs: number;
  readonly callMs: number;
}

function timeProcess(directory: string, benchCase: GitBenchCase): ProcessTiming | undefined {
  if (!distBuilt()) return undefined;
  const started = performance.now();
  const result = spawnSync(process.execPath, [coldCallScript, directory, benchCase.tool, JSON.stringify(benchCase.args)], {
    encoding: "utf8",
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${benchCase.label} in a new process failed: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as { maxRssKb: number; bootMs: number; importMs: number; callMs: number };
  return { ms, rssMb: round(report.maxRssKb / 1024, 1), bootMs: report.bootMs, importMs: report.importMs, callMs: report.callMs };
}

async function measureCase(directory: string, benchCase: GitBenchCase, runs: number): Promise<GitBenchMeasurement> {
  const cli: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  const processes: ProcessTiming[] = [];
  const nodeStarts: number[] = [];
  let rssMb = 0;
  for (let index = 0; index < runs; index++) {
    cli.push(timeCli(directory, benchCase.cli));
    const fresh = timeProcess(directory, benchCase);
    if (fresh !== undefined) {
      processes.push(fresh);
      nodeStarts.push(timeNodeStart());
      rssMb = Math.max(rssMb, fresh.rssMb);
    }
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
  const processMs = processes.length === 0 ? undefined : median(processes.map((fresh) => fresh.ms));
  const inProcess = (pick: (fresh: ProcessTiming) => number) => round(median(processes.map(pick)), 1);
  const nodeStartMs = median(nodeStarts);
  return {
    label: benchCase.label,
    tool: benchCase.tool,
    command: `git ${benchCase.cli.join(" ")}`,
    cliMs: round(cliMs, 1),
    coldMs: round(coldMs, 1),
    warmMs: round(warmMs, 1),
    coldRatio: round(coldMs / cliMs, 2),
    warmRatio: round(warmMs / cliMs, 2),
    ...(processMs === undefined
      ? {}
      : {
          processMs: round(processMs, 1),
          processRssMb: rssMb,
          processRatio: round(processMs / cliMs, 2),
          nodeStartMs: round(nodeStartMs, 1),
          processNetRatio: round(Math.max(0, processMs - nodeStartMs) / cliMs, 2),
          processBootMs: inProcess((fresh) => fresh.bootMs),
          processImportMs: inProcess((fresh) => fresh.importMs),
          processCallMs: inProcess((fresh) => fresh.callMs),
        }),
    verified: true,
  };
}

/** Measures `cases` on the repository at `directory`. */
export async function measureGitCases(
  directory: string,
  cases: readonly GitBenchCase[],
  options: GitBenchOptions & { readonly synthetic: boolean },
): Promise<GitBenchResult> {
  const runs = options.runs ?? 5;
  const before = loadavg()[0] ?? 0;
  // One pass first, so that "cold" measures an empty cache, not a cold JIT; it also checks every answer against git's.
  const warmUpCache = createGitCache();
  const warmUp = newRun(directory, warmUpCache);
  for (const benchCase of cases)
    benchCase.verify(check(await warmUp.call(benchCase.tool, benchCase.args), benchCase.label), directory);
  // Its objects would otherwise stay reachable through this frame and make every later collection slower.
  warmUpCache.clear();
  const measurements: GitBenchMeasurement[] = [];
  for (const benchCase of cases) {
    if (options.only === undefined || options.only.includes(benchCase.label)) {
      measurements.push(await measureCase(directory, benchCase, runs));
    }
  }
  return {
    repository: {
      path: directory,
      commits: Number(gitText(directory, ["rev-list", "--count", "HEAD"]).trim()),
      synthetic: options.synthetic,
      changedPaths: hasChangedPathFilters(directory),
    },
    gitVersion: gitText(directory, ["--version"]).trim(),
    load: { before: round(before, 2), after: round(loadavg()[0] ?? 0, 2), cpus: availableCpus() },
    runs,
    measurements,
  };
}

/** Whether the repository's commit-graph has changed-path Bloom filters, as this package's reader sees it. */
function hasChangedPathFilters(directory: string): boolean {
  const reader = unconfinedReader();
  const objects = gitText(directory, ["rev-parse", "--path-format=absolute", "--git-path", "objects"]).trim();
  const store = new NodeObjectStore(objectDirectories(objects, reader), reader);
  try {
    return store.commitGraph()?.hasBloomFilters ?? false;
  } finally {
    store.close();
  }
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

const FULL_ID = /^[0-9a-f]{40}$/;
const short = (id: string) => id.slice(0, 10);
const logShas = (directory: string, args: readonly string[]) =>
  gitText(directory, ["log", "--format=%H", ...args])
    .split("\n")
    .filter((line) => FULL_ID.test(line))
    .map(short);

function same(label: string, actual: unknown, expected: unknown): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b)
    throw new Error(`${label}: the tool's answer differs from git's:\n tool ${a.slice(0, 400)}\n git  ${b.slice(0, 400)}`);
}

const commitShas = (output: unknown) => (output as { commits: { sha: string }[] }).commits.map((commit) => commit.sha);

/** Per author e-mail: commits, and lines of non-merge commits, from `git log --numstat` (what shortlog plus numstat say). */
function numstatTotals(directory: string, pathArgs: readonly string[]) {
  const totals = new Map<string, { commits: number; added: number; removed: number }>();
  const output = gitText(directory, ["log", "--numstat", "--format=%x01%ae", ...pathArgs]);
  for (const block of output.split("\u0001").slice(1)) {
    const [email = "", ...lines] = block.split("\n");
    const tally = totals.get(email.toLowerCase()) ?? { commits: 0, added: 0, removed: 0 };
    tally.commits++;
    for (const line of lines) {
      const match = /^(\d+|-)\t(\d+|-)\t/.exec(line);
      if (match === null) continue;
      tally.added += match[1] === "-" ? 0 : Number(match[1]);
      tally.removed += match[2] === "-" ? 0 : Number(match[2]);
    }
    totals.set(email.toLowerCase(), tally);
  }
  return totals;
}

function verifyContributors(label: string, pathArgs: readonly string[]) {
  return (output: unknown, directory: string) => {
    const answer = output as {
      total_commits: number;
      contributors: { email: string; commits: number; added: number; removed: number }[];
    };
    const expected = numstatTotals(directory, pathArgs);
    same(
      `${label} total`,
      answer.total_commits,
      [...expected.values()].reduce((sum, tally) => sum + tally.commits, 0),
    );
    for (const contributor of answer.contributors) {
      const { commits, added, removed } = contributor;
      same(`${label} ${contributor.email}`, { commits, added, removed }, expected.get(contributor.email.toLowerCase()));
    }
  };
}

function searchCases(subject: GitBenchSubject): GitBenchCase[] {
  const { rareToken, messageWord } = subject;
  const other = subject.otherToken ?? "cache_";
  const pickaxe = (token: string) => (output: unknown, directory: string) =>
    same(`pickaxe ${token}`, commitShas(output), logShas(directory, [`-S${token}`]).slice(0, 200));
  return [
    {
      label: "log search, message, first 20",
      tool: "git_log_search",
      args: { query: messageWord, mode: "message" },
      cli: ["log", "-i", "-F", `--grep=${messageWord}`, "-n", "21", "--format=%H"],
      verify: (output, directory) =>
        same("message search", commitShas(output), logShas(directory, ["-i", "-F", `--grep=${messageWord}`]).slice(0, 20)),
    },
    {
      label: "log search, message, whole history",
      tool: "git_log_search",
      args: { query: "no such message", mode: "message" },
      cli: ["log", "-i", "-F", "--grep=no such message", "--format=%H"],
      verify: (output) => same("message search, no match", commitShas(output), []),
    },
    {
      label: "log search, pickaxe, whole history",
      tool: "git_log_search",
      args: { query: rareToken, mode: "pickaxe", max_results: 200 },
      cli: ["log", `-S${rareToken}`, "-s", "-n", "201", "--format=%H"],
      verify: pickaxe(rareToken),
    },
    {
      label: "log search, pickaxe, new query on a warm cache",
      tool: "git_log_search",
      args: { query: other, mode: "pickaxe", max_results: 200 },
      warmUpArgs: { query: rareToken, mode: "pickaxe", max_results: 200 },
      cli: ["log", `-S${other}`, "-s", "-n", "201", "--format=%H"],
      verify: pickaxe(other),
    },
  ];
}

function verifyBlame(file: string, from: number, to: number) {
  return (output: unknown, directory: string) => {
    const expected: string[] = [];
    for (const line of gitText(directory, ["blame", "--porcelain", "-L", `${from},${to}`, "HEAD", "--", file]).split("\n")) {
      const match = /^([0-9a-f]{40}) \d+ (\d+)/.exec(line);
      if (match !== null) expected.push(`${match[2]}:${short(match[1] ?? "")}`);
    }
    const lines = (output as { lines: { line: number; sha: string; context?: true }[] }).lines;
    same(
      `blame ${file}`,
      lines.filter((line) => line.context === undefined).map((line) => `${line.line}:${line.sha}`),
      expected,
    );
  };
}

function fileCases(subject: GitBenchSubject): GitBenchCase[] {
  const { busyFile } = subject;
  const lines = Math.min(400, subject.lines);
  const middle = Math.max(1, Math.ceil(lines / 2));
  const back = `HEAD~${subject.diffDistance ?? 100}`;
  const numstatFormat = "--format=%H%x00%ae%x00%an%x00%at";
  const directory = path.posix.dirname(busyFile);
  return [
    {
      label: "file history, 200 commits",
      tool: "git_file_history",
      args: { path: busyFile, max_results: 200, follow_renames: false },
      cli: ["log", "--numstat", "-n", "201", "--format=%H", "--", busyFile],
      verify: (output, repository) =>
        same("file history", commitShas(output), logShas(repository, ["--", busyFile]).slice(0, 200)),
    },
    {
      label: `blame, lines 1-${lines}`,
      tool: "git_blame_context",
      args: { path: busyFile, start_line: 1, end_line: lines, context: 0 },
      cli: ["blame", "--porcelain", "-L", `1,${lines}`, "HEAD", "--", busyFile],
      verify: verifyBlame(busyFile, 1, lines),
    },
    {
      label: "blame, 7 lines",
      tool: "git_blame_context",
      args: { path: busyFile, start_line: middle, end_line: Math.min(lines, middle + 6), context: 0 },
      cli: ["blame", "--porcelain", "-L", `${middle},${Math.min(lines, middle + 6)}`, "HEAD", "--", busyFile],
      verify: verifyBlame(busyFile, middle, Math.min(lines, middle + 6)),
    },
    {
      label: `diff, ${back} to HEAD`,
      tool: "git_diff_range",
      args: { from: back },
      cli: ["diff", "-M", back, "HEAD"],
      verify: (output, repository) => {
        const stat = gitText(repository, ["diff", "--shortstat", "-M", back, "HEAD"]);
        const number = (pattern: RegExp) => Number(pattern.exec(stat)?.[1] ?? 0);
        const { files_changed, added, removed } = output as { files_changed: number; added: number; removed: number };
        same(
          "diff totals",
          { files_changed, added, removed },
          {
            files_changed: number(/(\d+) files? changed/),
            added: number(/(\d+) insertions?/),
            removed: number(/(\d+) deletions?/),
          },
        );
      },
    },
    {
      label: "contributors, whole repository",
      tool: "git_contributor_context",
      args: { max_results: 100 },
      cli: ["log", "--numstat", numstatFormat],
      verify: verifyContributors("contributors", []),
    },
    {
      label: "contributors, one directory",
      tool: "git_contributor_context",
      args: { path: directory, max_results: 100 },
      cli: ["log", "--numstat", numstatFormat, "--", directory],
      verify: verifyContributors(`contributors of ${directory}`, ["--", directory]),
    },
  ];
}

/** The benchmark cases: one row per tool question, with the git command that answers it. */
export function benchCases(subject: GitBenchSubject): GitBenchCase[] {
  return [...searchCases(subject), ...fileCases(subject)];
}

/**
 * The generated history of `commits` commits (merges, renames, a binary file), written once with
 * `git fast-import` under the temporary directory and reused by later runs, with a commit-graph.
 */
export function cachedSyntheticHistory(commits: number): {
  directory: string;
  busyFile: string;
  rareToken: string;
  messageWord: string;
} {
  const directory = path.join(tmpdir(), `atc-git-bench-history-${commits}-seed7`);
  const marker = path.join(directory, ".git", "atc-bench-history.json");
  if (existsSync(marker)) {
    writeCommitGraph(directory);
    return { directory, ...readMarker(marker) };
  }
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  gitText(directory, ["init", "-q", "-b", "main"]);
  const history = writeSyntheticHistory(directory, { commits });
  gitText(directory, ["reset", "-q", "--hard", "main"]);
  writeCommitGraph(directory);
  const subject = { busyFile: history.busyFile, rareToken: history.rareToken, messageWord: history.messageWord };
  writeMarker(marker, subject);
  return { directory, ...subject };
}

/**
 * Writes the commit-graph, as `git gc` does in real repositories (git and the tools both read
 * it); kept if one is there already.
 */
function writeCommitGraph(directory: string): void {
  if (existsSync(path.join(directory, ".git", "objects", "info", "commit-graph"))) return;
  gitText(directory, ["commit-graph", "write", "--reachable"]);
}

/**
 * A copy of the generated repository whose commit-graph has changed-path Bloom filters (made once,
 * beside it): `git log -- path` and `git blame` use them, and so do the tools.
 */
export function withChangedPaths(directory: string): string {
  const copy = `${directory}-changed-paths`;
  const graph = path.join(copy, ".git", "objects", "info", "commit-graph");
  if (existsSync(graph) && hasChangedPathFilters(copy)) return copy;
  rmSync(copy, { recursive: true, force: true });
  cpSync(directory, copy, { recursive: true });
  rmSync(graph, { force: true });
  gitText(copy, ["commit-graph", "write", "--reachable", "--changed-paths"]);
  return copy;
}

function readMarker(marker: string): { busyFile: string; rareToken: string; messageWord: string } {
  return JSON.parse(readFileSync(marker, "utf8")) as { busyFile: string; rareToken: string; messageWord: string };
}

function writeMarker(marker: string, subject: object): void {
  writeFileSync(marker, JSON.stringify(subject));
}

/**
 * Measures every tool against its git CLI equivalent on a generated history of 20,000+ commits
 * (cached under the temporary directory): the git command, the tool's first call on an empty
 * cache, its warm call, and one call in a new node process; every answer is checked against git's.
 */
export async function runGitBench(options: GitBenchOptions = {}): Promise<GitBenchResult> {
  const plain = cachedSyntheticHistory(options.commits ?? 20_000);
  const history = options.changedPaths === true ? { ...plain, directory: withChangedPaths(plain.directory) } : plain;
  const lines = gitText(history.directory, ["show", `HEAD:${history.busyFile}`]).split("\n").length - 1;
  const subject = { busyFile: history.busyFile, lines, rareToken: history.rareToken, messageWord: history.messageWord };
  return measureGitCases(history.directory, benchCases(subject), { ...options, synthetic: true });
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
      `| ${row.label} | \`${row.command}\` | ${row.cliMs} | ${row.nodeStartMs ?? "n/a"} | ${row.processMs === undefined ? "n/a" : `${row.processMs} (${row.processRatio}x; net of node ${row.processNetRatio}x), ${row.processRssMb} MiB`} | ${row.coldMs} (${row.coldRatio}x) | ${row.warmMs} (${row.warmRatio}x) |`,
  );
  return [
    `Repository: ${repository.synthetic ? "generated" : repository.path}, ${repository.commits} commits, commit-graph ${repository.changedPaths ? "with" : "without"} changed-path Bloom filters; ${result.gitVersion}; median of ${result.runs} runs, ms; every answer checked against git's; load average ${result.load.before} -> ${result.load.after} on ${result.load.cpus} CPUs.`,
    "",
    "| Question | git command | git | node start (`node -e 0`) | tool, new process (peak RSS) | tool, first call | tool, warm |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}
