// Per-thread CPU of one timed apply_patch (after warm-ups) in this process, from /proc/self/task:
// the main thread ("m"), then by thread id V8's four platform workers (made at start: TurboFan,
// concurrent GC) and libuv's four pool threads (made at the first call through the pool: fsync,
// the temporary files' creates once paced off the main thread, the replaced files' last closes).
// `process.cpuUsage` sums them all, so the A/B (`apply-patch-ab.ts`) cannot tell them apart.
//
//   npx tsx bench/tools/apply-patch-threads.ts --base=DIR [--warmups=1]
//
// DIR is an apply-patch-ab.ts `--keep` directory (change.diff, paths.json, pristine/). Ticks are
// 10 ms. To see inside the timed apply only (kernel stacks included):
//
//   mkfifo ctl ack; PERF_CTL=ctl PERF_ACK=ack perf record -D -1 --control fifo:ctl,ack -g -F 2000 \
//     -- node --perf-basic-prof --import tsx bench/tools/apply-patch-threads.ts --base=DIR
//
// Stop 56 found this way that on an ext4 without a journal (this machine's disk) most of the
// pool's CPU is `__ext4_new_inode` scanning inodes freed in the last 30 s (`recently_deleted`),
// which `git apply` pays as well: see docs/measurement-history.md.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { createRegistry } from "../../src/index.js";
import { createFileTools } from "../../src/tools/index.js";
import { copyTree } from "./multi-file-diff.js";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"];
  }),
);

/** CPU ticks (user + system) of each of this process's threads, by thread id, with its name. */
function threadTicks(): Map<string, { name: string; ticks: number }> {
  const out = new Map<string, { name: string; ticks: number }>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = Number(fields[11]) + Number(fields[12]);
      const name = readFileSync(`/proc/self/task/${tid}/comm`, "latin1").trim();
      out.set(tid, { name: tid === String(process.pid) ? "main" : name, ticks });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** Sends `perf` a control command and waits for its acknowledgement. */
function perfControl(fifo: string, command: string): void {
  writeFileSync(fifo, `${command}\n`);
  // perf keeps the FIFO open: read its "ack\n", not to an end of file.
  const fd = openSync(process.env.PERF_ACK as string, "r");
  readSync(fd, Buffer.alloc(5));
  closeSync(fd);
}

const base = args.get("base") as string;
const warmups = Number(args.get("warmups") ?? 1);
const diff = await readFile(path.join(base, "change.diff"), "utf8");
for (let attempt = 0; attempt <= warmups; attempt++) {
  const workspace = await mkdtemp(path.join(base, "threads-"));
  await copyTree(path.join(base, "pristine"), workspace);
  spawnSync("sync");
  const session = createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
  // Under `perf record -D -1 --control fifo:CTL,ACK`, PERF_CTL/PERF_ACK name those FIFOs: the
  // recording is enabled for the timed apply only.
  const perf = attempt === warmups ? process.env.PERF_CTL : undefined;
  if (perf !== undefined) perfControl(perf, "enable");
  const before = threadTicks();
  const cpu = process.cpuUsage();
  const result = await session.call("apply_patch", { patch: diff });
  const used = process.cpuUsage(cpu);
  const after = threadTicks();
  if (perf !== undefined) perfControl(perf, "disable");
  if (!result.ok) throw new Error(result.error.message);
  if (attempt === warmups) {
    const byThread: string[] = [];
    for (const [tid, { name, ticks }] of after) {
      const delta = ticks - (before.get(tid)?.ticks ?? 0);
      if (delta > 0) byThread.push(`${Number(tid) - process.pid}${name === "main" ? "m" : ""}:${delta * 10}`);
    }
    console.log(`cpu ${((used.user + used.system) / 1000).toFixed(0)} ms; by thread (tid - pid: ms) ${byThread.join(" ")}`);
  }
  await rm(workspace, { recursive: true, force: true });
}
