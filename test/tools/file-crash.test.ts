import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfinedFileScope } from "../../src/tools/fs/confined-file-scope.js";
import { intentDirectory, recoverNow } from "../../src/tools/fs/intent-log.js";
import { isProcessAlive } from "../../src/tools/fs/process-identity.js";
import { childFormat, nodeChild } from "../support/child-entry.js";
import { printedLines } from "../support/printed-lines.js";
import { stopProcess } from "../support/stop-process.js";

const repo = path.resolve(import.meta.dirname, "../..");
const worker = path.join(repo, "test/tools/support/crash-worker.mjs");
/** The worker loads the build when it is current (`npm test` builds first; test/support/child-entry.ts); CRASH_FORMAT=src forces the sources. */
const format = process.env.CRASH_FORMAT ?? childFormat();
/** Iterations per workspace; three workspaces run side by side (30 kills in all; the bench runs 102). */
const ITERATIONS = Number(process.env.CRASH_ITERATIONS ?? 10);
const FILES = 10;
/**
 * How long one crash and recovery cycle (start, kill -9, reopen with `ls` or `read`, checks) may
 * take. It takes 1-3 s at low load and ~20 s at load 25 on 2 cores, where a fixed 300 s for the
 * whole test failed: load alone stretches every cycle, but only a stuck one runs past this. The
 * test's own timeout follows from it (each lane runs its cycles one after another).
 */
const CYCLE_LIMIT_MS = Number(process.env.CRASH_CYCLE_LIMIT_MS ?? 90_000);

/**
 * Runs one cycle; fails it, named, when it runs past {@link CYCLE_LIMIT_MS} (stuck, not slow). Then
 * (or when it fails) `lanes` is aborted: every worker it started is killed and the other lanes start no more cycles,
 * so nothing keeps running after the test has failed.
 */
async function oneCycle(label: string, lanes: AbortController, cycle: () => Promise<void>): Promise<number> {
  lanes.signal.throwIfAborted();
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`${label}: one crash and recovery cycle took over ${CYCLE_LIMIT_MS} ms (stuck)`);
      lanes.abort(error);
      reject(error);
    }, CYCLE_LIMIT_MS);
  });
  try {
    await Promise.race([cycle(), limit]);
  } catch (error) {
    // A failed check ends the other lanes too.
    lanes.abort(error);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return performance.now() - started;
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-crash-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A crash worker: its exit code once its output is read, and the lines it printed, awaited by name. */
interface Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** Resolves once the worker printed `line`; rejects, with its stderr, if it ends first. */
  said(line: string): Promise<void>;
}

/**
 * Starts crash-worker.mjs. With `check`, it is the next process after a crash: its first call
 * (`ls` or `read`) recovers the workspace, it says "checked" and waits: "go" on its stdin makes it
 * the next crashing worker, so each crash costs one process start, not one for the crash and one
 * for the recovery (loading the package is most of a short worker's CPU).
 */
function startWorker(workspace: string, signal: AbortSignal, check?: "ls" | "read"): Worker {
  const child = spawn(
    process.execPath,
    [...(format === "src" ? ["--import", "tsx"] : []), worker, JSON.stringify({ workspace, format, check })],
    {
      cwd: repo,
      stdio: ["pipe", "pipe", "pipe"],
      // A failed cycle aborts every lane: its workers are killed, not left running.
      signal,
      killSignal: "SIGKILL",
    },
  );
  child.on("error", () => undefined);
  child.stdin?.on("error", () => undefined);
  const { closed, said } = printedLines(child, check === undefined ? "worker" : `worker (${check} after the crash)`);
  return { child, exited: closed.then(({ code }) => code), said };
}

/** Waits until `running` is ready (its first change made), waits a random while, and kills it with SIGKILL. */
async function crashOnce(running: Worker): Promise<void> {
  await running.said("ready");
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
  running.child.kill("SIGKILL");
  await running.exited;
}

