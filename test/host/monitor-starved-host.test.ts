/**
 * The monitor on a host whose event loop is starved (many calls at once). Every answer that names
 * an exit (start, wait, wait for a pattern, list then poll) must come with all the command wrote:
 * the exit is reported only once the output is read to its end. And a wait for a pattern must not
 * say `pattern_too_slow` for a trivial pattern because the host, not the match, was slow: the
 * match's deadline ran from the worker's creation (a thread starting on a loaded host) and fired
 * before a starved loop had read the answer already sent (seen: 8 of 9 waits at load 14).
 * Real shells and a real starved host (a child process blocking its own loop 400 ms of every 450).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { capability } from "../support/capabilities.js";
import { nodeChild } from "../support/child-entry.js";
import { killUntilGone, pidsWith } from "../support/stop-process.js";
import { hostRun, record } from "./support/host-test-kit.js";
import { COMMANDS, type Observation } from "./support/starved-monitor-commands.js";

const HOST = path.join(import.meta.dirname, "support", "starved-monitor-host.ts");
const bubblewrap = capability("bubblewrap");
const scopes = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace"] as const))] as const;

// The hider's mark, unique to this run: a second run on the machine neither counts nor kills it.
const HIDER = `atc-monitor-hider-${process.pid}-${Date.now()}`;

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-monitor-starved-"));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("monitor on a starved host: an exit is reported with the whole output", () => {
  it.each(scopes)(
    "18 short commands at once (echo, 64 KiB printf, 96 KiB then exit 7), each end seen by wait, a pattern wait or list: every answer naming the exit has all the output (%s)",
    async (scope) => {
      const host = nodeChild(HOST, [scope, workspace, "2", "400"]);
      const { stdout } = await promisify(execFile)(process.execPath, host.args, {
        env: host.env,
        timeout: 90_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      const results = JSON.parse(stdout.slice(stdout.indexOf("<<<") + 3, stdout.indexOf(">>>"))) as Observation[];
      expect(results).toHaveLength(18);
      // All at once: a failure shows every wrong one, not only the first.
      const wrong = results.filter(
        (result) =>
          result.errors.length > 0 ||
          result.late !== 0 ||
          result.exits.length === 0 ||
          result.exits.some((exit) => !exit.complete || exit.status !== COMMANDS[result.name].status),
      );
      expect(wrong).toEqual([]);
    },
    120_000,
  );

  it("a descendant holding the output past the exit: the exit waits for what it writes within the grace, and says so when one is never ended", async () => {
    const { run } = hostRun([monitorToolGroup({ limits: false })], { permissions: { sandbox: "unrestricted", workspace } });
    try {
      // No cgroup (its release ends all the command left), out of the group and without the tag:
      // nothing ends it at the shell's exit; it writes
      // 100 ms later (the shell exits once it left the group: a group kill before would end it)
      // and closes the pipe, well within the 250 ms before holders are looked for.
      const started = record(
        await run.call("monitor", {
          action: "start",
          command:
            "rm -f ready; (setsid env -i /bin/sh -c ': > ready; sleep 0.1; echo late' &); until [ -e ready ]; do sleep 0.01; done; echo early",
        }),
      );
      const waited = record(await run.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 20 }));
      expect(waited).toMatchObject({ waited: "exited", status: "exited with code 0" });
      // start's answer gives what came within its first 100 ms: with wait's, the whole output.
      expect(`${String(started.output ?? "")}${String(waited.output)}`.split("\n").sort()).toEqual(["", "early", "late"]);
      expect(waited.output_held_open).toBeUndefined();
      // The descriptors travel in a message nobody receives: no process shows the pipe, so no
      // holder is found and reading stops after the grace; the answer says so.
      const hider =
        "setsid env -i /usr/bin/python3 -c 'import socket, os, time\n" +
        `a, b = socket.socketpair(); socket.send_fds(a, [b"x"], [1, 2]); os.close(1); os.close(2); time.sleep(5)' ${HIDER} &`;
      await run.call("monitor", { action: "start", command: `${hider} sleep 0.3; echo started` });
      const held = record(await run.call("monitor", { action: "wait", id: "mon_2", timeout_seconds: 20 }));
      expect(held).toMatchObject({ waited: "exited", status: "exited with code 0", output: "started\n" });
      expect(held.output_held_open).toMatch(/held the output open/);
    } finally {
      await run.close();
      // Unsandboxed, nothing ends the hider (the documented limit): ended here, and waited for,
      // not left running in the workspace afterAll removes.
      await killUntilGone(() => pidsWith(HIDER));
    }
  }, 60_000);

  it("positive control: a command still running is reported running, with the output it wrote so far", async () => {
    const { run } = hostRun([monitorToolGroup({})], { permissions: { sandbox: "unrestricted", workspace } });
    try {
      await run.call("monitor", { action: "start", command: "echo first; sleep 30" });
      const waited = record(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "^first$", timeout_seconds: 20 }));
      expect(waited).toMatchObject({ waited: "matched", status: "running", output: "first\n" });
      const listed = (await run.call("monitor", { action: "list" })) as { ok: true; output: { status: string }[] };
      expect(listed.output[0]?.status).toBe("running");
      const timedOut = record(await run.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 1 }));
      expect(timedOut).toMatchObject({ waited: "timeout", status: "running", output: "" });
    } finally {
      await run.close();
    }
  }, 60_000);
});
