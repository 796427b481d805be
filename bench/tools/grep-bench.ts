import { execFileSync, spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createRegistry, type Run } from "../../src/index.js";
import { clipLineText } from "../../src/tools/fs/grep-line-text.js";
import { GREP_SKIPPED_DIRECTORIES } from "../../src/tools/fs/grep-ripgrep.js";
import { createGrepTool } from "../../src/tools/index.js";
import { median, round } from "../stats.js";

/** One pattern of the grep comparison, in one sandbox. */
export interface GrepBenchCase {
  readonly pattern: string;
  /** The run's sandbox: "workspace" runs rg under bubblewrap, "unrestricted" runs it directly. */
  readonly sandbox: "workspace" | "unrestricted";
  /** The engine the tool's answer names (its last line), e.g. "ripgrep, sandbox bubblewrap/workspace". */
  readonly engine: string;
  readonly matches: number;
  readonly rgMatches: number | undefined;
  /** The tool printed exactly rg's matching lines (path, number, text), as sets. */
  readonly identical: boolean | undefined;
  readonly toolMs: number;
  readonly rgMs: number | undefined;
  /** toolMs / rgMs: how many times slower the tool is. */
  readonly ratio: number | undefined;
}

/** The grep tool against ripgrep over one directory. */
export interface GrepBenchResult {
  readonly directory: string;
  /** Files rg would search there (`rg --files` with the same filters). */
  readonly files: number;
  readonly rgVersion: string | undefined;
  readonly cases: readonly GrepBenchCase[];
}

function rgVersion(): string | undefined {
  const result = spawnSync("rg", ["--version"], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.split("\n")[0] : undefined;
}

/**
 * The filters the tool gives ripgrep (hidden files, .gitignore without a git repository, no
 * global or parent ignore files, the skipped directories; no size cap, as the tool has none): the reference searches
 * what the tool searches, as a user would run `rg -n` there (in parallel, unsorted).
 */
export function referenceArguments(): string[] {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-parent"];
  for (const name of GREP_SKIPPED_DIRECTORIES) args.push("--glob", `!${name}`);
  return args;
}

function timeRg(pattern: string, directory: string): { ms: number; lines: string[] } {
  const start = performance.now();
  const result = spawnSync(
    "rg",
    [...referenceArguments(), "--line-number", "--with-filename", "--no-heading", "--color", "never", "--regexp", pattern],
    // stdin ignored: rg given no path searches the working directory, not its stdin.
    { cwd: directory, encoding: "utf8", maxBuffer: 512 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] },
  );
  const ms = performance.now() - start;
  return { ms, lines: result.stdout === "" ? [] : result.stdout.replace(/\n$/, "").split("\n") };
}

/** One pattern: the tool and rg alternately, `repeats` times each. */
async function measureCase(
  run: Run,
  directory: string,
  pattern: string,
  sandbox: "workspace" | "unrestricted",
  repeats: number,
  hasRg: boolean,
): Promise<GrepBenchCase> {
  const toolTimes: number[] = [];
  const rgTimes: number[] = [];
  let lines: string[] = [];
  let engine = "";
  let reference: string[] | undefined;
  for (let attempt = 0; attempt < repeats; attempt++) {
    const start = performance.now();
    const result = await run.call("grep", { pattern, max_results: 5000 });
    toolTimes.push(performance.now() - start);
    if (!result.ok) throw new Error(`grep failed: ${result.error.message}`);
    const all = String(result.output).split("\n");
    engine = (all.at(-1) ?? "").replace(/^\[engine: (.*)\]$/, "$1");
    if (all.some((line) => line.startsWith("[stopped"))) throw new Error(`"${pattern}" has over 5000 matches: pick another`);
    lines = all[0]?.startsWith("No matches") ? [] : all.slice(0, -1);
    if (hasRg) {
      const timed = timeRg(pattern, directory);
      rgTimes.push(timed.ms);
      reference = timed.lines;
    }
  }
  const rgMs = reference === undefined ? undefined : median(rgTimes);
  const toolMs = median(toolTimes);
  return {
    pattern,
    sandbox,
    engine,
    matches: lines.length,
    rgMatches: reference?.length,
    identical: reference === undefined ? undefined : sameLines(lines, reference),
    toolMs: round(toolMs, 1),
    rgMs: rgMs === undefined ? undefined : round(rgMs, 1),
    ratio: rgMs === undefined ? undefined : round(toolMs / rgMs, 2),
  };
}

