/**
 * Per-command resource limits under bubblewrap, with real processes in real cgroups: a bounded
 * fork bomb, a large allocation, the groups' removal, stale-group reaping and timeouts. Every
 * test that forks many processes first checks that its limit is enforced, so nothing can run away
 * on a shared machine.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { resetCgroupStateForTests } from "../../src/tools/sandbox/command-cgroup.js";
import type { SandboxedProcess } from "../../src/tools/sandbox/process-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { capability } from "../support/capabilities.js";
import { forksRefused, members, ownGroups, parents, tasksNow } from "../support/command-groups.js";

const bubblewrap = capability("bubblewrap");
const cgroups = capability("cgroups");
const MiB = 1024 * 1024;

/** Whether `pid` still runs: a zombie (dead, waiting for a parent that may never reap it) does not. */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** How much more event-loop lag than the reference's a bounded fork bomb may cause on the host. */
const LAG_MARGIN_MS = 250;

/**
 * Samples the host's event loop every 20 ms, running `onTick` at each tick: `stop()` ends it and
 * returns the worst lag seen (how late a tick came past its 20 ms).
 */
function lagSampler(onTick: () => void): { stop(): number } {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 20);
    last = now;
    onTick();
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}

/** Resolves once `text` appeared on the process's stdout. */
function printed(child: SandboxedProcess, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      seen += chunk;
      if (seen.includes(text)) resolve();
    });
  });
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("resource limits under bubblewrap"), () => {
  let workspace: string;
  beforeAll(() => {
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-limits-")));
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  it("the launcher refuses to start bwrap when it cannot join the command's cgroup", async () => {
    const { CGROUP_JOINING_SCRIPT } = await import("../../src/tools/sandbox/bubblewrap-sandbox.js");
    const run = (file: string) =>
      spawnSync(
        "bash",
        ["--norc", "--noprofile", "-p", "-c", `${CGROUP_JOINING_SCRIPT}\necho started "$@"`, "x", "1", file, "arg"],
        {
          encoding: "utf8",
        },
      );
    const refused = run(path.join(workspace, "missing-dir", "cgroup.procs"));
    expect(refused.status).toBe(125);
    expect(refused.stderr).toContain("cannot join the command's cgroup");
    expect(refused.stdout).toBe("");
    // Control: a writable file (standing in for cgroup.procs) gets the launcher's pid, then it runs.
    const stand = path.join(workspace, "procs");
    const joined = run(stand);
    expect(joined.status).toBe(0);
    expect(joined.stdout).toBe("started arg\n");
    expect(readFileSync(stand, "utf8")).toMatch(/^\d+\n$/);
  });

  it("limits: false asks for nothing and makes no group", async () => {
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace, limits: false });
    expect(sandbox.resourceLimits).toMatchObject({ enforced: true, maxProcesses: undefined, maxMemoryBytes: undefined });
    const result = await runSandboxed(sandbox, {
      command: "bash",
      args: ["-c", "cat /proc/self/cgroup >/dev/null; echo ok"],
      cwd: workspace,
    });
    expect(result.stdout).toBe("ok\n");
    expect(result.limit).toBeUndefined();
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => new BubblewrapSandbox({ scope: "workspace", workspace, limits: { maxProcesses: 0 } })).toThrow(/maxProcesses/);
    expect(() => new BubblewrapSandbox({ scope: "workspace", workspace, limits: { maxMemoryBytes: 1.5 } })).toThrow(
      /maxMemoryBytes/,
    );
  });

  describe.skipIf(cgroups.missing)(cgroups.label("per-command cgroups"), () => {
    const limited = (limits: { maxProcesses?: number; maxMemoryBytes?: number }, scope: "workspace" | "local" = "workspace") => {
      const sandbox = new BubblewrapSandbox({ scope, workspace, limits });
      // Never start a bomb or a big allocation without its limit in force.
      expect(sandbox.resourceLimits.enforced).toBe(true);
      if (limits.maxProcesses !== undefined) expect(sandbox.resourceLimits.maxProcesses).toBe(limits.maxProcesses);
      if (limits.maxMemoryBytes !== undefined) expect(sandbox.resourceLimits.maxMemoryBytes).toBe(limits.maxMemoryBytes);
      return sandbox;
    };

    /** The command groups and their members while a command runs; the command is then killed. */
    const whileRunning = async (sandbox: BubblewrapSandbox, extra: { limits?: false } = {}) => {
      const child = sandbox.spawn({
        command: "bash",
        args: ["-c", "echo up; sleep 5"],
        cwd: workspace,
        signal: AbortSignal.timeout(3_000),
        ...extra,
      });
      child.stderr.resume();
      await printed(child, "up");
      const groups = ownGroups();
      const inside = members();
      child.kill("SIGKILL");
      await child.exited;
      return { groups, inside };
    };

    it("enforces the default limits and says so", () => {
      const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace });
      expect(sandbox.resourceLimits.enforced).toBe(true);
      expect(sandbox.resourceLimits.maxProcesses).toBe(1024);
      expect(sandbox.resourceLimits.maxMemoryBytes).toBeGreaterThan(256 * MiB);
      expect([1, 2, "1+2"]).toContain(sandbox.resourceLimits.cgroup);
      expect(sandbox.resourceLimits.reason).toBeUndefined();
    });

    it("a running command is in a group of its own (none with limits: false), removed when it ends", async () => {
      const limitedRun = await whileRunning(limited({ maxProcesses: 100 }));
      expect(limitedRun.groups.length).toBeGreaterThan(0);
      expect(limitedRun.inside.length).toBeGreaterThanOrEqual(3); // bwrap, its init, bash (and sleep)
      expect(ownGroups()).toEqual([]);
      const unlimited = await whileRunning(new BubblewrapSandbox({ scope: "workspace", workspace, limits: false }));
      expect(unlimited.groups).toEqual([]);
    });

    it("a command spawned with limits: false (a tool's own ripgrep) gets no group; the same command without it does", async () => {
      const sandbox = limited({ maxProcesses: 100 });
      expect((await whileRunning(sandbox, { limits: false })).groups).toEqual([]);
      // Control: the same sandbox and command without the flag runs in a group of its own.
      expect((await whileRunning(sandbox)).groups.length).toBeGreaterThan(0);
      expect(ownGroups()).toEqual([]);
    });

    it("a fork bomb stays under maxProcesses=64, the host stays responsive, and the group is removed", async () => {
      // The bomb is stopped once its group has refused a fork (seen here, from the host), not at a
      // fixed time: on a loaded machine bwrap's start and the first 64 forks can take more than a
      // second (stop 47: a 1 s timeout at load 17 ended it before the limit). The stop is the
      // command's abort signal, as a timeout is: the exit still says which limit it ran into
      // (so a bash call that times out after its bomb hit the limit says both).
      const sandbox = limited({ maxProcesses: 64 });
      const stop = new AbortController();
      const child = sandbox.spawn({
        command: "bash",
        args: ["-c", ":(){ :|:& };:; echo bombed; sleep 30"],
        cwd: workspace,
        // Only a bound for a bomb that never reaches its limit (then the assertions below fail).
        signal: AbortSignal.any([stop.signal, AbortSignal.timeout(30_000)]),
      });
      child.stdout.resume();
      child.stderr.resume();
      let most = 0;
      let stoppedAt: number | undefined;
      const started = performance.now();
      const bombLag = lagSampler(() => {
        most = Math.max(most, tasksNow());
        if (stoppedAt === undefined && forksRefused() > 0) {
          stoppedAt = performance.now();
          stop.abort();
        }
      });
      const exit = await child.exited;
      const ended = performance.now();
      const worstLag = bombLag.stop();
      // Reference: the same sampler (same work per tick) over a harmless command in the same kind
      // of sandbox that lasts as long, so the host's own lag at this moment's load is what the
      // bomb's lag is measured against, not a fixed wall-clock bound (stop 48: 549 ms and 501 ms
      // against 500 at load 36-45, with no bomb needed for that).
      const seconds = Math.max(1, Math.round((ended - started) / 100) / 10);
      const quiet = limited({ maxProcesses: 64 }).spawn({
        command: "bash",
        args: ["-c", `sleep ${seconds}; echo slept`],
        cwd: workspace,
      });
      quiet.stdout.resume();
      quiet.stderr.resume();
      const quietLag = lagSampler(() => {
        tasksNow();
        forksRefused();
      });
      expect((await quiet.exited).exitCode).toBe(0);
      const referenceLag = quietLag.stop();
      console.log(`fork bomb: worst lag ${worstLag.toFixed(0)} ms, reference ${referenceLag.toFixed(0)} ms over ${seconds} s`);
      expect(stoppedAt, "the group never refused a fork").toBeDefined(); // it reached its limit...
      expect(most).toBeGreaterThan(32); // ...by really forking...
      expect(most).toBeLessThanOrEqual(64); // ...and no further than the limit
      // The host stays responsive: the bomb adds at most LAG_MARGIN_MS to the lag the host has anyway.
      expect(worstLag).toBeLessThan(referenceLag + LAG_MARGIN_MS);
      expect(exit.limit).toBe("processes");
      // Stopped, the bomb ends at once, all of it (as the timeout test below bounds it).
      expect(ended - (stoppedAt ?? Number.NaN)).toBeLessThan(3_000);
      expect(ownGroups()).toEqual([]);
    });

    it("positive control: 50 processes start under the same limit", async () => {
      const sandbox = limited({ maxProcesses: 64 });
      const result = await runSandboxed(sandbox, {
        command: "bash",
        args: ["-c", "for i in $(seq 50); do sleep 5 & done; jobs -p | wc -l; kill $(jobs -p); wait; echo done"],
        cwd: workspace,
      });
      expect(result.stdout).toBe("50\ndone\n");
      expect(result.stderr).toBe("");
      expect(result.limit).toBeUndefined();
      expect(ownGroups()).toEqual([]);
    });

    it.each(["workspace", "local"] as const)(
      "allocating 300 MB under maxMemoryBytes=128 MiB is killed and reported (%s)",
      async (scope) => {
        const sandbox = limited({ maxMemoryBytes: 128 * MiB }, scope);
        const allocate = (megabytes: number) =>
          runSandboxed(sandbox, {
            command: "perl",
            // vec grows one buffer and zero-fills it: the bytes are really touched, and only once.
            args: ["-e", `my $x = ""; vec($x, ${megabytes} * 1024 * 1024 - 1, 8) = 1; print length $x`],
            cwd: workspace,
          });
        const killed = await allocate(300);
        expect(killed.limit).toBe("memory");
        expect(killed.exitCode === 0).toBe(false);
        expect(killed.stdout).toBe("");
        // Control: 64 MB fits.
        const fits = await allocate(64);
        expect(fits.stdout).toBe(String(64 * MiB));
        expect(fits.exitCode).toBe(0);
        expect(fits.limit).toBeUndefined();
        expect(ownGroups()).toEqual([]);
      },
    );

    it("a timeout kills everything in the group, and the group goes", async () => {
      const sandbox = limited({ maxProcesses: 64 });
      // The timeout is counted from the group's start (not the spawn's): a sandbox slow to start on
      // a loaded machine must not time out before the three sleeps exist.
      const timeout = new AbortController();
      const child = sandbox.spawn({
        command: "bash",
        args: ["-c", "sleep 30 & sleep 30 & setsid sleep 30 & echo started; wait"],
        cwd: workspace,
        signal: timeout.signal,
      });
      child.stderr.resume();
      await printed(child, "started");
      const timer = setTimeout(() => timeout.abort(new DOMException("The operation timed out.", "TimeoutError")), 600);
      onTestFinished(() => clearTimeout(timer));
      const inside = members();
      expect(inside.length).toBeGreaterThanOrEqual(5); // bwrap, its init, bash, three sleeps
      const started = performance.now();
      const exit = await child.exited;
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(exit.exitCode === 0).toBe(false);
      expect(ownGroups()).toEqual([]);
      // A killed pid namespace's init leaves its cgroup first and finishes exiting a moment later.
      const settle = performance.now() + 1_000;
      while (inside.some(isAlive) && performance.now() < settle) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(inside.filter(isAlive)).toEqual([]);
    });

    it("reaps the empty groups of a host that died, and only those", async () => {
      const dead = spawnSync("true").pid as number;
      expect(isAlive(dead)).toBe(false);
      const made: string[] = [];
      for (const parent of parents()) {
        mkdirSync(parent, { recursive: true });
        for (const name of [`${dead}-1-stale`, "1-1-alive"]) {
          mkdirSync(path.join(parent, name));
          made.push(path.join(parent, name));
        }
      }
      try {
        resetCgroupStateForTests();
        const sandbox = limited({ maxProcesses: 64, maxMemoryBytes: 256 * MiB });
        const result = await runSandboxed(sandbox, { command: "true", args: [], cwd: workspace });
        expect(result.exitCode).toBe(0);
        for (const group of made) expect(existsSync(group)).toBe(group.endsWith("-alive"));
      } finally {
        for (const group of made) if (existsSync(group)) rmdirSync(group);
        for (const parent of parents()) {
          try {
            rmdirSync(parent);
          } catch {
            // Another command's group is inside; that command removes the parent.
          }
        }
      }
    });
  });
});
