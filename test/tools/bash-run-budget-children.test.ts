/**
 * Child runs draw on their parent's resource budget: a model that spawns children (swarm,
 * subagents) cannot multiply its processes, since every child's commands reserve their share out
 * of the parent's totals too (the child's own totals are a further cap). Real runs, real `bash`
 * and `monitor` processes, the real `swarm` tool with a scripted runner that makes each child run
 * with `createRun({ parent: request.scope })` as a host's runner does. Live processes are counted
 * through /proc by a marker unique to this test run.
 */

import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Registry, type Run, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentRunner } from "../../src/host/agents/agent-runner.js";
import { swarmToolGroup } from "../../src/host/agents/swarm-tool.js";
import { createMonitorTool } from "../../src/host/monitor/monitor-tool.js";
import type { ResourceLimits } from "../../src/tools/sandbox/resource-limits.js";
import type { RunResourceLimits } from "../../src/tools/sandbox/run-resource-budget.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { liveWith, runMark, sampleMost } from "../support/live-processes.js";

const bubblewrap = capability("bubblewrap");
const cgroups = capability("cgroups");

// Appended to sleep durations (`sleep 2.<mark>`): only this test run's processes carry it.
const RUN_MARK = runMark();

function describeResult(result: ToolCallResult): string {
  return result.ok ? String(result.output) : `ERROR ${result.error.code}: ${result.error.message}`;
}

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-child-budget-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

interface Budget {
  readonly limits: ResourceLimits;
  readonly runLimits: RunResourceLimits;
}

interface Harness {
  readonly registry: Registry;
  /** A top-level run of the registry. */
  parent(): Run;
}

/**
 * One registry for parent and children (as the README wires it): bash and monitor under
 * `budget`, and `swarm` whose runner makes each member a child run of the asking run that runs
 * its task as one bash command, then closes.
 */
function harness(scope: SandboxScope, budget: Budget, strict = false): Harness {
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
  let registry: Registry | undefined;
  const runner: AgentRunner = {
    runPrompt: async (request) => {
      const child = (registry as Registry).createRun({ parent: request.scope, profile: "full" });
      try {
        const result = await child.call("bash", { command: request.prompt, timeout_seconds: 60 }, { signal: request.signal });
        return { output: describeResult(result) };
      } finally {
        await child.close();
      }
    },
  };
  registry = createRegistry({
    tools: [createBashTool(shared), createMonitorTool(shared)],
    groups: [swarmToolGroup({ runner, maxConcurrency: 8 })],
  });
  const made = registry;
  return {
    registry: made,
    parent: () => {
      const run = made.createRun({
        profile: "full",
        permissions: { sandbox: scope, workspace },
        condenseThreshold: Number.POSITIVE_INFINITY,
      });
      run.activate(["monitor", "swarm"]);
      return run;
    },
  };
}

/** The members' outputs of a swarm call, in task order. */
function swarmOutputs(result: ToolCallResult): string[] {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const output = result.output as { results: { status: string; output?: string; error?: string }[] };
  return output.results.map((each) => each.output ?? `${each.status}: ${each.error}`);
}