/** The next process opens the workspace with one read-only call (`ls` or `read`); resolves once that call succeeded. */
async function openAgain(workspace: string, check: "ls" | "read", signal: AbortSignal): Promise<Worker> {
  const next = startWorker(workspace, signal, check);
  await next.said("checked");
  return next;
}

/**
 * After only an `ls` or a `read` by a new process: every file of the 10-file patch is in one
 * state, the big file is whole, and nothing is left behind (no temporary file, no intent log).
 */
async function assertConsistent(workspace: string): Promise<void> {
  const contents = await Promise.all(
    Array.from({ length: FILES }, (_, i) => readFile(path.join(workspace, `f${i}.txt`), "utf8")),
  );
  const states = new Set(contents.map((content) => content[0]));
  expect(states.size, `mixed state: ${contents.join(" | ")}`).toBe(1);
  const big = await readFile(path.join(workspace, "big.txt"), "utf8");
  expect(big.length).toBe(2 * 1024 * 1024);
  // One letter throughout: compared with its first letter repeated (a Set of its 2 M characters
  // cost about 80 ms of CPU per check, 30 checks); the Set only says what a mixed file holds.
  if (big !== (big[0] as string).repeat(big.length)) expect(new Set(big).size).toBe(1);
  const leftovers = (await readdir(workspace, { recursive: true })).filter((name) => /\.(tmp|part)$/.test(name));
  expect(leftovers).toEqual([]);
  expect(await readdir(intentDirectory(await realpath(workspace))).catch(() => [])).toEqual([]);
}

/** Runs a crash worker from the repository to its end; the signal that ended it, the last line it printed, its stderr. */
async function runWorker(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ signal: NodeJS.Signals | null; last: string; stderr: string }> {
  const child = spawn(command, args, { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_, killed) => resolve(killed)));
  return { signal, last: stdout.trim().split("\n").at(-1) ?? "", stderr };
}

describe("kill -9 during multi-file apply_patch and large writes", () => {
  it(
    `leaves every file as before or after, and nothing behind, after ${ITERATIONS * 3} crashes`,
    async () => {
      const lanes = new AbortController();
      await Promise.all(
        [0, 1, 2].map(async (lane) => {
          const workspace = path.join(base, `ws${lane}`);
          await rm(workspace, { recursive: true, force: true });
          await import("node:fs/promises").then(({ mkdir }) => mkdir(workspace));
          for (let i = 0; i < FILES; i++) await writeFile(path.join(workspace, `f${i}.txt`), `A ${i}\n`);
          await writeFile(path.join(workspace, "big.txt"), "x".repeat(2 * 1024 * 1024));
          let running = startWorker(workspace, lanes.signal);
          for (let iteration = 0; iteration < ITERATIONS; iteration++) {
            await oneCycle(`lane ${lane}, crash ${iteration + 1}`, lanes, async () => {
              await crashOnce(running);
              // Checked after that process's one call, before it changes anything: then it runs on as the next crash's worker.
              running = await openAgain(workspace, (lane + iteration) % 2 === 0 ? "ls" : "read", lanes.signal);
              await assertConsistent(workspace);
              if (iteration + 1 < ITERATIONS) running.child.stdin?.end("go\n");
              else {
                running.child.stdin?.end();
                expect(await running.exited).toBe(0);
              }
            });
          }
        }),
      );
      // Bounded per cycle above; this only backs it up (a lane's cycles run one after another).
    },
    ITERATIONS * CYCLE_LIMIT_MS + 60_000,
  );
});

/**
 * Stop 35: the last look at a change's files comes after its commit point. A file found changed
 * there takes the commit back (the log says `prepared` again, durably) before any temporary file
 * is removed. A process killed at each point of that sequence, by itself at the moment its
 * watcher sees it (withdraw-crash-worker.mjs), must leave one state after the next recovery:
 * killed while the log still says `committed`, every file new (rolled forward, the append made
 * during the commit overwritten, as before stop 35); once it says `prepared`, every file as
 * before, the append kept; never a mix, and nothing left behind.
 */
