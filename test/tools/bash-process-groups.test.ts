import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { liveWith, runMark } from "../support/live-processes.js";
import { stopProcess } from "../support/stop-process.js";

/** Digits on this run's sleep durations (`sleep 51.<mark>`), so only this run's sleepers are counted. */
const RUN_MARK = runMark();

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-bash-pg-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function text(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

/** The pids a command printed as `pid=<n>` (host pids: only meaningful unsandboxed). */
function printedPids(output: string): number[] {
  return [...output.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1]));
}

const bubblewrap = capability("bubblewrap");
const scopes: SandboxScope[] = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace"] as const))];

describe("bash: a command's processes end with it", () => {
  it("a background job neither delays the result past the timeout nor outlives the call (unsandboxed, checked by pid)", async () => {
    const registry = createRegistry({ tools: [createBashTool()] });
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    const started = performance.now();
    const output = text(await run.call("bash", { command: "sleep 30 & echo pid=$!; sleep 30", timeout_seconds: 1 }));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(output).toMatch(/timed out after 1 s/);
    const [pid] = printedPids(output);
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => alive(pid as number), { timeout: 3_000 }).toBe(false);
    await registry.close();
  });

  it("a command that exits leaving a background job returns at once, and the job is ended", async () => {
    const registry = createRegistry({ tools: [createBashTool()] });
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    const started = performance.now();
    const output = text(await run.call("bash", { command: "sleep 30 & echo pid=$!", timeout_seconds: 20 }));
    expect(performance.now() - started).toBeLessThan(5_000);
    const [pid] = printedPids(output);
    await expect.poll(() => alive(pid as number), { timeout: 3_000 }).toBe(false);
    // Positive control: the same job started outside the tool (not in the call's group) lives on.
    const { spawn } = await import("node:child_process");
    const control = spawn("sleep", ["30"], { stdio: "ignore" });
    expect(alive(control.pid as number)).toBe(true);
    await stopProcess(control);
    await registry.close();
  });

  it.each([
    ["(setsid sleep 51.MARK &); echo started", 1],
    ["setsid nohup sh -c 'sleep 54.MARK' </dev/null >/dev/null 2>&1 & echo started", 20],
    ["(setsid sh -c 'sleep 53.MARK' &) ; sleep 30", 1],
  ] as const)("a job that left the process group with setsid ends with the call too: %s", async (template, timeout) => {
    const command = template.replace("MARK", RUN_MARK);
    const registry = createRegistry({ tools: [createBashTool()] });
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    const started = performance.now();
    text(await run.call("bash", { command, timeout_seconds: timeout }));
    expect(performance.now() - started).toBeLessThan(5_000);
    await registry.close();
    // This run's processes only (the sleeper, and any shell that started it): a suite run side by
    // side runs the same commands with a mark of its own.
    await expect.poll(() => liveWith(`.${RUN_MARK}`), { timeout: 3_000 }).toBe(0);
  });

  it.each(scopes)(
    "no orphans after 40 calls with background jobs and registry.close() (%s)",
    async (sandbox) => {
      const registry = createRegistry({ tools: [createBashTool()] });
      const run = registry.createRun({ profile: "full", permissions: { sandbox, workspace } });
      const marker = `atc-orphan-${process.pid}-${Date.now()}`;
      // Each call leaves a detached-looking job (nohup, setsid-less) with a unique command line.
      // The command timeout is a budget, not the proof: a call that timed out would have its job
      // killed by the timeout instead of by the call's end, so none may time out. 5 s was missed
      // once at load 20 (40 sandboxes starting at once on 2 cores).
      const calls = Array.from({ length: 40 }, (_, n) =>
        run.call("bash", { command: `(exec -a ${marker}-${n} sleep 60) & disown; echo started`, timeout_seconds: 45 }),
      );
      for (const result of await Promise.all(calls)) {
        expect(text(result)).toContain("started");
        expect(text(result)).not.toMatch(/timed out/);
      }
      await registry.close();
      const { execFileSync } = await import("node:child_process");
      const survivors = () =>
        execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
          .split("\n")
          .filter((line) => line.includes(marker));
      await expect.poll(survivors, { timeout: 5_000 }).toEqual([]);
    },
    120_000,
  );
});
