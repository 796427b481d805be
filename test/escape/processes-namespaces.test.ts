/**
 * Escape attempts across the namespaces a command shares, or does not share, with the host and
 * with the run's other commands: SysV IPC objects and POSIX shared memory of the host, the
 * host's devices, two parallel bash calls of one run watching each other, a background process
 * outliving its call to tamper with the next one, the host's environment through `/proc/1`
 * (bwrap's init) and every `/proc/<pid>/environ`, and whether set-user-id programs can raise
 * privileges (`NoNewPrivs`). Controls: the same unsandboxed, or within the same call.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const confined = ["workspace", "local"] as const;
/** What bwrap's own `/dev` holds; anything else would be a host device. */
const SANDBOX_DEVICES = new Set([
  "core",
  "fd",
  "full",
  "null",
  "ptmx",
  "pts",
  "random",
  "shm",
  "stderr",
  "stdin",
  "stdout",
  "tty",
  "urandom",
  "zero",
]);

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: shared namespaces"), () => {
  let ground: Playground;
  const ipcIds: { kind: "-m" | "-q" | "-s"; id: string }[] = [];
  const hostShm = `/dev/shm/atc-escape-${process.pid}`;
  const sandboxShm = `/dev/shm/atc-escape-sandbox-${process.pid}`;
  beforeAll(async () => {
    ground = await playground();
    // A shared memory segment, a message queue and a semaphore set of the host.
    for (const [flag, kind] of [
      ["-M", "-m"],
      ["-Q", "-q"],
      ["-S", "-s"],
    ] as const) {
      const args = flag === "-Q" ? [flag] : [flag, flag === "-M" ? "4096" : "1"];
      const id = /id: (\d+)/.exec(execFileSync("ipcmk", args).toString())?.[1];
      if (id !== undefined) ipcIds.push({ kind, id });
    }
    writeFileSync(hostShm, "host shared memory\n");
  });
  afterAll(async () => {
    for (const { kind, id } of ipcIds) execFileSync("ipcrm", [kind, id]);
    rmSync(hostShm, { force: true });
    rmSync(sandboxShm, { force: true });
    await ground.dispose();
  });
  const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

  escapeAttempt("processes", "reach the host's SysV shared memory, message queues and semaphores", async () => {
    expect(ipcIds).toHaveLength(3);
    const command = `ipcs -m -q -s | grep -cE '^0x[0-9a-f]+ +(${ipcIds.map(({ id }) => id).join("|")}) '`;
    for (const scope of confined) expect((await sh(run(scope), command)).stdout).toBe("0");
    expect(Number((await sh(run("unrestricted"), command)).stdout)).toBeGreaterThanOrEqual(3);
  });

  escapeAttempt("processes", "read or plant POSIX shared memory in the host's /dev/shm", async () => {
    const command = `cat ${hostShm} 2>/dev/null || echo unseen; echo planted > ${sandboxShm} && echo wrote`;
    for (const scope of confined) {
      // Its own /dev/shm works (wrote), but is not the host's.
      expect((await sh(run(scope), command)).stdout).toBe("unseen\nwrote");
      expect(existsSync(sandboxShm)).toBe(false);
    }
    expect((await sh(run("unrestricted"), command)).stdout).toBe("host shared memory\nwrote");
    expect(existsSync(sandboxShm)).toBe(true);
  });

  escapeAttempt(
    "privileges",
    "open a host device (/dev/kmsg, mem, fuse, loop, net/tun, kvm, vsock, userfaultfd, disks)",
    async () => {
      for (const scope of confined) {
        const listed = (await sh(run(scope), "ls /dev")).stdout.split("\n");
        expect(listed.filter((name) => !SANDBOX_DEVICES.has(name))).toEqual([]);
        expect(listed).toContain("null");
      }
      // Control: the host's /dev has devices beyond these.
      expect(readdirSync("/dev").filter((name) => !SANDBOX_DEVICES.has(name)).length).toBeGreaterThan(0);
    },
  );

  escapeAttempt("processes", "watch a parallel bash call of the same run (its processes, environment, descriptors)", async () => {
    const watch = "sleep 0.5; grep -l ATC_SIBLING_MARK /proc/[0-9]*/environ 2>/dev/null | wc -l";
    const watched = await Promise.all(
      (["workspace", "local", "unrestricted"] as const).map(async (scope) => {
        const calls = attackRun(ground.workspace, scope);
        const [, watcher] = await Promise.all([sh(calls, "ATC_SIBLING_MARK=1 sleep 1.5"), sh(calls, watch)]);
        return watcher.stdout;
      }),
    );
    // Each call has a pid namespace of its own; unsandboxed the sibling is there to read.
    expect(watched.slice(0, 2)).toEqual(["0", "0"]);
    expect(Number(watched[2])).toBeGreaterThanOrEqual(1);
  });

  escapeAttempt("processes", "leave a background process running into the next call (setsid, no output)", async () => {
    for (const scope of confined) {
      const tick = path.join(ground.workspace, `tick-${scope}`);
      const started = await sh(
        run(scope),
        `setsid sh -c 'while :; do echo x >> ${tick}; sleep 0.05; done' </dev/null >/dev/null 2>&1 & sleep 0.3; wc -l < ${tick}`,
      );
      // Control: while the call runs, the writer writes.
      expect(Number(started.stdout)).toBeGreaterThan(0);
      await sleep(200);
      const after = readFileSync(tick, "utf8").length;
      await sleep(400);
      expect(readFileSync(tick, "utf8").length).toBe(after);
    }
  });

  escapeAttempt(
    "environment",
    "read the host's environment back through /proc/1/environ (bwrap's init) or any /proc/<pid>/environ",
    async () => {
      const previous = process.env.ATC_ESCAPE_SECRET;
      process.env.ATC_ESCAPE_SECRET = "host-secret-13";
      try {
        const command = "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c host-secret-13";
        expect((await sh(run("workspace"), command)).stdout).toBe("0");
        // Control: under local, which passes the host's environment by design, it is there.
        expect(Number((await sh(run("local"), command)).stdout)).toBeGreaterThanOrEqual(1);
      } finally {
        if (previous === undefined) delete process.env.ATC_ESCAPE_SECRET;
        else process.env.ATC_ESCAPE_SECRET = previous;
      }
    },
  );

  escapeAttempt("privileges", "gain privileges through a set-user-id program (no_new_privs is set)", async () => {
    const command = "grep NoNewPrivs /proc/self/status";
    for (const scope of confined) expect((await sh(run(scope), command)).stdout).toMatch(/NoNewPrivs:\s+1$/);
    expect((await sh(run("unrestricted"), command)).stdout).toMatch(/NoNewPrivs:\s+0$/);
  });

  escapeAttempt("processes", "trace the sandbox's pid 1 (bwrap's init) to make system calls outside the filter", async () => {
    // The command may trace pid 1 (same uid): it must be under the same filter and no_new_privs.
    const command = "grep -E '^(NoNewPrivs|Seccomp):' /proc/1/status | tr -s '\t ' ' '";
    for (const scope of confined) expect((await sh(run(scope), command)).stdout).toBe("NoNewPrivs: 1\nSeccomp: 2");
    // Control: a host process is not filtered.
    expect((await sh(run("unrestricted"), command.replace("/proc/1/", `/proc/${process.pid}/`))).stdout).toContain("Seccomp: 0");
  });

  escapeAttempt("descriptors", "hard-link an inherited descriptor's file into the workspace through /proc/self/fd", async () => {
    // Only stdin (/dev/null) and the output pipes reach the command: nothing of the host's to link.
    const command = "for n in 0 1 2; do ln -L /proc/self/fd/$n linked-$n 2>/dev/null && echo linked-$n; done; echo done";
    for (const scope of confined) expect((await sh(run(scope), command)).stdout).toBe("done");
    // Control: a workspace file the command opened itself does link that way.
    const control = "rm -f own-link; echo mine > own; exec 3<own; ln -L /proc/self/fd/3 own-link && cat own-link";
    for (const scope of confined) expect((await sh(run(scope), control)).stdout).toBe("mine");
  });
});
