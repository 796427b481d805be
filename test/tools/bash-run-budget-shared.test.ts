/**
 * One run budget shared by tools given different options: the run's ledger has one set of
 * totals (the smallest any of its tools declared), a command whose own limit is above them fails
 * at once naming the option to change, and the default catalog gives `monitor` the limits of
 * `bash`, so a background command does not shut every `bash` call of the run out.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createDefaultCatalog } from "agent-tool-catalog/catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMonitorTool } from "../../src/host/monitor/monitor-tool.js";
import { type BashToolOptions, createBashTool } from "../../src/tools/shell/bash-tool.js";
import { liveWith, runMark } from "../support/live-processes.js";

// Appended to sleep durations (`sleep 60.<mark>`): only this test run's processes carry it.
const RUN_MARK = runMark();

function text(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-run-budget-shared-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function defaultCatalogRun(bash: BashToolOptions) {
  const catalog = createDefaultCatalog({
    workspace,
    permissions: { sandbox: "unrestricted", approval: "none", workspace },
    bash,
  });
  const run = catalog.createRun({ profile: "full", condenseThreshold: Number.POSITIVE_INFINITY });
  run.activate(["monitor"]);
  return run;
}

describe("the default catalog: monitor gets bash's limits and run totals", () => {
  it("with lowered bash limits, bash calls still run while a monitor runs", async () => {
    // 16 per command, 128 per run: a monitor at the default 1,024 processes filled the run.
    const run = defaultCatalogRun({ limits: { maxProcesses: 16 }, runLimits: { waitSeconds: 2 } });
    expect(text(await run.call("bash", { command: "echo before" }))).toContain("stdout:\nbefore");
    const started = await run.call("monitor", { action: "start", command: `sleep 60.${RUN_MARK}` });
    expect(started.ok).toBe(true);
    const after = text(await run.call("bash", { command: "echo after" }));
    expect(after).toContain("stdout:\nafter");
    expect(after).not.toContain("for the run's limits");
    await run.close();
    expect(liveWith(`60.${RUN_MARK}`)).toBe(0);
  }, 30_000);

  it("the monitor still reserves out of the run's totals (a run total of one command is full while it runs)", async () => {
    const run = defaultCatalogRun({ limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 16, waitSeconds: 0.3 } });
    expect((await run.call("monitor", { action: "start", command: `sleep 61.${RUN_MARK}` })).ok).toBe(true);
    const refused = await run.call("bash", { command: "echo blocked" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe("run_limit_reached");
      expect(refused.error.message).toContain("processes (16 of the run's 16 are held, this command needs 16)");
      // A sub-second wait is named in ms, not rounded to "0 s".
      expect(refused.error.message).toContain("within 300 ms");
      expect(refused.error.message).toContain("Held by: monitor mon_1");
    }
    expect((await run.call("monitor", { action: "stop", id: "mon_1" })).ok).toBe(true);
    expect(text(await run.call("bash", { command: "echo free" }))).toContain("stdout:\nfree");
    await run.close();
  }, 30_000);
});

describe("tools given different totals share one set of totals", () => {
  function mixedRun(monitorLimits: { maxProcesses: number } | undefined) {
    const registry = createRegistry({
      tools: [
        // A wait far longer than the refusal below may take at any load: "at once" is then "before
        // the wait ended", whatever the machine does (a 2 s wait left the refusal 1 s of wall time).
        createBashTool({ limits: { maxProcesses: 16 }, runLimits: { waitSeconds: 20 } }),
        createMonitorTool(monitorLimits === undefined ? {} : { limits: monitorLimits }),
      ],
    });
    const run = registry.createRun({
      profile: "full",
      permissions: { sandbox: "unrestricted", workspace },
      condenseThreshold: Number.POSITIVE_INFINITY,
    });
    run.activate(["monitor"]);
    return {
      run,
      close: async () => {
        await run.close();
        await registry.close();
      },
    };
  }

  it("a monitor whose own limit is above bash's run total fails at once, naming the option to change", async () => {
    const { run, close } = mixedRun(undefined);
    expect(text(await run.call("bash", { command: "echo first" }))).toContain("stdout:\nfirst");
    const asked = performance.now();
    const refused = await run.call("monitor", { action: "start", command: `sleep 62.${RUN_MARK}` });
    expect(performance.now() - asked).toBeLessThan(10_000);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe("run_limit_reached");
      // The structured details (data.reason "exceeds_run_total", ...) are the ToolError's, for
      // the host; the model gets the message and the hint (see run-resource-budget.test.ts).
      expect(refused.error.message).toContain(
        "its per-command limits.maxProcesses (1024 processes) is above the run's total of 128 processes (runLimits.maxProcesses of bash",
      );
      expect(refused.error.message).toContain("give monitor limits.maxProcesses of at most 128");
      expect(refused.error.hint).toContain("host's configuration");
    }
    expect(liveWith(`62.${RUN_MARK}`)).toBe(0);
    // Nothing is left held: bash still runs.
    expect(text(await run.call("bash", { command: "echo still" }))).toContain("stdout:\nstill");
    await close();
  }, 30_000);

  it("a monitor given bash's limits runs beside bash calls (control)", async () => {
    const { run, close } = mixedRun({ maxProcesses: 16 });
    expect(text(await run.call("bash", { command: "echo first" }))).toContain("stdout:\nfirst");
    expect((await run.call("monitor", { action: "start", command: `sleep 63.${RUN_MARK}` })).ok).toBe(true);
    const beside = text(await run.call("bash", { command: "echo beside" }));
    expect(beside).toContain("stdout:\nbeside");
    expect(beside).not.toContain("for the run's limits");
    await close();
    expect(liveWith(`63.${RUN_MARK}`)).toBe(0);
  }, 30_000);
});

describe("options checked when the tool is made", () => {
  it("refuses a run total for a limit that is off per command, a bad limit with the totals off, and an overlong wait", () => {
    for (const create of [createBashTool, createMonitorTool]) {
      expect(() => create({ limits: { maxProcesses: false }, runLimits: { maxProcesses: 32 } })).toThrow(
        /needs a per-command limits.maxProcesses/,
      );
      expect(() => create({ limits: { maxProcesses: 0 }, runLimits: false })).toThrow(/limits.maxProcesses must be/);
      expect(() => create({ runLimits: { waitSeconds: 30 * 24 * 3600 } })).toThrow(/waitSeconds must be from 0 to/);
      // Controls.
      expect(() => create({ limits: { maxProcesses: false }, runLimits: { maxProcesses: false } })).not.toThrow();
      expect(() => create({ limits: { maxProcesses: 1 }, runLimits: false })).not.toThrow();
      expect(() => create({ runLimits: { waitSeconds: 2_147_483 } })).not.toThrow();
    }
  });
});
