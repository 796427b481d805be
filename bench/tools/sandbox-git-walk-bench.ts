/**
 * Host CPU a `workspace`-sandboxed command pays for the git-directory walk after it (red team
 * rounds 38 and 41), against the same command in a workspace with no git directory, in the same
 * rounds. Two cases:
 *  - loose objects: `true` in a repository holding N loose objects. The first command after the
 *    host process starts lists every loose-object directory; later ones `lstat` each and list only
 *    the changed (src/tools/sandbox/loose-object-directories.ts). Checked: the later calls skipped
 *    every loose-object directory (`looseDirectoryCounts`).
 *  - flood: a command that makes directories at the top of `.git` past the link walk's bound
 *    (20,000), each moved aside with a note (src/tools/sandbox/git-directory-links.ts), against the
 *    same directories made in the sandbox's own /tmp (which no walk looks at); the cost per
 *    directory moved is the difference to a flood of 500 past the bound in the same round. Checked: the notes count every
 *    directory past the bound, and none is left in `.git`.
 * Needs bubblewrap (Linux): without it the cases are skipped and say so.
 *   node --import tsx bench/tools/sandbox-git-walk-bench.ts [--objects=6700,50000] [--flood=10000] [--calls=9] [--runs=3]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { createRegistry, type Run } from "../../src/index.js";
import { gitDirectoryLinkLimits, outwardGitEntries } from "../../src/tools/sandbox/git-directory-links.js";
import { looseDirectoryCounts } from "../../src/tools/sandbox/loose-object-directories.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { NOTED_GIT_STATE_MOVES } from "../../src/tools/shell/git-state-notes.js";
import { median, round } from "../stats.js";

/** Host CPU of commands after a repository of `looseObjects` loose objects, against no git directory. */
export interface LooseObjectWalkRow {
  readonly looseObjects: number;
  /** Loose-object directories (`objects/xx`) in the repository. */
  readonly looseDirectories: number;
  /** The first command after the host process started (every directory listed), ms. */
  readonly firstCallCpuMs: number;
  /** Median of the later commands in the repository (unchanged directories skipped), ms. */
  readonly repeatedCallCpuMs: number;
  /** Median of the same command in a workspace with no git directory, in the same rounds, ms. */
  readonly baselineCpuMs: number;
  /** firstCallCpuMs - baselineCpuMs: the walk listing every directory. */
  readonly listingWalkMs: number;
  /** repeatedCallCpuMs - baselineCpuMs: the walk with unchanged directories skipped. */
  readonly skippingWalkMs: number;
  /** The host-side walk alone (`outwardGitEntries` of the `.git`), every loose-object directory changed just before (all listed), median, ms of CPU. */
  readonly walkListingMs: number;
  /** The same walk with every loose-object directory unchanged (each one `lstat`), median, ms of CPU. */
  readonly walkSkippingMs: number;
  /** Walks timed for each of the two figures above. */
  readonly walks: number;
}

/** Host CPU of a command flooding `.git` past the walk's bound, against the same directories made elsewhere. */
export interface FloodRow {
  /** Directories the command made. */
  readonly directories: number;
  /** Those moved aside (past the bound), counted from the notes. */
  readonly movedAside: number;
  /** Median host CPU of the flooding command, ms. */
  readonly floodCpuMs: number;
  /** Median host CPU of the same directories made in the sandbox's own `/tmp` (not walked), ms. */
  readonly baselineCpuMs: number;
  /** Per directory moved aside, microseconds: the CPU of this flood less one of 500 past the bound in the same round, over the difference in directories moved (median of the rounds). */
  readonly perMovedUs: number;
  /** perMovedUs times 40,000 (round 41's case), ms. */
  readonly per40000Ms: number;
  /** Characters of the result the model got (notes included). */
  readonly resultChars: number;
}

/** What {@link measureSandboxGitWalk} measured; `skipped` names why nothing was. */
export interface SandboxGitWalkResult {
  readonly skipped?: string;
  readonly calls: number;
  readonly runs: number;
  readonly looseObjects: readonly LooseObjectWalkRow[];
  readonly flood?: FloodRow;
  readonly loadAverage: readonly number[];
}

function bubblewrapMissing(): string | undefined {
  if (process.platform !== "linux") return "bubblewrap runs on Linux only";
  const probe = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"]);
  return probe.status === 0 ? undefined : `bwrap does not run here (${probe.error?.message ?? probe.stderr.toString().trim()})`;
}

