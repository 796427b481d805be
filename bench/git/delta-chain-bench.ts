/**
 * A blame whose file's blob sits at the end of a long delta chain of large objects, against
 * `git blame` on the same repository in the same rounds (CPU, user + system). Links too large for
 * the delta base cache (over half its 32 MiB share) are built in two reused buffers: when each
 * link took a fresh buffer, every one paged in anew (24 links of 64 MiB: 6.6 CPU-s for a blame git
 * answers in a fraction of that). The answer is checked against `git blame --porcelain`.
 *   node --import tsx bench/git/delta-chain-bench.ts [--links=24] [--mib=24] [--runs=3]
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { createGitCache, createGitTools, GIT_TOOL_NAMES } from "../../src/git/index.js";
import { createRegistry } from "../../src/index.js";
import { deltaChainRepository } from "../../test/git/support/delta-chain-repository.js";
import { git, removeDirectory } from "../../test/git/support/git-fixture.js";
import { median, round } from "../stats.js";

const MIB = 1024 * 1024;

/** The blamed file's last version, read through the chain. */
const TIP = `one\n${"t".repeat(200)}\n`;

/** What {@link measureDeltaChain} measured. */
export interface DeltaChainResult {
  /** Links of the chain, each rebuilding `linkMib` MiB. */
  readonly links: number;
  readonly linkMib: number;
  readonly runs: number;
  /** Median CPU (user + system) of the `git_blame_context` call on a fresh cache, ms. */
  readonly toolCpuMs: number;
  /** Median CPU of `git blame --porcelain` (a new process), ms. */
  readonly gitCpuMs: number;
  /** toolCpuMs / gitCpuMs. */
  readonly ratio: number;
  /** Every round's figures. */
  readonly samples: { readonly toolCpuMs: number; readonly gitCpuMs: number }[];
  /** The tool's lines matched git's porcelain blame (every round). */
  readonly verified: true;
  readonly gitVersion: string;
  readonly loadAverage: readonly number[];
}

/** CPU (user + system) of `git args` in `directory`, ms, by /usr/bin/time (10 ms steps), and its stdout. */
function gitCpu(directory: string, args: readonly string[]): { cpuMs: number; stdout: string } {
  const out = spawnSync("/usr/bin/time", ["-f", "%U %S", "git", "-C", directory, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * MIB,
  });
  if (out.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${out.stderr}`);
  const [user, system] = (out.stderr.trim().split("\n").at(-1) as string).split(" ").map(Number);
  return { cpuMs: ((user as number) + (system as number)) * 1000, stdout: out.stdout };
}

/** `line:sha` of each line of git's porcelain blame. */
function porcelainLines(porcelain: string): string[] {
  const lines: string[] = [];
  for (const line of porcelain.split("\n")) {
    const match = /^([0-9a-f]{40}) \d+ (\d+)/.exec(line);
    if (match !== null) lines.push(`${match[2]}:${match[1]}`);
  }
  return lines;
}

/**
 * Blames the file at the end of a `links`-link chain of `linkMib` MiB objects `runs` times, each
 * on a fresh cache, and `git blame` on the same repository in the same rounds.
 */
export async function measureDeltaChain(links = 24, linkMib = 24, runs = 3): Promise<DeltaChainResult> {
  if (!existsSync("/usr/bin/time")) throw new Error("delta-chain: /usr/bin/time is needed to time git's CPU");
  const directory = deltaChainRepository("bench-delta-chain", links, linkMib * MIB, TIP);
  const samples: { toolCpuMs: number; gitCpuMs: number }[] = [];
  try {
    // The oracle, and a check that git reads the chain too.
    if (git(directory, ["cat-file", "-p", "HEAD:a.txt"]) !== TIP) throw new Error("delta-chain: git reads another file");
    for (let index = 0; index < runs; index++) {
      const reference = gitCpu(directory, ["blame", "--porcelain", "HEAD", "--", "a.txt"]);
      const run = createRegistry({ tools: createGitTools({ cache: createGitCache() }) }).createRun({
        permissions: { workspace: directory },
      });
      run.activate([...GIT_TOOL_NAMES]);
      (globalThis as { gc?: () => void }).gc?.();
      const cpu = process.cpuUsage();
      const result = await run.call("git_blame_context", { path: "a.txt", start_line: 1, end_line: 3 });
      const used = process.cpuUsage(cpu);
      if (!result.ok) throw new Error(`delta-chain: blame failed: ${JSON.stringify(result.error)}`);
      const output = result.output as { lines: { line: number; sha: string; context?: true }[] };
      const mine = output.lines.filter((line) => line.context === undefined).map((line) => `${line.line}:${line.sha}`);
      const expected = porcelainLines(reference.stdout);
      // The tool gives abbreviated ids: each must begin git's.
      const same =
        mine.length === expected.length &&
        mine.every((entry, index) => {
          const [line, sha] = entry.split(":");
          const [gitLine, gitSha] = (expected[index] as string).split(":");
          return line === gitLine && (gitSha as string).startsWith(sha as string) && (sha as string).length >= 7;
        });
      if (!same) throw new Error(`delta-chain: blame differs from git's: ${JSON.stringify({ mine, expected })}`);
      samples.push({ toolCpuMs: round((used.user + used.system) / 1000, 1), gitCpuMs: reference.cpuMs });
    }
  } finally {
    removeDirectory(directory);
  }
  const toolCpuMs = median(samples.map((sample) => sample.toolCpuMs));
  const gitCpuMs = median(samples.map((sample) => sample.gitCpuMs));
  return {
    links,
    linkMib,
    runs,
    toolCpuMs: round(toolCpuMs, 1),
    gitCpuMs: round(gitCpuMs, 1),
    ratio: round(toolCpuMs / Math.max(gitCpuMs, 1), 2),
    samples,
    verified: true,
    gitVersion: spawnSync("git", ["--version"], { encoding: "utf8" }).stdout.trim(),
    loadAverage: loadavg().map((value) => round(value, 1)),
  };
}

/** The README's lines for {@link measureDeltaChain}. */
export function renderDeltaChain(result: DeltaChainResult): string {
  const built = (result.links * result.linkMib) / 1024;
  return [
    `### A blame at the end of a long delta chain`,
    "",
    `\`git_blame_context\` of a file whose last version is the end of a ${result.links}-link delta chain, each link rebuilding a ${result.linkMib} MiB object (${round(built, 2)} GiB built per read; links over half the delta base cache's share are built in two reused buffers), on a fresh cache, against \`git blame --porcelain\` on the same repository in the same rounds (${result.gitVersion}). CPU time (user + system), median of ${result.runs}, load average ${result.loadAverage.join(" / ")}; the lines checked against git's in every round.`,
    "",
    "| links x size | git_blame_context (ms CPU) | git blame (ms CPU) | ratio |",
    "| --- | --- | --- | --- |",
    `| ${result.links} x ${result.linkMib} MiB | ${result.toolCpuMs} | ${result.gitCpuMs} | ${result.ratio}x |`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name: string, fallback: number) =>
    Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
  const result = await measureDeltaChain(option("links", 24), option("mib", 24), option("runs", 3));
  console.log(JSON.stringify(result, null, 2));
  console.log(renderDeltaChain(result));
}
