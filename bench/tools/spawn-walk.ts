/**
 * Host cost of one sandboxed spawn (scope `workspace`, bubblewrap) against the workspace's size:
 * the spawn walks the workspace at every spawn (git-protection.ts: nested repositories, set-id
 * files, hard-linked files for `readOnlyPaths`) and again after the command (new-git-directories.ts).
 * Per workspace (empty; 1,000 / 10,000 / 100,000 empty files flat in one directory or spread over
 * directories of 100), rounds interleaved so load drifts hit every size alike:
 * - `spawn`: `sandbox.spawn({ command: "true" })` to exit, this process's CPU (user+sys, `process.cpuUsage`)
 *   and wall;
 * - `walk`: `gitProtection(workspace)` alone (the spawn's walk, the share the size adds);
 * - `rawLstat`: a plain loop of `lstat` over the workspace's files (the floor of any walk that reads each file's mode);
 * and a bare `bwrap --ro-bind / / --dev /dev true` (the reference: this process's CPU to spawn and
 * wait for it, and wall).
 *   node --import tsx bench/tools/spawn-walk.ts [--rounds=7] [--out=bench/results/spawn-walk-s55.json]
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { gitProtection } from "../../src/tools/sandbox/git-protection.js";
import type { ProcessSandbox } from "../../src/tools/sandbox/process-sandbox.js";

const option = (name: string, fallback: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option("rounds", "7"));
const out = option("out", "");
const sizes = option("sizes", "1000,10000,100000").split(",").map(Number);

/** `count` empty files in `workspace`: all in `flat/`, or 100 per directory `d<i>/` when spread. */
function makeWorkspace(count: number, spread: boolean): string {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-spawnwalk-")));
  for (let index = 0; index < count; index++) {
    const directory = path.join(workspace, spread ? `d${Math.floor(index / 100)}` : "flat");
    if (index % 100 === 0 || !spread) mkdirSync(directory, { recursive: true });
    closeSync(openSync(path.join(directory, `f${index}.txt`), "w"));
  }
  return workspace;
}

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

async function timeSpawn(sandbox: ProcessSandbox, cwd: string): Promise<{ cpu: number; wall: number }> {
  const before = process.cpuUsage();
  const start = process.hrtime.bigint();
  const child = sandbox.spawn({ command: "true", args: [], cwd });
  child.stdout.resume();
  child.stderr.resume();
  const exit = await child.exited;
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = cpuMs(process.cpuUsage(before));
  if (exit.exitCode !== 0) throw new Error(`spawn in ${cwd}: ${JSON.stringify(exit)}`);
  return { cpu, wall };
}

/** A plain `lstat` of every file of the workspace (its paths made beforehand): the floor of a walk that looks at each file's mode. */
function timeRawLstat(files: readonly string[]): { cpu: number; wall: number } {
  const before = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (const file of files) lstatSync(file);
  return { cpu: cpuMs(process.cpuUsage(before)), wall: Number(process.hrtime.bigint() - start) / 1e6 };
}

function filesOf(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...filesOf(full));
    else if (entry.isFile()) found.push(full);
  }
  return found;
}

function timeWalk(workspace: string): { cpu: number; wall: number } {
  const before = process.cpuUsage();
  const start = process.hrtime.bigint();
  gitProtection(workspace);
  return { cpu: cpuMs(process.cpuUsage(before)), wall: Number(process.hrtime.bigint() - start) / 1e6 };
}

async function timeBareBwrap(): Promise<{ cpu: number; wall: number }> {
  const before = process.cpuUsage();
  const start = process.hrtime.bigint();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"], { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", resolve);
  });
  if (code !== 0) throw new Error(`bare bwrap exited ${code}`);
  return { cpu: cpuMs(process.cpuUsage(before)), wall: Number(process.hrtime.bigint() - start) / 1e6 };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 10) / 10;
};

