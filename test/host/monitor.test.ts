import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { capability } from "../support/capabilities.js";
import { failure, hostRun, record, temporaryDirectory } from "./support/host-test-kit.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe("monitor", () => {
  let root: { path: string; remove(): Promise<void> };
  // Every run a test opens is closed after it, passed or failed: a failing assertion must not
  // leave a monitored `sleep` running in the worker the next file shares.
  let opened: { close(): Promise<void> }[] = [];
  const monitorRun = (...args: Parameters<typeof hostRun>) => {
    const made = hostRun(...args);
    opened.push(made.run);
    return made;
  };
  beforeEach(async () => {
    root = await temporaryDirectory("monitor-");
  });
  afterEach(async () => {
    await Promise.all(opened.map((run) => run.close()));
    opened = [];
    await root.remove();
  });

  const local = () => ({ permissions: { sandbox: "unrestricted" as const, workspace: root.path } });

  it("starts a background command, polls new output incrementally, waits for a pattern, stops it", async () => {
    const { run } = monitorRun([monitorToolGroup({})], local());
    const started = record(
      await run.call("monitor", {
        action: "start",
        command: "echo booting; sleep 0.3; echo 'listening on :3000'; sleep 60",
      }),
    );
    expect(started).toMatchObject({ id: "mon_1", status: "running" });
    const waited = record(
      await run.call("monitor", { action: "wait", id: "mon_1", pattern: "listening on :\\d+", timeout_seconds: 10 }),
    );
    expect(waited.waited).toBe("matched");
    expect(waited.output).toContain("booting\nlistening on :3000");
    // nothing new since: a poll returns only what came after
    expect(record(await run.call("monitor", { action: "poll", id: "mon_1" })).output).toBe("");
    const stopped = record(await run.call("monitor", { action: "stop", id: "mon_1" }));
    expect(stopped.status).toBe("killed by SIGKILL");
    expect(record(await run.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 1 })).waited).toBe("exited");
  });

  it("waits for exit, reporting the exit code; a wait that times out leaves it running", async () => {
    const { run } = monitorRun([monitorToolGroup({})], local());
    await run.call("monitor", { action: "start", command: "sleep 0.5; echo done; exit 3" });
    // The wait outlasts the command by far, so only the exit can end it: with a 1 s timeout it bet
    // that bash, the sleep and the pattern's worker thread all ran within 1.1 s of the spawn, and
    // at load 17 on 2 cores they did not ('timeout'). A wait blind to the exit still fails, at 10 s.
    const early = record(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "never", timeout_seconds: 10 }));
    expect(early.waited).toBe("exited");
    expect(early.status).toBe("exited with code 3");
    await run.call("monitor", { action: "start", command: "sleep 30" });
    const timedOut = record(await run.call("monitor", { action: "wait", id: "mon_2", timeout_seconds: 1 }));
    expect(timedOut).toMatchObject({ waited: "timeout", status: "running" });
  });

  it("keeps a bounded buffer and says how much was dropped", async () => {
    const { run } = monitorRun([monitorToolGroup({ maxBufferBytes: 1000, maxPollBytes: 500 })], local());
    await run.call("monitor", { action: "start", command: "sleep 0.3; head -c 200000 /dev/zero | tr '\\0' a; echo; echo END" });
    const waited = record(await run.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 10 }));
    expect(waited.waited).toBe("exited");
    expect(String(waited.output).length).toBeLessThanOrEqual(500);
    expect(String(waited.output)).toMatch(/a+\nEND\n$/);
    expect(Number(waited.skipped_bytes)).toBeGreaterThan(199_000);
  });

  it("ends with the run: closing it kills each process and everything it started", async () => {
    const { run } = monitorRun([monitorToolGroup({})], local());
    await run.call("monitor", { action: "start", command: "sleep 300 & echo child=$!; wait" });
    const polled = record(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "child=\\d+", timeout_seconds: 5 }));
    const pid = Number(/child=(\d+)/.exec(String(polled.output))?.[1]);
    expect(alive(pid)).toBe(true);
    await run.close();
    expect(await until(() => !alive(pid))).toBe(true);
  });

  it("refuses more processes than allowed, and unknown ids", async () => {
    const { run } = monitorRun([monitorToolGroup({ maxProcesses: 1 })], local());
    await run.call("monitor", { action: "start", command: "sleep 30" });
    expect(failure(await run.call("monitor", { action: "start", command: "sleep 30" })).code).toBe("too_many_monitors");
    expect(failure(await run.call("monitor", { action: "poll", id: "mon_9" })).code).toBe("unknown_monitor");
    expect(failure(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "(" })).code).toBe("invalid_input");
    // a pattern that could backtrack for ever on the host's event loop is refused
    expect(failure(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "(a+)+$" })).code).toBe("invalid_input");
  });

  it("asks approval like bash: denied, nothing starts", async () => {
    const marker = path.join(root.path, "started.txt");
    const { registry, run } = monitorRun([monitorToolGroup({})], {
      permissions: { sandbox: "unrestricted", workspace: root.path, approval: "destructive" },
    });
    registry.events.on("approval.requested", (request) => registry.approvals.deny(request.id, "no"));
    expect(failure(await run.call("monitor", { action: "start", command: `touch ${marker}` })).code).toBe("approval_denied");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(marker)).toBe(false);
  });

  const bubblewrap = capability("bubblewrap");
  it.skipIf(bubblewrap.missing)(bubblewrap.label("runs the command in the run's workspace sandbox"), async () => {
    const workspace = path.join(root.path, "ws");
    const outside = path.join(root.path, "outside");
    await mkdir(workspace);
    await mkdir(outside);
    const command = `echo hi > ${path.join(outside, "x.txt")}; echo exit=$?`;
    const { run } = monitorRun([monitorToolGroup({})], { permissions: { sandbox: "workspace", workspace } });
    const started = record(await run.call("monitor", { action: "start", command }));
    expect(started.sandbox).toBe("bubblewrap/workspace");
    const done = record(await run.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 10 }));
    expect(`${started.output}${done.output}`).toMatch(/exit=1/);
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
    // positive control: unrestricted, the same command writes there
    const open = monitorRun([monitorToolGroup({})], { permissions: { sandbox: "unrestricted", workspace } }).run;
    await open.call("monitor", { action: "start", command });
    await open.call("monitor", { action: "wait", id: "mon_1", timeout_seconds: 10 });
    expect(existsSync(path.join(outside, "x.txt"))).toBe(true);
  });
});