/**
 * Times the `grep` tool (through `run.call`, as a model would, a fresh run per sandbox) and `rg`
 * on the same patterns and directory, alternately, median of `repeats` runs each; checks that the
 * tool printed exactly rg's matching lines and records which engine answered.
 */
export async function measureGrep(
  directory: string,
  patterns: readonly string[],
  repeats = 5,
  sandboxes: readonly ("workspace" | "unrestricted")[] = ["workspace", "unrestricted"],
): Promise<GrepBenchResult> {
  const version = rgVersion();
  const cases: GrepBenchCase[] = [];
  for (const sandbox of sandboxes) {
    const run = createRegistry({ tools: [createGrepTool()] }).createRun({
      profile: "full",
      permissions: { workspace: directory, sandbox },
      condenseThreshold: Number.POSITIVE_INFINITY,
    });
    for (const pattern of patterns)
      cases.push(await measureCase(run, directory, pattern, sandbox, repeats, version !== undefined));
  }
  const files =
    version === undefined
      ? 0
      : execFileSync("rg", [...referenceArguments(), "--files"], {
          cwd: directory,
          encoding: "utf8",
          maxBuffer: 512 * 1024 * 1024,
          stdio: ["ignore", "pipe", "pipe"],
        })
          .trimEnd()
          .split("\n").length;
  return { directory, files, rgVersion: version, cases };
}

/**
 * The same lines, in any order (rg's reference runs in parallel, unsorted). rg's text of a line is
 * cut as the tool documents it cuts (over 4,000 characters: the head and a note), so a minified
 * bundle's match compares on what the tool promises to print, never passes by being skipped.
 */
export function sameLines(tool: readonly string[], reference: readonly string[]): boolean {
  if (tool.length !== reference.length) return false;
  const sorted = (lines: readonly string[]) => [...lines].sort();
  const left = sorted(tool);
  const right = sorted(reference.map(clipReferenceLine));
  return left.every((line, index) => line === right[index]);
}

/** The grep section as Markdown. */
export function renderGrep(results: readonly GrepBenchResult[], load: readonly number[], cores: number): string {
  return [
    "### grep against ripgrep",
    "",
    `\`run.call("grep")\` (max_results 5000) against \`rg -n\` with the same filters (parallel, unsorted), timed alternately, median; ` +
      `identical: the tool printed exactly rg's matching lines (a line over 4,000 characters compared on the head the tool prints and its cut note). Load average ${load.map((value) => value.toFixed(1)).join(" / ")} on ${cores} cores.`,
    "",
    "| tree | files | pattern | sandbox (engine) | matches | identical | grep ms | rg ms | ratio |",
    "| --- | ---: | --- | --- | ---: | :---: | ---: | ---: | ---: |",
    ...results.flatMap((result) =>
      result.cases.map(
        (row) =>
          `| ${result.directory} | ${result.files} | \`${row.pattern.replaceAll("|", "\\|")}\` | ${row.sandbox} (${row.engine}) | ${row.matches} | ${row.identical === undefined ? "n/a" : row.identical ? "yes" : "**no**"} | ${row.toolMs} | ${row.rgMs ?? "n/a"} | ${row.ratio ?? "n/a"} |`,
      ),
    ),
  ].join("\n");
}

/** An `rg -n` line (`path:line:text`) with its text cut as the tool cuts it. */
function clipReferenceLine(line: string): string {
  const match = /^(.*?:\d+:)(.*)$/s.exec(line);
  return match === null ? line : `${match[1]}${clipLineText(match[2] as string)}`;
}
