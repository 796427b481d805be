import { execFileSync, spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createRegistry } from "../../src/index.js";
import { createGrepTool } from "../../src/tools/index.js";
import { median, round } from "../stats.js";

/** One pattern of the grep comparison. */
export interface GrepBenchCase {
  readonly pattern: string;
  readonly matches: number;
  readonly rgMatches: number | undefined;
  readonly toolMs: number;
  readonly rgMs: number | undefined;
  /** toolMs / rgMs: how many times slower the tool is. */
  readonly ratio: number | undefined;
}

/** The grep tool against ripgrep over one directory. */
export interface GrepBenchResult {
  readonly directory: string;
  readonly files: number;
  readonly rgVersion: string | undefined;
  readonly cases: readonly GrepBenchCase[];
}

function rgVersion(): string | undefined {
  const result = spawnSync("rg", ["--version"], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.split("\n")[0] : undefined;
}

function timeRg(pattern: string, directory: string): { ms: number; lines: number } {
  const start = performance.now();
  const result = spawnSync(
    "rg",
    ["-n", "--no-heading", "--no-ignore", "--hidden", "-g", "!node_modules", "-g", "!.git", "-e", pattern, "."],
    {
      cwd: directory,
      encoding: "utf8",
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  const ms = performance.now() - start;
  return { ms, lines: result.stdout === "" ? 0 : result.stdout.trimEnd().split("\n").length };
}

/**
 * Times the `grep` tool (through `run.call`, as a model would) and `rg` on the same patterns and
 * directory, median of `repeats` runs each, and checks that both find the same number of lines.
 */
export async function measureGrep(directory: string, patterns: readonly string[], repeats = 5): Promise<GrepBenchResult> {
  const run = createRegistry({ tools: [createGrepTool()] }).createRun({
    profile: "full",
    permissions: { workspace: directory },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
  const version = rgVersion();
  const cases: GrepBenchCase[] = [];
  for (const pattern of patterns) {
    const toolTimes: number[] = [];
    let matches = 0;
    for (let attempt = 0; attempt < repeats; attempt++) {
      const start = performance.now();
      const result = await run.call("grep", { pattern, max_results: 5000 });
      toolTimes.push(performance.now() - start);
      if (!result.ok) throw new Error(`grep failed: ${result.error.message}`);
      const text = String(result.output);
      // The footer lines ("[engine: ...]", "[stopped ...]") are not matches.
      matches = text.startsWith("No matches")
        ? 0
        : text.split("\n").filter((line) => !line.startsWith("[stopped") && !line.startsWith("[engine:")).length;
    }
    let rgMs: number | undefined;
    let rgMatches: number | undefined;
    if (version !== undefined) {
      const rgTimes: number[] = [];
      for (let attempt = 0; attempt < repeats; attempt++) {
        const timed = timeRg(pattern, directory);
        rgTimes.push(timed.ms);
        rgMatches = timed.lines;
      }
      rgMs = median(rgTimes);
    }
    const toolMs = median(toolTimes);
    cases.push({
      pattern,
      matches,
      rgMatches,
      toolMs: round(toolMs, 1),
      rgMs: rgMs === undefined ? undefined : round(rgMs, 1),
      ratio: rgMs === undefined ? undefined : round(toolMs / rgMs, 2),
    });
  }
  const files = Number(
    execFileSync("sh", ["-c", "find . -type f -not -path '*/node_modules/*' -not -path '*/.git/*' | wc -l"], {
      cwd: directory,
      encoding: "utf8",
    }).trim(),
  );
  return { directory, files, rgVersion: version, cases };
}
