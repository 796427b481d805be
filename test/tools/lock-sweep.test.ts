/**
 * The sweep of dead holders' state (src/tools/fs/lock-sweep.ts), with real processes: a process
 * killed with SIGKILL in the middle of a 10-file apply_patch leaves its lock files and its intent
 * log; a NEW process's sweep (started by its first file lock) rolls that change to one state, as
 * the workspace's own recovery would, and removes both. A live holder's lock and log, another pid
 * namespace's lock and a recent one are kept. Stale lock files five times the per-sweep bound
 * (lowered for the test): one sweep examines the bound, in slices, and the first lock of the
 * process does not wait for it. A read-only
 * (immutable) lock directory and a FIFO in a lock's place are skipped, never waited on.
 *
 * The sweep leaves state alone until it is SWEEP_MIN_AGE_MS old (by mtime): the tests age what
 * they made with `utimes` rather than wait ten minutes.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
  utimesSync,
  watch,
  writeFileSync,
} from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withFileLocks } from "../../src/tools/fs/cross-process-lock.js";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import {
  MAX_LOCK_ENTRIES,
  type SweepReport,
  startStateSweep,
  sweepBounds,
  sweepStaleState,
  UNJUDGED_AGE_MS,
} from "../../src/tools/fs/lock-sweep.js";
import { OWN_PID_NAMESPACE, processStartTime } from "../../src/tools/fs/process-identity.js";
import { childFormat, nodeChild } from "../support/child-entry.js";
import { printedLines } from "../support/printed-lines.js";
import { saveStateDirectoryEnv } from "../support/state-directory-env.js";
import { threadTimes } from "../support/thread-time.js";

const repo = path.resolve(import.meta.dirname, "../..");
const crashWorker = path.join(repo, "test/tools/support/crash-worker.mjs");
const holdLock = path.join(repo, "test/tools/support/hold-file-lock.mjs");
const sweepWorker = path.join(repo, "test/tools/lock-sweep-worker.mjs");
const HOUR = 60 * 60_000;
/** A pid no process has (above the kernel's pid_max), for dead holders made by hand. */
const DEAD_PID = 4_194_400;

let base: string;
let restoreEnv: () => void;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-lock-sweep-"));
  restoreEnv = saveStateDirectoryEnv();
});
afterAll(async () => {
  restoreEnv();
  await rm(base, { recursive: true, force: true });
});

/** Every entry under `directory` (and it), made `ageMs` old by mtime and atime. */
async function age(directory: string, ageMs: number): Promise<void> {
  const when = new Date(Date.now() - ageMs);
  for (const name of await readdir(directory, { recursive: true })) utimesSync(path.join(directory, name), when, when);
  utimesSync(directory, when, when);
}

