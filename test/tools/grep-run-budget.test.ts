/**
 * grep's ripgrep is a process of the run: it takes one process of the run's budget while it runs
 * (and of its ancestors', for a child run), and with none free the JavaScript engine answers
 * instead (or, for a grep configured to use ripgrep only, the call fails with
 * `run_limit_reached`). Real runs, a real `monitor` holding the budget, real ripgrep.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMonitorTool } from "../../src/host/monitor/monitor-tool.js";
import { createGrepTool } from "../../src/tools/fs/grep-tool.js";
import { RUN_RESOURCE_BUDGET } from "../../src/tools/sandbox/run-resource-budget.js";
import { capability } from "../support/capabilities.js";
import { liveWith, runMark } from "../support/live-processes.js";

const ripgrep = capability("ripgrep");
const RUN_MARK = runMark();

function text(result: ToolCallResult): string {
  return result.ok ? String(result.output) : `ERROR ${result.error.code}: ${result.error.message}`;
}

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-budget-"));
  await writeFile(path.join(workspace, "notes.txt"), "alpha\nneedle here\nomega\n");
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function harness(engine: "auto" | "ripgrep") {
  const budget = { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 100, waitSeconds: 1 } };
  const registry = createRegistry({ tools: [createGrepTool({ engine }), createMonitorTool(budget)] });
  const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
  run.activate(["monitor", "grep"]);
  return { registry, run };
}

describe.skipIf(ripgrep.missing)(ripgrep.label("grep's ripgrep takes a process of the run's budget"), () => {
  it("with the run's processes all held, the JavaScript engine answers; once one is free, ripgrep does", async () => {
    const { registry, run } = harness("auto");
    const marker = `30.${RUN_MARK}`;
    expect((await run.call("monitor", { action: "start", command: `sleep ${marker}` })).ok).toBe(true);
    const held = text(await run.call("grep", { pattern: "needle" }));
    expect(held).toContain("notes.txt:2:needle here");
    expect(held).toContain("javascript worker (no process of the run's budget was free for ripgrep)");
    expect((await run.call("monitor", { action: "stop", id: "mon_1" })).ok).toBe(true);
    expect(liveWith(marker)).toBe(0);
    // Control: the same search with a process free runs ripgrep, and gives the process back.
    const free = text(await run.call("grep", { pattern: "needle" }));
    expect(free).toContain("notes.txt:2:needle here");
    expect(free).toContain("ripgrep, sandbox");
    expect(run.scope().storage?.get(RUN_RESOURCE_BUDGET).held().processes).toBe(0);
    await run.close();
    await registry.close();
  }, 30_000);

  it("a grep that may use ripgrep only fails with run_limit_reached while the run's processes are held", async () => {
    const { registry, run } = harness("ripgrep");
    expect((await run.call("monitor", { action: "start", command: `sleep 31.${RUN_MARK}` })).ok).toBe(true);
    const refused = await run.call("grep", { pattern: "needle" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe("run_limit_reached");
    expect((await run.call("monitor", { action: "stop", id: "mon_1" })).ok).toBe(true);
    expect(text(await run.call("grep", { pattern: "needle" }))).toContain("ripgrep, sandbox");
    await run.close();
    await registry.close();
  }, 30_000);

  it("a child run's grep draws on its parent's budget too", async () => {
    const { registry, run } = harness("auto");
    expect((await run.call("monitor", { action: "start", command: `sleep 32.${RUN_MARK}` })).ok).toBe(true);
    const child = registry.createRun({ parent: run, profile: "full" });
    child.activate(["grep"]);
    expect(text(await child.call("grep", { pattern: "needle" }))).toContain("no process of the run's budget was free");
    expect((await run.call("monitor", { action: "stop", id: "mon_1" })).ok).toBe(true);
    expect(text(await child.call("grep", { pattern: "needle" }))).toContain("ripgrep, sandbox");
    await child.close();
    await run.close();
    await registry.close();
  }, 30_000);
});