function gitIn(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=A", ...args], { cwd, stdio: "ignore" });
}

function workspace(prefix: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
}

/** A repository of one commit plus `count` loose blobs written as git writes them. */
function looseObjectRepository(count: number): string {
  const root = workspace("atc-bench-loose-");
  gitIn(root, "init", "-q", "-b", "main");
  writeFileSync(path.join(root, "a.txt"), "a\n");
  gitIn(root, "add", "a.txt");
  gitIn(root, "commit", "-q", "-m", "one");
  const objects = path.join(root, ".git", "objects");
  for (let index = 0; index < count; index++) {
    const content = Buffer.from(`blob ${index}\n`);
    const raw = Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]);
    const id = createHash("sha1").update(raw).digest("hex");
    const directory = path.join(objects, id.slice(0, 2));
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, id.slice(2)), deflateSync(raw));
  }
  return root;
}

function newRun(root: string): Run {
  return createRegistry({ tools: [createBashTool()] }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace: root },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
}

/** One command's host CPU (this process: bwrap and the command are children), ms, and its result text. */
async function hostCpu(run: Run, command: string): Promise<{ cpuMs: number; text: string }> {
  const before = process.cpuUsage();
  const result = await run.call("bash", { command });
  const used = process.cpuUsage(before);
  if (!result.ok) throw new Error(`sandbox-git-walk: ${command.slice(0, 60)} failed: ${JSON.stringify(result.error)}`);
  return { cpuMs: (used.user + used.system) / 1000, text: String(result.output) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Walks timed by {@link timeWalks} for each figure. */
const DIRECT_WALKS = 25;

/**
 * The host-side walk of `root`'s `.git` alone (`outwardGitEntries`, as after a command), CPU of
 * each: with every loose-object directory unchanged since a listing found it clean (skipped), and
 * with each one's times set just before (listed; racily recent, so not remembered). Checked: the
 * walk finds nothing, and skips or lists every loose-object directory as meant.
 */
function timeWalks(root: string, looseDirectories: number): { walkListingMs: number; walkSkippingMs: number; walks: number } {
  const git = path.join(root, ".git");
  const objects = path.join(git, "objects");
  const loose = readdirSync(objects).filter((name) => /^[0-9a-f]{2}$/.test(name));
  const descriptor = openSync(git, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  const walk = (expect: "listed" | "skipped"): number => {
    const before = { ...looseDirectoryCounts };
    const cpu = process.cpuUsage();
    const found = outwardGitEntries(descriptor, root, false);
    const used = process.cpuUsage(cpu);
    const counted = looseDirectoryCounts[expect] - before[expect];
    if (found.length > 0 || counted !== looseDirectories)
      throw new Error(
        `sandbox-git-walk: a walk ${expect} ${counted} of ${looseDirectories} loose directories, found ${found.length}`,
      );
    return (used.user + used.system) / 1000;
  };
  try {
    const skipping: number[] = [];
    for (let index = 0; index < DIRECT_WALKS; index++) skipping.push(walk("skipped"));
    const listing: number[] = [];
    for (let index = 0; index < DIRECT_WALKS; index++) {
      const now = new Date();
      for (const name of loose) utimesSync(path.join(objects, name), now, now);
      listing.push(walk("listed"));
    }
    return { walkListingMs: round(median(listing), 2), walkSkippingMs: round(median(skipping), 2), walks: DIRECT_WALKS };
  } finally {
    closeSync(descriptor);
  }
}

async function measureLooseObjects(count: number, calls: number, plain: Run): Promise<LooseObjectWalkRow> {
  const root = looseObjectRepository(count);
  const looseDirectories = readdirSync(path.join(root, ".git", "objects")).filter((name) => /^[0-9a-f]{2}$/.test(name)).length;
  // Past the walk's racy margin (2.5 s): directories listed now may be remembered as clean.
  await pause(3_000);
  const run = newRun(root);
  try {
    const first = await hostCpu(run, "true");
    const repeated: number[] = [];
    const baseline: number[] = [];
    const skippedBefore = looseDirectoryCounts.skipped;
    const listedBefore = looseDirectoryCounts.listed;
    for (let index = 0; index < calls; index++) {
      repeated.push((await hostCpu(run, "true")).cpuMs);
      baseline.push((await hostCpu(plain, "true")).cpuMs);
    }
    const skipped = looseDirectoryCounts.skipped - skippedBefore;
    const listed = looseDirectoryCounts.listed - listedBefore;
    // The later commands must have skipped every loose-object directory, else this measures another walk.
    if (skipped < calls * looseDirectories || listed > 0)
      throw new Error(
        `sandbox-git-walk: ${count} loose objects: ${skipped} directories skipped and ${listed} listed over ${calls} calls (${looseDirectories} directories)`,
      );
    const direct = timeWalks(root, looseDirectories);
    const [repeatedCpu, baselineCpu] = [median(repeated), median(baseline)];
    return {
      looseObjects: count,
      looseDirectories,
      firstCallCpuMs: round(first.cpuMs, 1),
      repeatedCallCpuMs: round(repeatedCpu, 1),
      baselineCpuMs: round(baselineCpu, 1),
      listingWalkMs: round(first.cpuMs - baselineCpu, 1),
      skippingWalkMs: round(repeatedCpu - baselineCpu, 1),
      ...direct,
    };
  } finally {
    await run.close?.();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Makes `count` directories `f1`..`f<count>` in `where` (relative to the workspace root). */
const mkdirs = (where: string, count: number) => `cd ${where} && seq -f 'f%g' 1 ${count} | xargs mkdir && echo made`;

/** One flood of `count` directories at the top of `.git` in a new repository: host CPU, what was moved aside, the result's length. */
async function floodOnce(count: number): Promise<{ cpuMs: number; tmpCpuMs: number; moved: number; chars: number }> {
  const root = workspace("atc-bench-flood-");
  gitIn(root, "init", "-q", "-b", "main");
  gitIn(root, "commit", "-q", "--allow-empty", "-m", "one");
  const run = newRun(root);
  try {
    // The walk's first listing of the repository first, so the flood's call pays only the flood.
    await hostCpu(run, "true");
    const made = await hostCpu(run, mkdirs(".git", count));
    const tmp = await hostCpu(run, `mkdir -p /tmp/plain && ${mkdirs("/tmp/plain", count)}`);
    if (!made.text.includes("made") || !tmp.text.includes("made")) throw new Error("sandbox-git-walk: the flood did not run");
    const more = /\[moved aside (\d+) more entries the same way \((\d+) unlisted\)/.exec(made.text);
    const told = made.text.split("[moved aside ").length - 1 - (more === null ? 0 : 1);
    const moved = told + Number(more?.[2] ?? 0);
    const left = readdirSync(path.join(root, ".git")).filter((name) => /^f\d+$/.test(name)).length;
    // Every directory made is either looked at (within the bound) or moved aside, and the notes say so.
    if (told !== Math.min(moved, NOTED_GIT_STATE_MOVES) || left + moved !== count || moved === 0)
      throw new Error(`sandbox-git-walk: flood of ${count}: ${moved} moved aside by the notes, ${left} left in .git`);
    return { cpuMs: made.cpuMs, tmpCpuMs: tmp.cpuMs, moved, chars: made.text.length };
  } finally {
    await run.close?.();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Floods of `past` and of 500 directories past the bound in each of `runs` rounds: the cost per
 * directory moved aside is their difference over the difference in directories moved (the walk of
 * the directories within the bound cancels out).
 */
async function measureFlood(past: number, runs: number): Promise<FloodRow> {
  const bound = gitDirectoryLinkLimits.maxDirectories;
  const large: Awaited<ReturnType<typeof floodOnce>>[] = [];
  const perMoved: number[] = [];
  for (let index = 0; index < runs; index++) {
    const small = await floodOnce(bound + 500);
    const big = await floodOnce(bound + past);
    large.push(big);
    perMoved.push(((big.cpuMs - small.cpuMs) * 1000) / (big.moved - small.moved));
  }
  const floodCpu = median(large.map((each) => each.cpuMs));
  const perMovedUs = median(perMoved);
  const last = large.at(-1) as Awaited<ReturnType<typeof floodOnce>>;
  return {
    directories: bound + past,
    movedAside: last.moved,
    floodCpuMs: round(floodCpu, 1),
    baselineCpuMs: round(median(large.map((each) => each.tmpCpuMs)), 1),
    perMovedUs: round(perMovedUs, 1),
    per40000Ms: round((perMovedUs * 40_000) / 1000, 0),
    resultChars: last.chars,
  };
}

/**
 * Measures both cases: `looseCounts` repositories of loose objects (`calls` commands each) and
 * floods of `floodPast` directories past the link walk's bound (`runs` rounds, each in a new workspace).
 */
export async function measureSandboxGitWalk(
  looseCounts: readonly number[] = [6_700, 50_000],
  floodPast = 10_000,
  calls = 9,
  runs = 3,
): Promise<SandboxGitWalkResult> {
  const missing = bubblewrapMissing();
  if (missing !== undefined) {
    console.warn(`sandbox-git-walk: SKIPPED, needs bubblewrap: ${missing}`);
    return { skipped: missing, calls, runs, looseObjects: [], loadAverage: loadavg() };
  }
  const plainRoot = workspace("atc-bench-nogit-");
  const plain = newRun(plainRoot);
  const rows: LooseObjectWalkRow[] = [];
  try {
    await hostCpu(plain, "true");
    for (const count of looseCounts) rows.push(await measureLooseObjects(count, calls, plain));
  } finally {
    await plain.close?.();
    rmSync(plainRoot, { recursive: true, force: true });
  }
  const flood = await measureFlood(floodPast, runs);
  return { calls, runs, looseObjects: rows, flood, loadAverage: loadavg().map((value) => round(value, 1)) };
}

/** The README's lines for {@link measureSandboxGitWalk}. */
export function renderSandboxGitWalk(result: SandboxGitWalkResult): string {
  const title = "### The git-directory walk after a sandboxed command";
  if (result.skipped !== undefined) return [title, "", `Not measured: ${result.skipped} (bubblewrap needed).`].join("\n");
  const lines = [
    title,
    "",
    `Host CPU (user + system of the host process; bwrap and the command are children) of a \`bash\` call under sandbox scope \`workspace\`, against the same command in the same rounds in a workspace with no git directory; load average ${result.loadAverage.join(" / ")}. Loose objects: \`true\` in a repository of that many loose objects: the first call of a new run (every loose-object directory listed; it also pays the run's own first-command costs, so "listing all" is an upper bound) and the median of ${result.calls} later ones (each unchanged directory one \`lstat\`; checked: every one skipped, none listed). "Walk alone": the host-side walk of the \`.git\` by itself (\`outwardGitEntries\`, as after a command), median of ${result.looseObjects[0]?.walks ?? 0}, with every loose-object directory's times set just before (all listed) and with all of them unchanged (skipped); checked as above.`,
    "",
    "| loose objects (directories) | first call (ms) | later calls (ms) | no git directory (ms) | walk, listing all (ms) | walk, unchanged skipped (ms) | walk alone, listing all (ms) | walk alone, unchanged skipped (ms) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...result.looseObjects.map(
      (row) =>
        `| ${row.looseObjects.toLocaleString("en-US")} (${row.looseDirectories}) | ${row.firstCallCpuMs} | ${row.repeatedCallCpuMs} | ${row.baselineCpuMs} | ${row.listingWalkMs} | ${row.skippingWalkMs} | ${row.walkListingMs} | ${row.walkSkippingMs} |`,
    ),
  ];
  const flood = result.flood;
  if (flood !== undefined)
    lines.push(
      "",
      `Flood: a command making ${flood.directories.toLocaleString("en-US")} directories at the top of \`.git\`, past the link walk's bound (${gitDirectoryLinkLimits.maxDirectories.toLocaleString("en-US")} directories), against the same directories made in the sandbox's own \`/tmp\` (not walked), median of ${result.runs} rounds, a new workspace each; checked: the notes count every directory moved aside and none is left. ${flood.movedAside.toLocaleString("en-US")} moved aside: ${flood.floodCpuMs} against ${flood.baselineCpuMs} ms of host CPU; per directory moved (against a flood of 500 past the bound in the same round) ${flood.perMovedUs} us, ${(flood.per40000Ms / 1000).toFixed(1)} s per 40,000; the result the model got: ${(flood.resultChars / 1024).toFixed(0)} KB.`,
    );
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const result = await measureSandboxGitWalk(
    option("objects")?.split(",").map(Number) ?? [6_700, 50_000],
    Number(option("flood") ?? 10_000),
    Number(option("calls") ?? 9),
    Number(option("runs") ?? 3),
  );
  console.log(JSON.stringify(result, null, 2));
  console.log(renderSandboxGitWalk(result));
}