/** Runs lock-sweep-worker.mjs (a new process) over `dirs`; its sweep's report. */
async function sweepInNewProcess(dirs: { locks: string; state: string }): Promise<SweepReport> {
  const child = spawn(process.execPath, ["--import", "tsx", sweepWorker], {
    cwd: repo,
    env: { ...process.env, AGENT_TOOL_CATALOG_LOCK_DIR: dirs.locks, AGENT_TOOL_CATALOG_STATE_DIR: dirs.state },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  if (code !== 0) throw new Error(`sweep worker exited ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").pop() as string) as SweepReport;
}

const lockFiles = async (directory: string) => (await readdir(directory)).filter((name) => name.endsWith(".lock"));
const logsIn = async (directory: string) =>
  (await readdir(directory).catch(() => [] as string[])).filter((name) => name.endsWith(".json"));

/** The first line (holder) of each lock file in `directory`. */
async function holders(directory: string): Promise<string[]> {
  return Promise.all(
    (await lockFiles(directory)).map(async (name) => (await readFile(path.join(directory, name), "utf8")).split("\n")[0] ?? ""),
  );
}

/**
 * Starts crash-worker.mjs (10-file apply_patch flips and 2 MB writes, in a loop) and kills it with
 * SIGKILL as soon as its intent log of a 10-file change appears; retries until a kill left that log
 * (a kill that lands after the change ended leaves none). Returns the dead worker's pid.
 */
async function killMidPatch(workspace: string, env: NodeJS.ProcessEnv, intents: string): Promise<number> {
  for (let attempt = 0; attempt < 8; attempt++) {
    // The built package when it is current (no tsx: about 1.5 s of CPU less per start): the
    // worker uses public entries only, and its locks and intent log are the same on disk.
    const worker = nodeChild(crashWorker, [JSON.stringify({ workspace, format: childFormat() })], { env });
    const child: ChildProcess = spawn(process.execPath, worker.args, {
      cwd: repo,
      env: worker.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const { closed, said } = printedLines(child, "crash worker");
    await said("ready");
    const watcher = watch(intents);
    try {
      await new Promise<void>((resolve) => {
        const look = () => {
          for (const name of readdirSync(intents).filter((entry) => entry.endsWith(".json"))) {
            try {
              const record = JSON.parse(readFileSync(path.join(intents, name), "utf8")) as { entries: unknown[] };
              if (record.entries.length === 10) {
                child.kill("SIGKILL");
                resolve();
                return;
              }
            } catch {}
          }
        };
        watcher.on("change", look);
        closed.then(() => resolve());
        // No such log seen in a while (events missed): this attempt ends, the next one tries again.
        setTimeout(resolve, 60_000).unref();
      });
    } finally {
      watcher.close();
    }
    child.kill("SIGKILL");
    await closed;
    const left = await logsIn(intents);
    if (left.some((name) => name.startsWith(`${child.pid}-`))) return child.pid as number;
  }
  throw new Error("no kill left a 10-file change's intent log");
}

describe("the sweep of dead holders' state", () => {
  it("rolls a killed 10-file apply_patch to one state and removes its log and locks; keeps a live holder's", {
    timeout: 600_000,
  }, async () => {
    const root = await mkdtemp(path.join(base, "crash-"));
    const workspace = path.join(root, "ws");
    const locks = path.join(root, "locks");
    const state = path.join(root, "state");
    await mkdir(workspace);
    for (let i = 0; i < 10; i++) await writeFile(path.join(workspace, `f${i}.txt`), `A ${i}\n`);
    await writeFile(path.join(workspace, "big.txt"), "x".repeat(2 * 1024 * 1024));
    const env = { ...process.env, AGENT_TOOL_CATALOG_LOCK_DIR: locks, AGENT_TOOL_CATALOG_STATE_DIR: state };
    // The state directory the workers use (intentDirectory reads it from the environment).
    process.env.AGENT_TOOL_CATALOG_STATE_DIR = state;
    const intents = intentDirectory(await realpath(workspace));
    restoreEnv();
    await mkdir(intents, { recursive: true, mode: 0o700 });
    const dead = await killMidPatch(workspace, env, intents);
    expect(await logsIn(intents)).toEqual([expect.stringMatching(new RegExp(`^${dead}-`))]);
    // It held the locks of the files it was changing when it died.
    expect((await holders(locks)).filter((holder) => holder.startsWith(`${dead}:`)).length).toBeGreaterThan(0);

    // A live holder: a process holding a file lock (through withFileLocks), and a log of its in the
    // same workspace's intent directory (a change in flight), both as old as the dead one's.
    const holder = spawn(process.execPath, ["--import", "tsx", holdLock, locks, "live-key"], {
      cwd: repo,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const held = printedLines(holder, "lock holder");
    try {
      await held.said("held");
      const live = `${holder.pid}:${processStartTime(holder.pid as number)}:${OWN_PID_NAMESPACE}`;
      expect(await holders(locks)).toContain(live);
      const liveLog = path.join(intents, `${holder.pid}-000000000000.json`);
      await writeFile(liveLog, JSON.stringify({ owner: live, root: await realpath(workspace), state: "prepared", entries: [] }), {
        mode: 0o600,
      });
      await age(locks, 2 * HOUR);
      await age(path.join(state, "intents"), 2 * HOUR);

      const report = await sweepInNewProcess({ locks, state });
      expect(report.intentDirectoriesRecovered).toBe(1);
      // One state: every file A, or every file B.
      const contents = await Promise.all(
        Array.from({ length: 10 }, (_, i) => readFile(path.join(workspace, `f${i}.txt`), "utf8")),
      );
      expect(new Set(contents.map((content) => content[0])).size, contents.join(" | ")).toBe(1);
      expect((await readdir(workspace)).filter((name) => /\.(tmp|part)$/.test(name))).toEqual([]);
      // The dead one's log and locks are gone; the live holder's are kept.
      expect(await logsIn(intents)).toEqual([path.basename(liveLog)]);
      const after = await holders(locks);
      expect(after.filter((entry) => entry.startsWith(`${dead}:`))).toEqual([]);
      expect(after).toContain(live);
      expect(report.locksRemoved).toBeGreaterThan(0);
    } finally {
      holder.stdin?.end();
      await held.closed;
    }
  });

  it("judges by identity: another namespace's, a recent and an old legacy holder's locks", async () => {
    const locks = await mkdtemp(path.join(base, "judge-"));
    const state = await mkdtemp(path.join(base, "judge-state-"));
    const own = OWN_PID_NAMESPACE;
    expect(own).toBeDefined();
    const lock = (name: string, holder: string, ageMs: number) => {
      const file = path.join(locks, `${name.padEnd(40, "0")}.lock`);
      execFileSync("sh", ["-c", 'printf "%s\\nkey\\n" "$1" > "$2"', "sh", holder, file]);
      const when = new Date(Date.now() - ageMs);
      utimesSync(file, when, when);
      return path.basename(file);
    };
    const deadHere = lock("a1", `${DEAD_PID}:123:${own}`, 2 * HOUR);
    const otherNamespace = lock("b2", `${DEAD_PID}:123:4026500000`, 2 * HOUR);
    const recent = lock("c3", `${DEAD_PID}:123:${own}`, 60_000);
    const legacyOld = lock("d4", `${DEAD_PID}:123`, UNJUDGED_AGE_MS + HOUR);
    const legacyYoung = lock("e5", `${DEAD_PID}:123`, UNJUDGED_AGE_MS / 2);
    // A reused pid: this process's pid with another start time is not this process.
    const reused = lock("f6", `${process.pid}:1:${own}`, 2 * HOUR);
    const alive = lock("a7", `${process.pid}:${processStartTime(process.pid)}:${own}`, 2 * HOUR);
    const report = await sweepStaleState({ locks, intents: path.join(state, "intents") });
    expect((await lockFiles(locks)).sort()).toEqual([otherNamespace, recent, legacyYoung, alive].sort());
    expect(report.locksRemoved).toBe(3);
    for (const gone of [deadHere, legacyOld, reused]) expect(await lockFiles(locks)).not.toContain(gone);
  });

  it("stale locks five times the bound: one sweep examines the bound, and the first lock does not wait for it", {
    timeout: 300_000,
  }, async () => {
    // The bound lowered through the sweep's internal option (MAX_LOCK_ENTRIES, 2,000, is the
    // default): the same walk with the same limit, proven on 2,000 locks instead of 10,000. At
    // 2,000 per sweep the two sweeps below took 18.6-20 s of a CI run, mostly their slices' pauses.
    const bound = 400;
    const count = 5 * bound;
    expect(sweepBounds.lockEntries).toBe(MAX_LOCK_ENTRIES);
    const locks = await mkdtemp(path.join(base, "many-"));
    const state = await mkdtemp(path.join(base, "many-state-"));
    // One stale lock file, hard-linked under every other name (a multi-key batch's locks are
    // links too): one link call per lock, and one mtime for all of them.
    const first = path.join(locks, `${"0".padStart(40, "0")}.lock`);
    writeFileSync(first, `${DEAD_PID}:1:${OWN_PID_NAMESPACE}\nkey\n`, { mode: 0o600 });
    const when = new Date(Date.now() - 2 * HOUR);
    utimesSync(first, when, when);
    for (let i = 1; i < count; i++) linkSync(first, path.join(locks, `${i.toString(16).padStart(40, "0")}.lock`));
    process.env.AGENT_TOOL_CATALOG_LOCK_DIR = locks;
    process.env.AGENT_TOOL_CATALOG_STATE_DIR = state;
    sweepBounds.lockEntries = bound;
    try {
      const before = threadTimes();
      let leftWhenLocked = 0;
      // This process's first lock in this directory starts the sweep; its task runs at once.
      await withFileLocks(["many-first"], async () => {
        leftWhenLocked = (await lockFiles(locks)).length;
      });
      const report = await startStateSweep();
      const ran = threadTimes().ranMs - before.ranMs;
      // Reference in the same run: the calls a removal needs, made in one plain loop on as many others.
      const reference = await mkdtemp(path.join(base, "reference-"));
      for (let i = 0; i < bound; i++) writeFileSync(path.join(reference, `${i}.lock`), "x\n");
      const referenceStart = threadTimes().ranMs;
      for (let i = 0; i < bound; i++) {
        removeLikeTheSweep(path.join(reference, `${i}.lock`));
      }
      const referenceMs = threadTimes().ranMs - referenceStart;
      const load = (await readFile("/proc/loadavg", "utf8")).split(" ")[0];
      console.info(
        `[lock-sweep] ${count} stale locks, bound ${bound}: sweep removed ${report.locksRemoved} in ${report.slices} slices, ` +
          `${ran.toFixed(0)} ms of this thread's CPU (reference loop ${referenceMs.toFixed(0)} ms), first lock's task saw ${leftWhenLocked} left, load ${load}`,
      );
      // The first lock's task ran before the sweep had done its bound: waiting for it, the task
      // saw exactly count - bound + 1 (the lock itself is one of them). Up to 398 removals before
      // it are tolerated, about the 400 the 10,000-lock version of this test tolerated at load.
      expect(leftWhenLocked).toBeGreaterThan(count - bound + 1);
      // Bounded: one sweep examines the bound at most; the rest is the next process's.
      expect(report.locksExamined).toBe(bound);
      // One examined entry may be the first lock's own (live) lock file, when a slice listed the
      // directory while the task ran (seen at load 39): that one is kept.
      expect(report.locksRemoved).toBeGreaterThanOrEqual(bound - 1);
      expect((await lockFiles(locks)).length).toBe(count - report.locksRemoved);
      expect(ran).toBeLessThan(6 * referenceMs + 200);
      // The next sweep (another process's) goes on where this one left room.
      const next = await sweepStaleState({ locks, intents: path.join(state, "intents") });
      expect(next.locksRemoved).toBe(bound);
      expect((await lockFiles(locks)).length).toBe(count - report.locksRemoved - bound);
    } finally {
      sweepBounds.lockEntries = MAX_LOCK_ENTRIES;
      restoreEnv();
    }
  });

  it("skips a FIFO in a lock's place and an immutable lock directory; never hangs", { timeout: 120_000 }, async () => {
    const locks = await mkdtemp(path.join(base, "faults-"));
    const intents = path.join(await mkdtemp(path.join(base, "faults-state-")), "intents");
    const when = new Date(Date.now() - 2 * HOUR);
    const fifo = path.join(locks, `${"f".repeat(40)}.lock`);
    execFileSync("mkfifo", [fifo]);
    utimesSync(fifo, when, when);
    const stale = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const file = path.join(locks, `${i.toString(16).padStart(40, "0")}.lock`);
        await writeFile(file, `${DEAD_PID}:1:${OWN_PID_NAMESPACE}\nkey\n`, { mode: 0o600 });
        utimesSync(file, when, when);
      }
    };
    await stale(20);
    const first = await sweepStaleState({ locks, intents });
    expect(first.skipped).toBe(1);
    expect(first.locksRemoved).toBe(20);
    expect(await lockFiles(locks)).toEqual([path.basename(fifo)]);

    await stale(20);
    execFileSync("chattr", ["+i", locks]);
    let refused: SweepReport;
    try {
      refused = await sweepStaleState({ locks, intents });
    } finally {
      execFileSync("chattr", ["-i", locks]);
    }
    expect(refused.locksRemoved).toBe(0);
    expect(refused.skipped).toBeGreaterThanOrEqual(1);
    expect((await lockFiles(locks)).length).toBe(21);
    // Positive control: writable again, the same sweep removes them.
    const again = await sweepStaleState({ locks, intents });
    expect(again.locksRemoved).toBe(20);
  });
});

/** The calls the sweep makes to remove one lock (age, read, break lock made, read again, unlink, break lock removed), plainly. */
function removeLikeTheSweep(file: string): void {
  lstatSync(file);
  readFileSync(file, "utf8");
  mkdirSync(`${file}.break`);
  readFileSync(file, "utf8");
  unlinkSync(file);
  rmdirSync(`${file}.break`);
}
