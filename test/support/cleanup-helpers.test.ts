/**
 * The cleanup helpers of test/support: stopProcess returns only once the child has exited,
 * killUntilGone only once no process it names runs, and removeTree's failure names the process
 * still writing in the directory.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startBackgroundLoop } from "./background-loop.js";
import { processesUnder, removeTree } from "./remove-tree.js";
import { killUntilGone, pidsWith, stopProcess } from "./stop-process.js";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-cleanup-helpers-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("stopProcess", () => {
  it("resolves once the child has exited (its signal known), and at once for one that has", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    await stopProcess(child);
    expect(child.signalCode).toBe("SIGKILL");
    // Reaped: the pid is gone, not a zombie.
    expect(() => process.kill(child.pid as number, 0)).toThrow(/ESRCH/);
    await stopProcess(child);
    const ended = spawn("true", [], { stdio: "ignore" });
    await new Promise((resolve) => ended.once("exit", resolve));
    await stopProcess(ended);
    expect(ended.exitCode).toBe(0);
  });
});

describe("killUntilGone", () => {
  it("resolves once none of the processes it names runs (orphans, not our children)", async () => {
    const mark = `atc-cleanup-helpers-${process.pid}-${Date.now()}`;
    // Three sleeps whose parent shell exits at once: orphans, with no exit event for us.
    const shell = spawn("bash", ["-c", `for i in 1 2 3; do (exec -a ${mark} sleep 30) & done`], { stdio: "ignore" });
    await new Promise((resolve) => shell.once("exit", resolve));
    await expect.poll(() => pidsWith(mark).length).toBe(3);
    await killUntilGone(() => pidsWith(mark));
    expect(pidsWith(mark)).toEqual([]);
  });
});

describe("removeTree", () => {
  it("names the process still writing in the directory when the removal fails; removes it once the writer is stopped", async () => {
    const directory = path.join(base, "busy");
    await mkdir(directory);
    // Control: nothing under it holds anything.
    expect(processesUnder(directory)).toEqual([]);
    const startWriter = () => startBackgroundLoop("exec 3>held; i=0; while :; do : > f$i; i=$((i+1)); done", { cwd: directory });
    let writer = startWriter();
    try {
      let failure: unknown;
      for (let attempt = 0; attempt < 50 && failure === undefined; attempt++) {
        await expect.poll(() => processesUnder(directory).join("\n")).toMatch(/\(sh -c exec 3>held.*\): cwd, fd 3 .*held/);
        await removeTree(directory).catch((error: unknown) => {
          failure = error;
        });
        if (failure !== undefined) break;
        // The removal won the race (the writer was not scheduled between rm's last unlink and its
        // rmdir, as on a loaded machine): the writer's cwd is now a deleted directory where it can
        // make nothing, so it is stopped and a new one started in the directory made again.
        await writer.stop();
        await mkdir(directory, { recursive: true });
        writer = startWriter();
      }
      expect(String(failure)).toMatch(/something still writes in .*busy\..*sh -c exec 3>held/s);
    } finally {
      await writer.stop();
    }
    await removeTree(directory);
    expect(processesUnder(directory)).toEqual([]);
  });
});