describe("kill -9 between the commit point and the commit taken back", () => {
  const withdrawWorker = path.join(repo, "test/tools/support/withdraw-crash-worker.mjs");
  const names = ["a", "b", "c", "d", "e"].map((name) => `${name}.txt`);

  /** Runs the worker in `mode` on a fresh workspace; returns what it printed last, parsed. */
  async function killedAt(
    workspace: string,
    mode: string,
  ): Promise<{ killed?: string; temporaries?: number; finished?: boolean }> {
    await mkdir(workspace);
    for (const name of names) await writeFile(path.join(workspace, name), `head 0\n${"filler\n".repeat(50)}`);
    // On the build when it is current (test/support/child-entry.ts): the worker imports public entries only.
    const child = nodeChild(withdrawWorker, [workspace, mode, intentDirectory(await realpath(workspace))]);
    const { signal, last, stderr } = await runWorker(process.execPath, child.args, child.env);
    if (last === "") throw new Error(`worker said nothing (${signal}): ${stderr}`);
    const said = JSON.parse(last) as { killed?: string; temporaries?: number; finished?: boolean };
    if (said.killed !== undefined) expect(signal).toBe("SIGKILL");
    return said;
  }

  /** After a recovery (as the next process's first call makes it): every file in one state, as the log said at the kill, and nothing behind. */
  async function assertRecovered(workspace: string, killed: string): Promise<void> {
    await recoverNow(createConfinedFileScope(workspace));
    const contents = await Promise.all(names.map((name) => readFile(path.join(workspace, name), "utf8")));
    const heads = new Set(contents.map((content) => content.split("\n")[0]));
    expect(heads, `mixed state: ${[...heads].join(" | ")}`).toEqual(new Set([killed === "committed" ? "head 1" : "head 0"]));
    // Rolled forward, the append made during the commit is overwritten; rolled back, it stays.
    expect((contents[2] as string).endsWith("appended during the commit\n")).toBe(killed !== "committed");
    expect((await readdir(workspace)).filter((name) => name.startsWith(".atc-"))).toEqual([]);
    expect(await readdir(intentDirectory(await realpath(workspace))).catch(() => [])).toEqual([]);
  }

  for (const [mode, expected, title] of [
    ["committed", "committed", "before the log says prepared again: rolled forward"],
    ["withdrawn", "prepared", "once the log says prepared again: rolled back"],
    ["removing", "prepared", "while the temporary files are removed: rolled back"],
  ] as const) {
    it(`killed ${title}, every file in one state`, async () => {
      let said = await killedAt(path.join(base, `withdraw-${mode}-0`), mode);
      // The watcher's events may come after the point passed (a loaded machine): then again, on a
      // fresh workspace (each crash's recovery checked all the same).
      for (let attempt = 1; said.killed !== expected && attempt < 5; attempt++) {
        if (said.killed !== undefined) await assertRecovered(path.join(base, `withdraw-${mode}-${attempt - 1}`), said.killed);
        said = await killedAt(path.join(base, `withdraw-${mode}-${attempt}`), mode);
      }
      expect(said.killed).toBe(expected);
      if (mode === "removing") expect(said.temporaries).toBeLessThan(names.length);
      const last = (await readdir(base))
        .filter((name) => name.startsWith(`withdraw-${mode}-`))
        .sort()
        .at(-1) as string;
      await assertRecovered(path.join(base, last), expected);
    }, 180_000);
  }
});