async function main(): Promise<void> {
  const cases: { name: string; files: number; spread: boolean }[] = [{ name: "empty", files: 0, spread: false }];
  for (const files of sizes) {
    cases.push({ name: `flat-${files}`, files, spread: false });
    cases.push({ name: `spread-${files}`, files, spread: true });
  }
  const workspaces = cases.map((entry) => {
    const workspace = makeWorkspace(entry.files, entry.spread);
    return { ...entry, workspace, paths: filesOf(workspace) };
  });
  // Past the racy margin (2.5 s), so listings may be reused as in a real run of spawns.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const sandboxes = new Map<string, ProcessSandbox>();
  for (const entry of workspaces) {
    sandboxes.set(entry.name, await createProcessSandbox({ scope: "workspace", workspace: entry.workspace, limits: false }));
  }
  const samples = new Map<
    string,
    { spawnCpu: number[]; spawnWall: number[]; walkCpu: number[]; walkWall: number[]; lstatCpu: number[] }
  >();
  const bare = { cpu: [] as number[], wall: [] as number[] };
  const loads: number[] = [loadavg()[0] ?? 0];
  try {
    // One unmeasured pass first (the first spawn lists every directory; later ones reuse listings).
    for (const entry of workspaces) await timeSpawn(sandboxes.get(entry.name) as ProcessSandbox, entry.workspace);
    for (let round = 0; round < rounds; round++) {
      const reference = await timeBareBwrap();
      bare.cpu.push(reference.cpu);
      bare.wall.push(reference.wall);
      for (const entry of workspaces) {
        const row = samples.get(entry.name) ?? { spawnCpu: [], spawnWall: [], walkCpu: [], walkWall: [], lstatCpu: [] };
        samples.set(entry.name, row);
        const spawned = await timeSpawn(sandboxes.get(entry.name) as ProcessSandbox, entry.workspace);
        row.spawnCpu.push(spawned.cpu);
        row.spawnWall.push(spawned.wall);
        const walked = timeWalk(entry.workspace);
        row.walkCpu.push(walked.cpu);
        row.walkWall.push(walked.wall);
        row.lstatCpu.push(timeRawLstat(entry.paths).cpu);
      }
      loads.push(loadavg()[0] ?? 0);
    }
  } finally {
    for (const entry of workspaces) rmSync(entry.workspace, { recursive: true, force: true });
  }
  const empty = samples.get("empty");
  const emptyCpu = median(empty?.spawnCpu ?? []);
  const bareCpu = median(bare.cpu);
  const rows = workspaces.map((entry) => {
    const row = samples.get(entry.name) as NonNullable<typeof empty>;
    const spawnCpu = median(row.spawnCpu);
    const walkCpu = median(row.walkCpu);
    return {
      workspace: entry.name,
      files: entry.files,
      layout: entry.files === 0 ? "empty" : entry.spread ? "100 files per directory" : "one directory",
      spawnCpuMs: spawnCpu,
      spawnWallMs: median(row.spawnWall),
      walkCpuMs: walkCpu,
      walkWallMs: median(row.walkWall),
      rawLstatCpuMs: median(row.lstatCpu),
      spawnCpuOverEmpty: Math.round((spawnCpu / emptyCpu) * 100) / 100,
      spawnCpuOverBareBwrap: Math.round((spawnCpu / bareCpu) * 100) / 100,
      walkShareOfSpawnCpu: Math.round((walkCpu / spawnCpu) * 100) / 100,
    };
  });
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    rounds,
    command: "true",
    measure:
      "medians over rounds; CPU = this process's user+sys (process.cpuUsage), children (bwrap, the command) not included; one unmeasured spawn per workspace first; listings older than the racy margin, as between a run's spawns",
    load1: {
      start: Math.round((loads[0] ?? 0) * 10) / 10,
      end: Math.round((loads.at(-1) ?? 0) * 10) / 10,
      max: Math.round(Math.max(...loads) * 10) / 10,
    },
    bareBwrap: { cpuMs: bareCpu, wallMs: median(bare.wall), args: "--ro-bind / / --dev /dev --unshare-all true" },
    rows,
  };
  const text = `${JSON.stringify(result, null, 2)}\n`;
  if (out !== "") writeFileSync(out, text);
  process.stdout.write(text);
}

await main();
