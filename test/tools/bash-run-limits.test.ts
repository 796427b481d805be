/**
 * The run's resource budget with real processes: parallel `bash` calls of one model step (the AI
 * SDK runs a step's tool calls at once) and `monitor` background commands reserve their
 * per-command limits out of the run's totals, so the run as a whole stays within them; another
 * run has a budget of its own. Live processes are counted through /proc by a marker unique to
 * this test run (never a fixed, system-wide pattern), so a run beside this one is not counted.
 */

import { execFileSync } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, defineTool, type Run, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMonitorTool } from "../../src/host/monitor/monitor-tool.js";
import type { ResourceLimits } from "../../src/tools/sandbox/resource-limits.js";
import { RUN_RESOURCE_BUDGET, type RunResourceLimits } from "../../src/tools/sandbox/run-resource-budget.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { liveWith, runMark, sampleMost } from "../support/live-processes.js";

const bubblewrap = capability("bubblewrap");
const cgroups = capability("cgroups");

// Appended to sleep durations (`sleep 2.<mark>`): only this test run's processes carry it.
const RUN_MARK = runMark();

function text(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-run-limits-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** `fifo` opened for writing once a reader has it open (ENXIO until then), within 10 s. */
async function openForWriting(fifo: string): Promise<FileHandle> {
  const until = performance.now() + 10_000;
  for (;;) {
    try {
      return await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENXIO" || performance.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

interface Budget {
  readonly limits: ResourceLimits;
  readonly runLimits: RunResourceLimits;
}

function runWith(scope: SandboxScope, budget: Budget, strict = false): { run: Run; close(): Promise<void> } {
  const shared = {
    limits: budget.limits,
    runLimits: budget.runLimits,
    // Never fork many processes without the per-command limit in force.
    ...(strict
      ? {
          onLimitsUnavailable: (status: { reason?: string }) => {
            throw new Error(`limits not enforced: ${status.reason}`);
          },
        }
      : {}),
  };
  const registry = createRegistry({ tools: [createBashTool(shared), createMonitorTool(shared)] });
  const run = registry.createRun({
    profile: "full",
    permissions: { sandbox: scope, workspace },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
  run.activate(["monitor"]);
  return { run, close: () => registry.close() };
}

describe.skipIf(bubblewrap.missing || cgroups.missing)(
  cgroups.label(bubblewrap.label("run budget under bubblewrap with per-command cgroups")),
  () => {
    it("four parallel bash calls, each forking past its limit, stay within the run's total together", async () => {
      const budget = { limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 32, waitSeconds: 60 } };
      const { run, close } = runWith("workspace", budget, true);
      const marker = `2.${RUN_MARK}`;
      const command = `for i in $(seq 24); do sleep ${marker} & done 2>/dev/null; wait`;
      const sampler = sampleMost(marker);
      const results = await Promise.all([1, 2, 3, 4].map(() => run.call("bash", { command, timeout_seconds: 60 })));
      const most = sampler.stop();
      for (const result of results) expect(text(result)).toContain("process limit reached (16 ");
      // Each call got its whole per-command limit; never more than two commands' worth at once.
      expect(most).toBeLessThanOrEqual(32);
      expect(most).toBeGreaterThan(16);
      expect(liveWith(marker)).toBe(0);
      await close();
    }, 120_000);

    it("memory: two parallel calls allocating 64 MB under 128 MiB each and 128 MiB per run run one after the other", async () => {
      const MiB = 1024 * 1024;
      const budget = {
        limits: { maxProcesses: false as const, maxMemoryBytes: 128 * MiB },
        runLimits: { maxMemoryBytes: 128 * MiB, waitSeconds: 60 },
      };
      const { run, close } = runWith("workspace", budget, true);
      const marker = `1.${RUN_MARK}`;
      // Holds 64 MiB for about a second, then prints its length.
      const allocate = `perl -e 'my $x = ""; vec($x, 64 * 1024 * 1024 - 1, 8) = 1; select(undef, undef, undef, ${marker}); print length $x'`;
      const sampler = sampleMost(marker);
      const outputs = (await Promise.all([1, 2].map(() => run.call("bash", { command: allocate, timeout_seconds: 60 })))).map(
        text,
      );
      const most = sampler.stop();
      // Both fit alone (control: neither was killed), never both at once.
      for (const output of outputs) expect(output).toContain(`stdout:\n${64 * MiB}`);
      expect(outputs.filter((output) => output.includes("for the run's limits"))).toHaveLength(1);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(3);
      await close();
    }, 120_000);

    it("a single call gets its full per-command limit (control)", async () => {
      const budget = { limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 32 } };
      const { run, close } = runWith("workspace", budget, true);
      const output = text(
        await run.call("bash", {
          command: `for i in $(seq 10); do sleep 3.${RUN_MARK} & done; jobs -p | wc -l; kill $(jobs -p)`,
        }),
      );
      expect(output).toMatch(/^exit code 0 · /);
      expect(output).toContain("stdout:\n10");
      await close();
    }, 60_000);
  },
);

const scopes: SandboxScope[] = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace"] as const))];

describe("run budget: commands reserve their limits from the run's totals", () => {
  for (const scope of scopes) {
    it(`parallel calls run at most as many at once as the run's total holds (${scope})`, async () => {
      // No per-command enforcement is needed for this: the budget is the host's own bookkeeping.
      const budget = { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 200 } };
      const { run, close } = runWith(scope, budget);
      const marker = `1.${RUN_MARK}`;
      const sampler = sampleMost(marker);
      // exec: one process per command carries the marker, under bwrap and unsandboxed alike.
      const results = await Promise.all([1, 2, 3, 4].map(() => run.call("bash", { command: `exec sleep ${marker}` })));
      const most = sampler.stop();
      const outputs = results.map(text);
      for (const output of outputs) expect(output).toMatch(/^exit code 0 · /);
      expect(outputs.filter((output) => output.includes("for the run's limits")).length).toBeGreaterThanOrEqual(2);
      expect(most).toBeLessThanOrEqual(scope === "workspace" ? 2 * 3 : 2);
      await close();
    }, 60_000);

    it(`a background command holds its share until it ends; another run has its own budget (${scope})`, async () => {
      const budget = { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 100, waitSeconds: 1 } };
      const first = runWith(scope, budget);
      const second = runWith(scope, budget);
      const started = await first.run.call("monitor", { action: "start", command: `sleep 30.${RUN_MARK}` });
      expect(started.ok).toBe(true);
      const refused = await first.run.call("bash", { command: "echo hi" });
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      expect(refused.error.code).toBe("run_limit_reached");
      expect(refused.error.message).toContain("monitor mon_1");
      expect(refused.error.message).toContain("processes (100 of the run's 100 are held, this command needs 100)");
      expect(refused.error.hint).toContain("monitor stop");
      // The other run is not blocked by the first one's background command.
      const other = text(await second.run.call("bash", { command: "echo other" }));
      expect(other).toContain("stdout:\nother");
      expect(other).not.toContain("for the run's limits");
      // Once the background command has ended, its share is back.
      expect((await first.run.call("monitor", { action: "stop", id: "mon_1" })).ok).toBe(true);
      expect(text(await first.run.call("bash", { command: "echo again" }))).toContain("stdout:\nagain");
      expect(liveWith(`30.${RUN_MARK}`)).toBe(0);
      await first.close();
      await second.close();
    }, 60_000);
  }

  it("a call waiting for the run's budget ends at once when aborted, and leaves the queue", async () => {
    // The probe sees the queue: a share of nothing is refused only while a call waits ahead of it.
    const queueProbe = defineTool({
      name: "queue_probe",
      description: "Whether a command waits for the run's budget.",
      inputSchema: { type: "object", properties: {} },
      handler: (_input, context) => {
        const probe = { label: "probe", processes: 0, memoryBytes: 0 };
        const grant = context.storage.get(RUN_RESOURCE_BUDGET).tryReserveWithAncestors(probe, context.runId);
        grant?.release();
        return grant === undefined ? "waiting" : "empty";
      },
    });
    const limits = { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 100, waitSeconds: 60 } };
    const registry = createRegistry({ tools: [createBashTool(limits), queueProbe] });
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    run.activate(["queue_probe"]);
    const probe = async () => {
      const result = await run.call("queue_probe", {});
      return result.ok ? result.output : result.error.code;
    };
    // Holds the run's whole budget until a line comes into its FIFO; opening the writer succeeds
    // once it reads, so the budget is held from then on.
    const release = path.join(workspace, "release");
    execFileSync("mkfifo", [release]);
    const holding = run.call("bash", { command: `read -r line < '${release}'` });
    const writer = await openForWriting(release);
    const controller = new AbortController();
    const ran = path.join(workspace, "ran");
    try {
      const waiting = run.call("bash", { command: `touch '${ran}'` }, { signal: controller.signal });
      // Aborted only once it waits in the queue: aborted before, it never gets there.
      const until = performance.now() + 10_000;
      while ((await probe()) !== "waiting" && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await probe()).toBe("waiting");
      const aborted = performance.now();
      controller.abort();
      // Raced against 5 s, so a call that keeps waiting fails here, not at the test's timeout.
      const result = await Promise.race([waiting, new Promise((resolve) => setTimeout(resolve, 5_000, "still waiting"))]);
      expect(performance.now() - aborted).toBeLessThan(1_000);
      expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
      // Gone from the queue: it neither holds back the next call nor runs once the budget is back.
      expect(await probe()).toBe("empty");
    } finally {
      await writer.write("go\n");
      await writer.close();
    }
    expect(text(await holding)).toMatch(/^exit code 0 · /);
    expect(text(await run.call("bash", { command: "echo again" }))).toContain("stdout:\nagain");
    expect(existsSync(ran)).toBe(false);
    await registry.close();
  }, 30_000);

  it("refuses a run total below the per-command limit when the tool is made", () => {
    expect(() => createBashTool({ limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 8 } })).toThrow(
      /runLimits.maxProcesses/,
    );
    expect(() => createBashTool({ limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 16 } })).not.toThrow();
  });
});
