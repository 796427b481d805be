// Applies the bench's real multi-file diff several times in one process, each time on a fresh copy
// of its tree (copied and written back to disk before the clock starts), and prints each apply's
// CPU (user and system) and wall. The first apply pays for loading and compiling; the later ones
// are what to profile: run it under `node --cpu-prof` (JavaScript) or `perf record -g` (the
// kernel's share: file creation, renames, flushes) to see where an apply's time goes.
//
//   npx tsx bench/tools/apply-patch-ab.ts --rounds=1 --keep=DIR      (makes the diff and its tree in DIR)
//   node --cpu-prof --import tsx bench/tools/apply-patch-profile.ts --keep=DIR [--applies=6] [--dist]
//   npx tsx bench/tools/apply-patch-profile.ts --keep=DIR --profile=PREFIX
//
// With --profile=PREFIX each apply after the first is profiled alone (the inspector started and
// stopped around the call, every 200 us), into PREFIX-<apply>.cpuprofile: the tree's copy, the
// `sync` and the digest, which `--cpu-prof` mixes in, are left out.
// With --dist the built package (dist/, `npm run build` first) is applied, as a host loads it;
// without, the sources.
// With --wait=MS the process prints its pid and rests MS milliseconds before its last apply, and
// ends right after it (no digest, the tree left where it was), so that a sampler attached to the
// pid sees that apply alone, the kernel's and V8's threads included (what `--cpu-prof` misses):
//
//   node --perf-basic-prof --import tsx bench/tools/apply-patch-profile.ts --keep=DIR --dist --applies=2 --wait=1500 &
//   perf record -F 4000 -g -p <pid printed> -o apply.perf      (--perf-basic-prof names the JS frames)
//
// With --threads each apply also prints the CPU each of the process's threads spent in it (from
// /proc/self/task/<tid>/schedstat, in nanoseconds, no sampler's overhead): the main thread, which
// runs the JavaScript and the synchronous system calls; libuv's pool (four threads sharing the
// asynchronous calls, the flushes among them, so about equal shares); V8's platform threads (the
// optimising compiler, concurrent marking). Which pool a thread is in shows under `perf` (above).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { treeDigest } from "./multi-file-diff.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"];
  }),
);

/** CPU nanoseconds each thread of this process has run, by thread id (Linux). */
function threadCpu(): Map<string, number> {
  const each = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      each.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return each;
}

/** Each thread's CPU between two {@link threadCpu} readings, in ms, the main thread first. */
function threadDelta(before: Map<string, number>, after: Map<string, number>): string {
  const spent = [...after].map(([tid, ns]) => [tid, (ns - (before.get(tid) ?? 0)) / 1e6] as const);
  spent.sort((left, right) => (left[0] === String(process.pid) ? -1 : right[0] === String(process.pid) ? 1 : right[1] - left[1]));
  return spent
    .filter(([, ms]) => ms >= 0.5)
    .map(([tid, ms]) => `${tid === String(process.pid) ? "main" : tid} ${ms.toFixed(1)}`)
    .join(", ");
}

async function main(): Promise<void> {
  const kept = args.get("keep");
  if (kept === undefined || !existsSync(path.join(kept, "expected.digest"))) {
    throw new Error("give --keep=DIR holding the diff and its tree (made by apply-patch-ab.ts --keep=DIR)");
  }
  const base = path.resolve(kept);
  const entry = (sub: string) =>
    pathToFileURL(args.has("dist") ? path.join(root, "dist", sub, "index.js") : path.join(root, "src", sub, "index.ts")).href;
  const { createRegistry } = (await import(entry(""))) as typeof import("../../src/index.js");
  const { createFileTools } = (await import(entry("tools"))) as typeof import("../../src/tools/index.js");
  const diff = await readFile(path.join(base, "change.diff"), "utf8");
  const paths = JSON.parse(await readFile(path.join(base, "paths.json"), "utf8")) as string[];
  const expected = await readFile(path.join(base, "expected.digest"), "utf8");
  const applies = Number(args.get("applies") ?? 6);
  const profile = args.get("profile");
  const inspector = profile === undefined ? undefined : new Session();
  inspector?.connect();
  await inspector?.post("Profiler.enable");
  await inspector?.post("Profiler.setSamplingInterval", { interval: 200 });
  for (let attempt = 1; attempt <= applies; attempt++) {
    const workspace = await mkdtemp(path.join(base, "profile-"));
    await cp(path.join(base, "pristine"), workspace, { recursive: true });
    spawnSync("sync");
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const wait = Number(args.get("wait") ?? 0);
    if (wait > 0 && attempt === applies) {
      console.log(`pid ${process.pid}: apply ${attempt} starts in ${wait} ms`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const profiled = inspector !== undefined && attempt > 1;
    if (profiled) await inspector.post("Profiler.start");
    const threadsBefore = args.has("threads") ? threadCpu() : undefined;
    const faults = process.resourceUsage().minorPageFault;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await run.call("apply_patch", { patch: diff });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const minorFaults = process.resourceUsage().minorPageFault - faults;
    if (threadsBefore !== undefined) console.log(`apply ${attempt} threads (ms): ${threadDelta(threadsBefore, threadCpu())}`);
    if (profiled)
      await writeFile(`${profile}-${attempt}.cpuprofile`, JSON.stringify((await inspector.post("Profiler.stop")).profile));
    if (!result.ok) throw new Error(`apply_patch failed: ${result.error.message}`);
    if (wait > 0 && attempt === applies) {
      console.log(`apply ${attempt}: cpu ${((used.user + used.system) / 1000).toFixed(0)} ms; tree left in ${workspace}`);
      process.exit(0);
    }
    if ((await treeDigest(workspace, paths)) !== expected) throw new Error("apply_patch left other bytes than git apply");
    await rm(workspace, { recursive: true, force: true });
    const ms = (micros: number) => (micros / 1000).toFixed(0);
    console.log(
      `apply ${attempt}: cpu ${ms(used.user + used.system)} ms (user ${ms(used.user)}, system ${ms(used.system)}), wall ${wallMs.toFixed(0)} ms, minor page faults ${minorFaults}`,
    );
  }
}

await main();