describe.skipIf(bubblewrap.missing || cgroups.missing)(
  cgroups.label(bubblewrap.label("child runs draw on the parent's budget, under bubblewrap with per-command cgroups")),
  () => {
    const budget = { limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 32, waitSeconds: 60 } };
    const forkBomb = (marker: string) => `for i in $(seq 24); do sleep ${marker} & done 2>/dev/null; wait`;

    it("a parent at 32 processes spawning 4 fork-bombing children stays at 32 live processes", async () => {
      const h = harness("workspace", budget, true);
      const parent = h.parent();
      const marker = `2.${RUN_MARK}`;
      const sampler = sampleMost(marker);
      const result = await parent.call("swarm", { tasks: [1, 2, 3, 4].map(() => ({ task: forkBomb(marker) })) });
      const most = sampler.stop();
      const outputs = swarmOutputs(result);
      // Each child got its whole per-command limit, never more than two commands' worth at once
      // over all four children (each child run alone has a total of 32: 64 without the link).
      for (const output of outputs) expect(output).toContain("process limit reached (16 ");
      expect(most).toBeLessThanOrEqual(32);
      expect(most).toBeGreaterThan(16);
      expect(liveWith(marker)).toBe(0);
      await parent.close();
      await h.registry.close();
    }, 180_000);

    it("one child alone reaches its per-command limit (control)", async () => {
      const h = harness("workspace", budget, true);
      const parent = h.parent();
      const marker = `3.${RUN_MARK}`;
      const sampler = sampleMost(marker);
      const [output] = swarmOutputs(await parent.call("swarm", { tasks: [{ task: forkBomb(marker) }] }));
      const most = sampler.stop();
      expect(output).toContain("process limit reached (16 ");
      expect(output).not.toContain("for the run's limits");
      expect(most).toBeGreaterThan(8);
      expect(most).toBeLessThanOrEqual(16);
      await parent.close();
      await h.registry.close();
    }, 120_000);
  },
);

const scopes: SandboxScope[] = ["unrestricted", ...(bubblewrap.missing ? [] : (["workspace"] as const))];