/**
 * A rename that fails part way (a grouped change: the first group's d01/f.txt replaced by a
 * directory that is not empty after the commit point, the second group never renamed).
 *
 * The intended path (stop 50: the test exercised only the fallback before): the changes carry the
 * content they replace, so the change takes itself back under its log: the log turns `reverting`
 * (durably) before any file is put back or any temporary file removed (`revertInGroups`). A
 * process killed while the second group's temporary files are removed leaves, after the next
 * recovery, every file as before (d01 the other writer's directory), no temporary file, no log.
 * With the revert's log step broken (the log left `committed`) the recovery rolls forward the
 * second group's temporary files not yet removed: d16 old, d17-d19 new.
 *
 * The fallback (a change whose old content is not known as bytes): rolled forward under its
 * still committed log, handed to the recovery (until stop 50 the log was taken back to
 * `prepared` and the temporary files removed, the renamed files left new): no file is removed, the
 * worker ends, and the recovery makes every file new but d01 (the other writer's directory, its
 * temporary file removed).
 */
describe("kill -9 while the temporary files of a rename that failed part way are removed", () => {
  const worker = path.join(repo, "test/tools/support/rename-fail-crash-worker.mjs");
  const directories = Array.from({ length: 20 }, (_, index) => `d${String(index).padStart(2, "0")}`);

  async function seeded(name: string): Promise<string> {
    const workspace = path.join(base, name);
    await mkdir(workspace);
    for (const directory of directories) {
      await mkdir(path.join(workspace, directory));
      await writeFile(path.join(workspace, directory, "f.txt"), "head 0\n");
    }
    return workspace;
  }

  async function recoveredHeads(workspace: string): Promise<string[]> {
    await recoverNow(createConfinedFileScope(workspace));
    for (const directory of directories) {
      expect((await readdir(path.join(workspace, directory))).filter((name) => name.startsWith(".atc-"))).toEqual([]);
    }
    expect(await readdir(intentDirectory(await realpath(workspace))).catch(() => [])).toEqual([]);
    return Promise.all(
      directories.map((directory) =>
        directory === "d01" ? "directory" : readFile(path.join(workspace, directory, "f.txt"), "utf8"),
      ),
    );
  }

  it("revertible (the intended path): the log says reverting by then, and the recovery leaves every file as before", async () => {
    const workspace = await seeded("rename-fail-revert");
    // At an open-file limit of 64, which the worker sets once src is loaded.
    const { signal, last, stderr } = await runWorker(process.execPath, ["--import", "tsx", worker, workspace, "revertible"]);
    expect(last, stderr).not.toBe("");
    expect(signal).toBe("SIGKILL");
    const heads = await recoveredHeads(workspace);
    expect(
      heads.filter((head) => head !== "head 0\n"),
      heads.join(" "),
    ).toEqual(["directory"]);
    expect(JSON.parse(last)).toEqual({ killed: "reverting" });
  }, 60_000);

  it("not revertible: no temporary file is removed; the log is handed over committed, and the recovery makes every file new", async () => {
    const workspace = await seeded("rename-fail-forward");
    const { signal, last, stderr } = await runWorker(process.execPath, ["--import", "tsx", worker, workspace]);
    expect(last, stderr).not.toBe("");
    expect(signal).toBeNull();
    expect(JSON.parse(last)).toEqual({ finished: "Error: file transaction failed" });
    const heads = await recoveredHeads(workspace);
    expect(heads.filter((head) => head !== "head 1\n")).toEqual(["directory"]);
  }, 60_000);
});

describe("an intent log's owner", () => {
  it("is dead once killed, even while it is a zombie not yet reaped", async () => {
    // The shell's background child exits at once; the shell, replaced by sleep, never reaps it.
    const shell = execFile("sh", ["-c", "true & echo $!; exec sleep 2"], { timeout: 5000 }, () => undefined);
    try {
      const pid = await new Promise<number>((resolve, reject) =>
        shell.stdout?.once("data", (chunk) =>
          Number.isInteger(Number(String(chunk).trim())) ? resolve(Number(String(chunk).trim())) : reject(chunk),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(isProcessAlive(`${pid}:?`)).toBe(false);
      expect(isProcessAlive(`${process.pid}:?`)).toBe(true);
    } finally {
      // Ended with the test, not left to sleep on past it (and past the shared worker's check).
      await stopProcess(shell);
    }
  });
});
