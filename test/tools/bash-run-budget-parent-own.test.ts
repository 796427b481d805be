/**
 * A parent run's totals come from its own tools' configuration, declared when the run is made,
 * not from its first own command: an orchestrator that never runs `bash` itself still holds its
 * child runs to its bash's `runLimits`. Before, the parent's total was recorded only when one of
 * its own commands reserved, so four children at `runLimits.maxProcesses: 64` (16 per command)
 * all ran under a parent whose own bash is set to 32. Real runs, real bash processes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-parent-own-budget-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Four children (their own bash at 64, 16 per command) each run one command at once under a parent whose bash is at `parentTotal`. */
async function fourChildren(parentTotal: number): Promise<string[]> {
  const permissions = { sandbox: "unrestricted" as const, workspace };
  const children = createRegistry({
    tools: [createBashTool({ limits: { maxProcesses: 16 }, runLimits: { maxProcesses: 64, waitSeconds: 0 } })],
  });
  const spawn = defineTool({
    name: "spawn",
    description: "Runs one command in each of four child runs at once.",
    inputSchema: { type: "object", properties: {} },
    handler: async (_input, context) =>
      Promise.all(
        [1, 2, 3, 4].map(async () => {
          const child = children.createRun({ parent: context.scope, profile: "full", permissions });
          try {
            const result = await child.call("bash", { command: "sleep 1" });
            return result.ok ? "ran" : result.error.code;
          } finally {
            await child.close();
          }
        }),
      ),
  });
  const parents = createRegistry({
    tools: [createBashTool({ limits: { maxProcesses: 16 }, runLimits: { maxProcesses: parentTotal, waitSeconds: 0 } }), spawn],
  });
  const parent = parents.createRun({ profile: "full", permissions });
  parent.activate(["spawn"]);
  const result = await parent.call("spawn", {});
  await parent.close();
  await parents.close();
  await children.close();
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return [...(result.output as string[])].sort();
}

it("a parent whose own bash is at 32 and never ran holds its children to 32: two of four commands of 16 run", async () => {
  expect(await fourChildren(32)).toEqual(["ran", "ran", "run_limit_reached", "run_limit_reached"]);
}, 60_000);

it("control: a parent whose own bash is at 64 lets all four run", async () => {
  expect(await fourChildren(64)).toEqual(["ran", "ran", "ran", "ran"]);
}, 60_000);
