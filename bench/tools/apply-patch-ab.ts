// A/B of apply_patch between two checkouts of this repository, on the bench's real 509-file diff,
// beside `git apply` on a copy of the same tree. Each round runs, in an order that alternates,
// one new process per build (a warm-up apply, then one timed apply) and one `git apply`, so that
// machine load hits all three alike. Prints CPU and wall per apply and the ratios to git.
//
//   npx tsx bench/tools/apply-patch-ab.ts --old=/tmp/old-checkout --new=. [--rounds=7] [--files=509] [--keep=DIR] [--warmups=1] [--settle=MS] [--out=FILE] [--note=TEXT]
//
// With --warmups=N each process makes N warm-up applies before the timed one (default 1). The
// second apply of a new process still pays for V8 compiling the code it runs (about a fifth of its
// CPU on this machine) and for growing its heap; a larger N measures a host that has made that
// many calls already. The default is the figure the README gives as the ratio to `git apply`.
//
// With --settle=MS each copy of the tree rests MS milliseconds after it is written back to disk and
// before the timed apply (the clock is not running): a tree whose files are older than
// `RACY_MARGIN_MS` (3 s), as a checkout usually is, lets the commit's check prove a file unchanged
// by its lstat instead of reading it again (see `src/tools/fs/read-look.ts`); a fresh copy (the
// default, 0) has every file read twice. `git apply` rests the same.
//
// With --out=FILE the figures (every round, the medians, the ratios, the load, the file system) are written there
// as JSON (bench/results/apply-patch-ab-*.json are such files).
// With --note=TEXT that file also says what "old" and "new" were (say, a variant made only to
// measure what a cost is worth), in its `note`.
//
// With --keep=DIR the diff and its trees are made in DIR and left there; a later run given the
// same --keep reuses them (making the diff takes longer than a round).
//
// The old checkout needs its own `src` and `tsconfig.json` (say `git archive <commit> | tar -x`)
// and a `node_modules` link; tsx resolves `agent-tool-catalog` through its tsconfig paths.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "../stats.js";
import { fileSystemOf } from "./file-system-of.js";
import { copyTree, realDiff, treeDigest, writeTree } from "./multi-file-diff.js";

interface Timing {
  readonly cpuMs: number;
  readonly wallMs: number;
  /**
   * Minor page faults of the timed apply (apply_patch: `process.resourceUsage()` around the call;
   * `git apply`: its whole process, `/usr/bin/time`). On this machine, a VM where a fault costs
   * about 20 us of CPU, they are a part of the CPU worth counting apart.
   */
  readonly faults: number;
}

const self = fileURLToPath(import.meta.url);
const args = new Map(
  process.argv.slice(2).map((arg): [string, string] => {
    // Split at the first "=" only: a --note may hold one.
    const at = arg.indexOf("=");
    return at === -1 ? [arg.replace(/^--/, ""), "true"] : [arg.slice(0, at).replace(/^--/, ""), arg.slice(at + 1)];
  }),
);

