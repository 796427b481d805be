/**
 * What a run's budget does not count, by decision: processes the host starts for itself. A stdio
 * MCP server the host connects for a run (`connectMcpServer(registry, config, { run })`) is the
 * host's configuration, not something the model started; a cron `shell` job runs on the host's
 * scheduler and `runShell` outside any run (often after the run that scheduled it has ended), so
 * its limits are the runner's. Each is checked while the run's budget is fully held by the model's
 * own command, which a `bash` call of the same run shows (the control: the budget is full).
 */

import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cronToolGroup, InProcessCronScheduler, ManualClock } from "../../src/host/index.js";
import { createMonitorTool } from "../../src/host/monitor/monitor-tool.js";
import { RUN_RESOURCE_BUDGET } from "../../src/tools/sandbox/run-resource-budget.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { stdioFixture } from "../mcp/support/stdio-fixture.js";
import { runMark } from "../support/live-processes.js";

const RUN_MARK = runMark();
const budget = { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 100, waitSeconds: 0 } };

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-host-processes-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function text(result: ToolCallResult): string {
  return result.ok ? JSON.stringify(result.output) : `ERROR ${result.error.code}: ${result.error.message}`;
}

/** Fills the run's budget with a monitor background command, and checks a bash call is refused. */
async function fillBudget(run: Run, seconds: number): Promise<void> {
  run.activate(["monitor"]);
  expect((await run.call("monitor", { action: "start", command: `sleep ${seconds}.${RUN_MARK}` })).ok).toBe(true);
  expect(text(await run.call("bash", { command: "echo refused" }))).toMatch(/^ERROR run_limit_reached: /);
}

describe("processes the host starts are not a run's", () => {
  it("a stdio MCP server connected for the run starts and answers while the run's budget is full, and takes none of it", async () => {
    const registry = createRegistry({ tools: [createBashTool(budget), createMonitorTool(budget)] });
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    await fillBudget(run, 30);
    const ledger = run.scope().storage?.get(RUN_RESOURCE_BUDGET);
    const before = ledger?.held();
    await connectMcpServer(registry, stdioFixture("hosted"), { run });
    run.activate(["mcp_hosted_echo"]);
    expect(text(await run.call("mcp_hosted_echo", { text: "from the host's server" }))).toContain("from the host's server");
    expect(ledger?.held()).toEqual(before);
    await run.close();
    await registry.close();
  }, 60_000);

  it("a cron shell job scheduled by the run runs on the host's runner while the run's budget is full", async () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1));
    const outputs: string[] = [];
    const scheduler = new InProcessCronScheduler({
      clock,
      // The host's runner: its own process, under its own limits (here none).
      runShell: async ({ command, signal }) => {
        const { stdout } = await promisify(execFile)("/bin/sh", ["-c", command], { signal });
        outputs.push(stdout);
        return { exitCode: 0, output: stdout };
      },
    });
    const registry = createRegistry({
      tools: [createBashTool(budget), createMonitorTool(budget)],
      groups: [cronToolGroup({ client: scheduler })],
    });
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    run.activate(["cron_create"]);
    await fillBudget(run, 30);
    const created = await run.call("cron_create", {
      name: "tick",
      schedule: "* * * * *",
      execution_type: "shell",
      command: "echo scheduled",
    });
    expect(created.ok).toBe(true);
    await clock.advance(60_000);
    await scheduler.idle();
    expect(outputs).toEqual(["scheduled\n"]);
    await scheduler.close();
    await run.close();
    await registry.close();
  }, 60_000);
});
