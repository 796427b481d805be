/**
 * A command's output on a host whose event loop is starved (many calls at once: each exit does
 * synchronous /proc work). The grace after the exit was measured by the clock alone, so its
 * timers fired before the loop had read what was waiting in the pipes: a command whose leftover
 * was already killed (`(sleep 60) & disown; echo started`) was answered "held open", and what
 * the loop had not read yet was dropped with the pipe (seen at stop 41: 1 of 40 calls answered
 * exit 0 with an empty stdout). Each grace now ends only after the loop has read the pipes dry.
 * Real shells, real background processes, a real starved host (a child process blocking its
 * own loop 400 ms of every 450).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { nodeChild } from "../support/child-entry.js";
import { killUntilGone } from "../support/stop-process.js";

const HOST = path.join(import.meta.dirname, "support", "starved-output-host.mjs");
const bubblewrap = capability("bubblewrap");
const scopes = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace", "local"] as const))] as const;

interface Outcome {
  readonly stdout: string;
  readonly exitCode: number | null;
  readonly heldOpen: boolean;
  readonly ms: number;
}

/** Runs `count` copies of `command` at once in a starved host; their results. */
async function inStarvedHost(scope: string, count: number, command: string): Promise<Outcome[]> {
  // On the build when it is current (a plain node), else the sources under tsx.
  const host = nodeChild(HOST, [scope, workspace, String(count), command, "400"]);
  const { stdout } = await promisify(execFile)(process.execPath, host.args, {
    env: host.env,
    timeout: 90_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.slice(stdout.indexOf("<<<") + 3, stdout.indexOf(">>>"))) as Outcome[];
}

// Unique to this run: a second run on the machine neither counts nor kills these.
const MARK = `atc-starved-${process.pid}-${Date.now()}`;

function processesWith(marker: string): string[] {
  return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-starved-"));
});
afterAll(async () => {
  // Waited for: they run in the workspace (their working directory) until they have exited.
  await killUntilGone(() => processesWith(MARK).map((line) => Number(line.trim().split(/\s+/)[0])));
  await rm(workspace, { recursive: true, force: true });
});

describe("runSandboxed on a starved host: what the command wrote is read whole", () => {
  it.each(scopes)(
    "40 commands at once that leave a background job: every result has the output, none says held open (%s)",
    async (scope) => {
      const results = await inStarvedHost(scope, 40, `(exec -a ${MARK}-${scope} sleep 60) & disown; echo started`);
      expect(results).toHaveLength(40);
      // All 40 at once: a failure shows how many were wrong, not only the first.
      const wrong = results.filter((result) => result.stdout !== "started\n" || result.exitCode !== 0 || result.heldOpen);
      expect(wrong).toEqual([]);
      await expect.poll(() => processesWith(`${MARK}-${scope}`), { timeout: 5_000 }).toEqual([]);
    },
    120_000,
  );

  it("positive control: output a process really holds open still ends the call in bounded time, with the note and the output", async () => {
    // The descriptors travel in a message nobody receives: no fd table shows the pipe, so no
    // holder is found; reading must stop anyway after the grace, with what was written kept.
    const hider =
      "setsid env -i /usr/bin/python3 -c 'import socket, os, time\n" +
      `a, b = socket.socketpair(); socket.send_fds(a, [b"x"], [1, 2]); os.close(1); os.close(2); time.sleep(60)' ${MARK}-hider &`;
    const results = await inStarvedHost("unrestricted", 4, `${hider} sleep 0.5; echo started`);
    for (const result of results) {
      expect(result.stdout).toBe("started\n");
      expect(result.exitCode).toBe(0);
      expect(result.heldOpen).toBe(true);
      // The graces (250 ms + 1 s) plus the starved host's blocks and turns: bounded, not 60 s.
      expect(result.ms).toBeLessThan(15_000);
    }
  }, 120_000);
});
