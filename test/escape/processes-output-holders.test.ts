/**
 * Escape attempts at a call's end: a descendant that leaves the command's process group and
 * clears its environment (so neither the group kill nor the environment tag finds it) and keeps
 * the command's stdout open. Reading the output to its end would wait for that process: past the
 * call's timeout, for as long as it likes. Under `workspace` and `local` the PID namespace ends
 * it; unsandboxed, the pipes it holds name it. Controls: a process that does not hold the output
 * is left alone, and output printed up to the exit is read whole.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { runMark } from "../support/live-processes.js";
import { killUntilGone, stopProcess } from "../support/stop-process.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/**
 * A host that runs one command through the bash tool (argv: scope, workspace, command): plain node
 * on the build when it is current (test/support/child-entry.ts).
 */
const HOST = path.join(import.meta.dirname, "support", "bash-host.mjs");

/** Host processes whose command line contains `marker` (pid and arguments). */
function processesWith(marker: string): string[] {
  return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

/**
 * Ends the host processes whose command line contains `marker` and resolves once none runs (a
 * zombie's is shown without it): until then they hold files in the workspace `ground.dispose`
 * removes, and the next attempt's counts would see them.
 */
function killAllWith(marker: string): Promise<void> {
  return killUntilGone(() => processesWith(marker).map((line) => Number(line.trim().split(/\s+/)[0])));
}

// Markers of this file's processes, unique to this run: two test runs side by side (CI and a
// masked run on one machine) must neither count nor kill each other's processes.
// runMark(): this process's id in it, so a concurrent copy never has it (a random four digits
// did one time in 9,000).
const RUN_MARK = runMark();
const marked = (seconds: string): string => `${seconds}${RUN_MARK}`;

/**
 * Starts `seconds` of sleep that left the group (`setsid`) and cleared its environment (`env -i`),
 * and waits (up to ~10 s) until it has its own session: on a loaded machine the background child may
 * not have run `setsid()` yet when the command ends, and the call's group kill then ends it before
 * it escaped. A control would see no leftover, an attack would not be made at all.
 */
const launchEscapee = (seconds: string, redirect = "") => `setsid env -i /usr/bin/sleep ${seconds} ${redirect} & p=$!;`;
const awaitOwnSession = `n=0; until [ "$(cut -d' ' -f6 /proc/$p/stat 2>/dev/null)" = "$p" ] || [ $n -ge 1000 ]; do n=$((n+1)); sleep 0.01; done;`;
const escapee = (seconds: string, redirect = "") => `${launchEscapee(seconds, redirect)} ${awaitOwnSession}`;

describe("escape attempts: output held open past the call", () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => {
    for (const marker of [
      marked("41.37"),
      marked("42.37"),
      marked("43.37"),
      marked("44.37"),
      marked("46.37"),
      marked("47.37"),
      marked("48.37"),
    ])
      await killAllWith(marker);
    await ground.dispose();
  });
  const scopes = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace", "local"] as const))] as const;

  escapeAttempt(
    "processes",
    "a setsid + env -i descendant holds stdout after the command exited: the call waits for it",
    async () => {
      for (const scope of scopes) {
        const started = performance.now();
        const result = await sh(attackRun(ground.workspace, scope), `${escapee(marked("41.37"))} sleep 0.3; echo started`, {
          timeout_seconds: 20,
        });
        expect(performance.now() - started, scope).toBeLessThan(8_000);
        expect(result.status, scope).toBe("exit code 0");
        expect(result.stdout, scope).toBe("started");
        await expect.poll(() => processesWith(marked("41.37")), { timeout: 3_000 }).toEqual([]);
      }
      // Control: a process the command left that does not hold its output is not taken for one
      // (unsandboxed it outlives the call, the documented limit of scope `unrestricted`), nor is
      // a process of the host's own.
      const outside = spawn("/usr/bin/sleep", [marked("45.37")], { stdio: "ignore" });
      try {
        const control = await sh(
          attackRun(ground.workspace, "unrestricted"),
          `${escapee(marked("43.37"), ">/dev/null 2>&1")} sleep 0.3; echo started`,
        );
        expect(control.stdout).toBe("started");
        expect(processesWith(marked("43.37"))).toHaveLength(1);
        expect(processesWith(marked("45.37"))).toHaveLength(1);
      } finally {
        await stopProcess(outside);
        await killAllWith(marked("43.37"));
      }
    },
    60_000,
  );

  escapeAttempt(
    "processes",
    "a setsid + env -i descendant holds stdout past the timeout: the timeout does not end the call",
    async () => {
      for (const scope of scopes) {
        const started = performance.now();
        const result = await sh(
          attackRun(ground.workspace, scope),
          `${launchEscapee(marked("42.37"))} echo started; ${awaitOwnSession} sleep 30`,
          {
            timeout_seconds: 1,
          },
        );
        expect(performance.now() - started, scope).toBeLessThan(8_000);
        expect(result.status, scope).toBe("timed out after 1 s (killed)");
        expect(result.stdout, scope).toBe("started");
        await expect.poll(() => processesWith(marked("42.37")), { timeout: 3_000 }).toEqual([]);
      }
    },
    60_000,
  );

  escapeAttempt(
    "processes",
    "a holder that hides the pipe in a socket's queue (SCM_RIGHTS in flight) keeps the call waiting",
    async () => {
      // The descriptors travel in a message nobody receives: no process's fd table shows the
      // pipe, so nothing finds the holder; reading must stop anyway, and the result says why.
      const hider =
        "setsid env -i /usr/bin/python3 -c 'import socket, os, time\n" +
        `a, b = socket.socketpair(); socket.send_fds(a, [b"x"], [1, 2]); os.close(1); os.close(2); open("hider.ready", "w").close(); time.sleep(${marked("44.37")})' & ` +
        // Python's start on a loaded machine can outlast a fixed pause: wait until the pipe is hidden.
        "n=0; until [ -e hider.ready ] || [ $n -ge 1000 ]; do n=$((n+1)); sleep 0.01; done; rm -f hider.ready;";
      const started = performance.now();
      const result = await sh(attackRun(ground.workspace, "unrestricted"), `${hider} sleep 0.5; echo started`, {
        timeout_seconds: 20,
      });
      expect(performance.now() - started).toBeLessThan(8_000);
      expect(result.status).toBe("exit code 0");
      expect(result.text).toContain("still held its output open");
      await killAllWith(marked("44.37"));
      // Control: output printed up to the exit is all there (3 MB, more than the pipe holds).
      const control = await sh(attackRun(ground.workspace, "unrestricted"), "head -c 3000000 /dev/zero | tr '\\0' a; echo", {
        timeout_seconds: 20,
      });
      expect(control.text).not.toContain("still held its output open");
      expect(control.text).toContain("[output over the limit was cut]");
      // 1 MiB kept: the first and last halves, with the cut between them.
      expect(control.text).toContain(`[... ${3_000_001 - 1024 * 1024} bytes of stdout cut here ...]`);
    },
    60_000,
  );

  escapeAttempt(
    "processes",
    "the command hands its output to a daemon running before the call (an ssh mux client does): the call does not kill it",
    async () => {
      // A daemon like an ssh ControlMaster: it keeps the descriptors its clients send over a unix
      // socket (SCM_RIGHTS), so after the hand-over it holds the command's stdout and stderr.
      const daemonScript = path.join(ground.outside, "fd-daemon.py");
      writeFileSync(
        daemonScript,
        "import socket, os, sys, array\n" +
          "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(sys.argv[1]); s.listen(5)\n" +
          "kept = []\n" +
          "while True:\n" +
          "    c, _ = s.accept()\n" +
          "    msg, fds, flags, addr = socket.recv_fds(c, 1, 4)\n" +
          "    kept.extend(fds); c.close()\n",
      );
      const handOver = (socket: string) =>
        `/usr/bin/python3 -c 'import socket, sys\ns = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); socket.send_fds(s, [b"x"], [1, 2])' ${socket}`;
      const socket = path.join(ground.outside, "daemon.sock");
      const daemon = spawn("/usr/bin/python3", [daemonScript, socket, marked("47.37")], { stdio: "ignore" });
      try {
        await expect.poll(() => existsSync(socket), { timeout: 10_000 }).toBe(true);
        for (const [command, timeout, status] of [
          [`${handOver(socket)}; echo started; sleep 30`, 1, "timed out after 1 s (killed)"],
          [`${handOver(socket)}; echo started`, 20, "exit code 0"],
        ] as const) {
          const started = performance.now();
          const result = await sh(attackRun(ground.workspace, "unrestricted"), command, { timeout_seconds: timeout });
          const elapsed = performance.now() - started;
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect({ exitCode: daemon.exitCode, signal: daemon.signalCode }, status).toEqual({ exitCode: null, signal: null });
          expect(processesWith(marked("47.37")), status).toHaveLength(1);
          // The call still ends at the exit or the timeout, and says why the output stayed open.
          expect(elapsed, status).toBeLessThan(8_000);
          expect(result.status).toBe(status);
          expect(result.stdout, status).toBe("started");
          expect(result.text, status).toContain("still held its output open");
        }
      } finally {
        await stopProcess(daemon);
      }
      // Positive control: the same daemon started by the command (out of its group, environment
      // cleared, output elsewhere) and then handed the output is the command's leftover: it ends
      // with the call, and the output closes with it.
      const ownSocket = path.join(ground.outside, "own.sock");
      const own =
        `setsid env -i /usr/bin/python3 ${daemonScript} ${ownSocket} ${marked("48.37")} </dev/null >/dev/null 2>&1 & ` +
        `while [ ! -S ${ownSocket} ]; do sleep 0.05; done; ${handOver(ownSocket)}; echo started`;
      const control = await sh(attackRun(ground.workspace, "unrestricted"), own, { timeout_seconds: 20 });
      expect(control.status).toBe("exit code 0");
      expect(control.stdout).toBe("started");
      expect(control.text).not.toContain("still held its output open");
      await expect.poll(() => processesWith(marked("48.37")), { timeout: 3_000 }).toEqual([]);
    },
    60_000,
  );

  escapeAttempt(
    "processes",
    "the host is killed with -9 mid-command: its sandboxed processes (one ignoring SIGTERM and SIGHUP, one setsid) live on",
    async () => {
      // Resolves once the host is dead: what is left is looked at by the caller.
      const killHostMidCommand = async (scope: "workspace" | "local" | "unrestricted", started: string) => {
        const command = `sleep ${marked("46.37")} & setsid sleep ${marked("46.37")} & (trap '' TERM HUP; exec sleep ${marked("46.37")}) & touch ${started}; sleep ${marked("46.37")}`;
        const host = spawnNode(HOST, [scope, ground.workspace, command], { stdio: "ignore" });
        await expect.poll(() => existsSync(path.join(ground.workspace, started)), { timeout: 20_000 }).toBe(true);
        expect(processesWith(marked("46.37")).length, scope).toBeGreaterThanOrEqual(4);
        host.kill("SIGKILL");
        await new Promise((resolve) => host.once("exit", resolve));
      };
      for (const scope of scopes.filter((each) => each !== "unrestricted")) {
        await killHostMidCommand(scope as "workspace" | "local", `started-${scope}`);
        // Gone within the 1 s the old fixed wait gave them, looked at as soon as they are.
        await expect.poll(() => processesWith(marked("46.37")), { timeout: 1_000, message: scope }).toEqual([]);
      }
      // Control (the documented limit of scope `unrestricted`): nothing is left to end them, a
      // second after the host's death.
      await killHostMidCommand("unrestricted", "started-unrestricted");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(processesWith(marked("46.37")).length).toBeGreaterThanOrEqual(4);
      await killAllWith(marked("46.37"));
    },
    90_000,
  );
});