/** Child: `warmups` warm-up applies and one timed apply of `base`'s diff with the build at `root`. */
async function child(root: string, base: string, warmups: number, settle: number): Promise<void> {
  const { createRegistry } = (await import(
    pathToFileURL(path.join(root, "src/index.ts")).href
  )) as typeof import("../../src/index.js");
  const { createFileTools } = (await import(
    pathToFileURL(path.join(root, "src/tools/index.ts")).href
  )) as typeof import("../../src/tools/index.js");
  const diff = await readFile(path.join(base, "change.diff"), "utf8");
  const paths = JSON.parse(await readFile(path.join(base, "paths.json"), "utf8")) as string[];
  const expected = await readFile(path.join(base, "expected.digest"), "utf8");
  const timings: Timing[] = [];
  const attempts = [...Array.from({ length: warmups }, () => "warm"), "timed"];
  for (const attempt of attempts) {
    const workspace = await mkdtemp(path.join(base, `${attempt}-`));
    await copyTree(path.join(base, "pristine"), workspace);
    spawnSync("sync");
    await rest(settle);
    const session = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const faultsBefore = process.resourceUsage().minorPageFault;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await session.call("apply_patch", { patch: diff });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const faults = process.resourceUsage().minorPageFault - faultsBefore;
    if (!result.ok) throw new Error(`apply_patch failed: ${result.error.message}`);
    if ((await treeDigest(workspace, paths)) !== expected) throw new Error("apply_patch left other bytes than git apply");
    timings.push({ cpuMs: (used.user + used.system) / 1000, wallMs, faults });
    await rm(workspace, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(timings.at(-1)));
}

/** `git apply` of the diff on a fresh copy: wall measured here, CPU by /usr/bin/time. */
async function gitApply(base: string, settle: number): Promise<Timing> {
  const reference = await mkdtemp(path.join(base, "git-"));
  await copyTree(path.join(base, "pristine"), reference);
  spawnSync("sync");
  await rest(settle);
  const started = performance.now();
  const out = spawnSync("/usr/bin/time", ["-f", "%U %S %R", "git", "apply", path.join(base, "change.diff")], {
    cwd: reference,
    encoding: "utf8",
  });
  const wallMs = performance.now() - started;
  if (out.status !== 0) throw new Error(`git apply failed: ${out.stderr}`);
  const [user, system, faults] = (out.stderr.trim().split("\n").at(-1) as string).split(" ").map(Number);
  await rm(reference, { recursive: true, force: true });
  return { cpuMs: ((user as number) + (system as number)) * 1000, wallMs, faults: faults as number };
}

/** Waits `ms` milliseconds (a copy's files then older than that when the clock starts). */
function rest(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

function runChild(root: string, base: string, warmups: number, settle: number): Timing {
  const child = [
    "--import",
    "tsx",
    self,
    "--child",
    `--root=${root}`,
    `--base=${base}`,
    `--warmups=${warmups}`,
    `--settle=${settle}`,
  ];
  const output = execFileSync(process.execPath, child, {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(output) as Timing;
}

/** Makes the diff, the tree before it and the digest of `git apply`'s result in `base`. */
async function prepare(base: string, root: string, files: number): Promise<void> {
  const diff = await realDiff(path.join(base, "scratch"), path.join(root, "node_modules"), files);
  await rm(path.join(base, "scratch"), { recursive: true, force: true });
  await writeTree(path.join(base, "pristine"), diff.before);
  await writeFile(path.join(base, "change.diff"), diff.diff);
  const paths = [...diff.before.keys()];
  await writeFile(path.join(base, "paths.json"), JSON.stringify(paths));
  const reference = path.join(base, "reference");
  await copyTree(path.join(base, "pristine"), reference);
  execFileSync("git", ["apply", path.join(base, "change.diff")], { cwd: reference });
  await writeFile(path.join(base, "expected.digest"), await treeDigest(reference, paths));
  await rm(reference, { recursive: true, force: true });
}

type Which = "old" | "new" | "git";

/** `--warmups`: how many applies each process makes before the timed one. */
function warmupCount(): number {
  const warmups = Number(args.get("warmups") ?? 1);
  if (!Number.isInteger(warmups) || warmups < 0) throw new Error("--warmups takes a whole number");
  return warmups;
}

/** `--settle`: how long each copy of the tree rests before the timed apply. */
function settleMs(): number {
  const settle = Number(args.get("settle") ?? 0);
  if (!Number.isInteger(settle) || settle < 0) throw new Error("--settle takes a whole number of milliseconds");
  return settle;
}

/** What a run was (its diff, rounds, rests and load), for {@link writeFigures}. */
interface RunShape {
  readonly diff: { readonly files: number; readonly bytes: number };
  readonly rounds: number;
  readonly warmups: number;
  readonly settleMs: number;
  readonly loads: readonly number[];
  readonly fileSystem: ReturnType<typeof fileSystemOf>;
  readonly oldRoot: string;
  readonly newRoot: string;
}

/** Writes a run's figures to `out` as JSON: every round, the medians, the ratios to `git apply`. */
async function writeFigures(out: string, run: RunShape, results: Record<Which, Timing[]>): Promise<void> {
  const cpu = (which: Which) => median(results[which].map((each) => each.cpuMs));
  const wall = (which: Which) => median(results[which].map((each) => each.wallMs));
  const faults = (which: Which) => median(results[which].map((each) => each.faults));
  const ratio = (which: Which) => Number((cpu(which) / cpu("git")).toFixed(2));
  // Each round's own ratio too: a round's three applies met the same load.
  const perRound = (which: Which) =>
    results[which].map((timing, round) => Number((timing.cpuMs / (results.git[round] as Timing).cpuMs).toFixed(2)));
  const figures = {
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      date: new Date().toISOString(),
    },
    diff: run.diff,
    rounds: run.rounds,
    warmups: run.warmups,
    settleMs: run.settleMs,
    load: { perRound: run.loads, after: loadavg().map((each) => Number(each.toFixed(1))) },
    // Where the trees were (see `fileSystemOf`): the ratio to `git apply` depends on it.
    fileSystem: run.fileSystem ?? "unknown",
    // What "old" and "new" were (`--note`), when said.
    ...(args.has("note") ? { note: args.get("note") } : {}),
    old: run.oldRoot,
    new: run.newRoot,
    timings: results,
    medianCpuMs: { old: cpu("old"), new: cpu("new"), git: cpu("git") },
    medianWallMs: { old: wall("old"), new: wall("new"), git: wall("git") },
    medianFaults: { old: faults("old"), new: faults("new"), git: faults("git") },
    cpuRatioToGit: { old: ratio("old"), new: ratio("new") },
    perRoundCpuRatioToGit: { old: perRound("old"), new: perRound("new") },
    medianPerRoundCpuRatioToGit: { old: median(perRound("old")), new: median(perRound("new")) },
  };
  await writeFile(out, `${JSON.stringify(figures, null, 2)}\n`);
}

async function main(): Promise<void> {
  const warmups = warmupCount();
  const settle = settleMs();
  if (args.has("child")) return child(args.get("root") as string, args.get("base") as string, warmups, settle);
  const oldRoot = path.resolve(args.get("old") ?? ".");
  const newRoot = path.resolve(args.get("new") ?? ".");
  const rounds = Number(args.get("rounds") ?? 7);
  const kept = args.get("keep");
  const base = kept === undefined ? await mkdtemp(path.join(tmpdir(), "atc-patch-ab-")) : path.resolve(kept);
  try {
    if (!existsSync(path.join(base, "expected.digest"))) await prepare(base, newRoot, Number(args.get("files") ?? 509));
    const diffBytes = (await stat(path.join(base, "change.diff"))).size;
    const fileCount = (JSON.parse(await readFile(path.join(base, "paths.json"), "utf8")) as string[]).length;
    const fileSystem = fileSystemOf(base);
    console.log(
      `diff: ${fileCount} files, ${diffBytes} bytes; ${rounds} rounds; timed apply after ${warmups} warm-up(s); trees rest ${settle} ms; file system ${JSON.stringify(fileSystem ?? "unknown")}`,
    );
    const results: Record<Which, Timing[]> = { old: [], new: [], git: [] };
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order: Which[] = round % 2 === 0 ? ["old", "new", "git"] : ["git", "new", "old"];
      const load = loadavg()[0]?.toFixed(1);
      loads.push(Number(load));
      const line: string[] = [];
      for (const which of order) {
        const timing =
          which === "git" ? await gitApply(base, settle) : runChild(which === "old" ? oldRoot : newRoot, base, warmups, settle);
        results[which].push(timing);
        line.push(`${which} cpu ${timing.cpuMs.toFixed(0)} wall ${timing.wallMs.toFixed(0)} faults ${timing.faults}`);
      }
      console.log(`round ${round + 1} (load ${load}): ${line.join(" | ")}`);
    }
    const cpu = (which: Which) => median(results[which].map((each) => each.cpuMs));
    const wall = (which: Which) => median(results[which].map((each) => each.wallMs));
    const faults = (which: Which) => median(results[which].map((each) => each.faults));
    for (const which of ["old", "new", "git"] as const)
      console.log(`${which}: median cpu ${cpu(which).toFixed(0)} ms, wall ${wall(which).toFixed(0)} ms, faults ${faults(which)}`);
    for (const which of ["old", "new"] as const)
      console.log(`${which}/git: cpu ${(cpu(which) / cpu("git")).toFixed(2)}x, wall ${(wall(which) / wall("git")).toFixed(2)}x`);
    console.log(`old/new: cpu ${(cpu("old") / cpu("new")).toFixed(2)}x, wall ${(wall("old") / wall("new")).toFixed(2)}x`);
    const out = args.get("out");
    if (out !== undefined) {
      const run = {
        diff: { files: fileCount, bytes: diffBytes },
        rounds,
        warmups,
        settleMs: settle,
        loads,
        fileSystem,
        oldRoot,
        newRoot,
      };
      await writeFigures(out, run, results);
    }
    console.log(
      `load now ${loadavg()
        .map((each) => each.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    if (kept === undefined) await rm(base, { recursive: true, force: true });
  }
}

await main();