describe("child runs draw on the parent's budget", () => {
  for (const scope of scopes) {
    it(`four children run at most as many commands at once as the parent's total holds (${scope})`, async () => {
      const h = harness(scope, { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 200, waitSeconds: 60 } });
      const parent = h.parent();
      const marker = `1.${RUN_MARK}`;
      const sampler = sampleMost(marker);
      // exec: one process per command carries the marker, under bwrap and unsandboxed alike.
      const outputs = swarmOutputs(
        await parent.call("swarm", { tasks: [1, 2, 3, 4].map(() => ({ task: `exec sleep ${marker}` })) }),
      );
      const most = sampler.stop();
      for (const output of outputs) expect(output).toMatch(/^exit code 0 · /);
      // Two waited for the others: the parent's 200 hold two commands of 100.
      expect(outputs.filter((output) => output.includes("for the run's limits")).length).toBeGreaterThanOrEqual(2);
      expect(most).toBeLessThanOrEqual(scope === "workspace" ? 2 * 3 : 2);
      await parent.close();
      await h.registry.close();
    }, 60_000);
  }

  it("children racing for the last slot: exactly the parent's total is granted, never more", async () => {
    // No wait: three fit in the parent's 300, the fourth is refused at once.
    const h = harness("unrestricted", { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 300, waitSeconds: 0 } });
    const parent = h.parent();
    const marker = `4.${RUN_MARK}`;
    const sampler = sampleMost(marker);
    const outputs = swarmOutputs(
      await parent.call("swarm", { tasks: [1, 2, 3, 4].map(() => ({ task: `exec sleep ${marker}` })) }),
    );
    const most = sampler.stop();
    expect(outputs.filter((output) => /^exit code 0 · /.test(output))).toHaveLength(3);
    const refused = outputs.filter((output) => output.startsWith("ERROR run_limit_reached"));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain("of its parent run");
    expect(refused[0]).toContain("processes (300 of the parent run's 300 are held, this command needs 100)");
    expect(most).toBe(3);
    // Control: with the slots given back, a fourth child runs.
    const [again] = swarmOutputs(await parent.call("swarm", { tasks: [{ task: "echo again" }] }));
    expect(again).toContain("stdout:\nagain");
    await parent.close();
    await h.registry.close();
  }, 60_000);

  it("a child's command waiting for the parent's budget: its own total caps it, waitSeconds ends the wait, abort ends it at once", async () => {
    const h = harness("unrestricted", { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 100, waitSeconds: 1 } });
    const parent = h.parent();
    // Holds the parent's whole budget until released (a line into its FIFO) once the checks below
    // are done: a fixed `sleep 3` before, of which they take about 1.5 s.
    const release = path.join(workspace, "release");
    execFileSync("mkfifo", [release]);
    const holding = parent.call("bash", { command: `read -r line < '${release}'` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const child = h.registry.createRun({ parent, profile: "full" });
    // waitSeconds (1 s) bounds the wait in the parent's queue too.
    const started = performance.now();
    const late = await child.call("bash", { command: "echo late" });
    const waited = performance.now() - started;
    expect(describeResult(late)).toMatch(/^ERROR run_limit_reached: bash \S+ did not start: the commands of its parent run/);
    expect(describeResult(late)).toContain(`Held by: bash`);
    expect(waited).toBeGreaterThan(900);
    expect(waited).toBeLessThan(10_000);
    // Aborting a waiting call ends it at once.
    const controller = new AbortController();
    const waiting = child.call("bash", { command: "echo aborted" }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const aborted = performance.now();
    controller.abort();
    const result = await waiting;
    expect(performance.now() - aborted).toBeLessThan(1_000);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("aborted");
    // Non-blocking: ENXIO at once if the holding command is not reading (gone), not a hang.
    const writer = await open(release, constants.O_WRONLY | constants.O_NONBLOCK);
    await writer.write("go\n");
    await writer.close();
    expect(describeResult(await holding)).toMatch(/^exit code 0 · /);
    // Control: once the parent's command ended, the child's runs at once (nothing queued was left behind).
    const free = describeResult(await child.call("bash", { command: "echo free" }));
    expect(free).toContain("stdout:\nfree");
    expect(free).not.toContain("for the run's limits");
    await child.close();
    await parent.close();
    await h.registry.close();
  }, 60_000);

  it("a child run that is never closed holds nothing of its ancestors once its parent run is closed", async () => {
    const h = harness("unrestricted", { limits: { maxProcesses: 50 }, runLimits: { maxProcesses: 100, waitSeconds: 1 } });
    const top = h.parent();
    const middle = h.registry.createRun({ parent: top, profile: "full" });
    // A child whose runner hangs and ignores its abort signal: nobody ever closes its run.
    const hung = h.registry.createRun({ parent: middle.scope(), profile: "full" });
    hung.activate(["monitor"]);
    const marker = `60.${RUN_MARK}`;
    expect((await hung.call("monitor", { action: "start", command: `sleep ${marker}` })).ok).toBe(true);
    // A bash call of the hung child, running when its parent closes.
    const running = hung.call("bash", { command: `sleep ${marker}` });
    // A precondition, not a time claim: wait until both commands run (a loaded CI machine once
    // took over 5 s to start the second), or until the bash call answered instead, which the
    // assertion then shows.
    let answered: string | undefined;
    void running.then((result) => {
      answered = describeResult(result);
    });
    const bothLive = performance.now();
    while (liveWith(marker) < 2 && answered === undefined && performance.now() - bothLive < 30_000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(liveWith(marker), `the bash call answered: ${answered}`).toBeGreaterThanOrEqual(2);
    // Control: while its parent is open, the hung child's commands hold the top run's budget.
    const blocked = describeResult(await top.call("bash", { command: "echo blocked" }));
    expect(blocked).toMatch(/^ERROR run_limit_reached: /);
    expect(blocked).toContain(`monitor mon_1 of child run ${hung.id}`);
    expect(blocked).toContain("of child run");
    await middle.close();
    // Its bash call ended with its parent (not after its 60 s) and says why.
    expect(describeResult(await running)).toMatch(/^ERROR run_closed: .*a parent run of this run was closed/);
    // Its command ended with its parent, and gave the share back to every ancestor.
    const closed = performance.now();
    while (liveWith(marker) > 0 && performance.now() - closed < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(liveWith(marker)).toBe(0);
    const free = describeResult(await top.call("bash", { command: "echo free" }));
    expect(free).toContain("stdout:\nfree");
    // And it can start nothing more on the closed parent's budget.
    const refused = describeResult(await hung.call("bash", { command: "echo more" }));
    expect(refused).toMatch(/^ERROR run_closed: bash \S+ did not start, or was ended: a parent run of this run was closed/);
    await top.close();
    await h.registry.close();
  }, 60_000);
});
