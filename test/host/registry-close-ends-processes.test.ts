// `registry.close()` is what a host calls at shutdown. It aborted calls in flight, but a monitor's
// background command (started by a call that had ended) kept running until the host also closed
// each run: closing the registry left the catalog's processes behind.
import { describe, expect, it } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { createRegistry, defineTool } from "../../src/index.js";
import { liveWith, runMark } from "../support/live-processes.js";
import { hostRun, record } from "./support/host-test-kit.js";

async function gone(marker: string, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; ) {
    if (liveWith(marker) === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return liveWith(marker) === 0;
}

describe("registry.close() ends what its runs started", () => {
  it("a monitor's background command is killed by registry.close() (the run never closed)", async () => {
    const seconds = `3000.${runMark()}`;
    const { registry, run } = hostRun([monitorToolGroup({ allowUnsandboxedFallback: true })]);
    const started = record(await run.call("monitor", { action: "start", command: `exec sleep ${seconds}` }));
    expect(started).toMatchObject({ status: "running" });
    // Positive control: it runs after its call ended, as a background command should.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(liveWith(seconds)).toBe(1);
    await registry.close();
    expect(await gone(seconds, 5_000)).toBe(true);
    expect(run.closed).toBe(true);
    await run.close(); // closing it again is harmless
  }, 20_000);

  it("control: run.close() alone also ends it, and a later registry.close() has nothing left to do", async () => {
    const seconds = `4000.${runMark()}`;
    const { registry, run } = hostRun([monitorToolGroup({ allowUnsandboxedFallback: true })]);
    record(await run.call("monitor", { action: "start", command: `exec sleep ${seconds}` }));
    await run.close();
    expect(await gone(seconds, 5_000)).toBe(true);
    await registry.close();
  }, 20_000);

  it("a run's cleanup runs once, at registry.close(); a run holding nothing is not closed", async () => {
    const disposed: string[] = [];
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "hold",
          description: "Holds a resource until its run closes.",
          inputSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
          handler: (input: { label: string }, context) => {
            context.addRunDisposer(() => {
              disposed.push(input.label);
            });
            return "held";
          },
        }),
      ],
    });
    const holding = registry.createRun();
    const idle = registry.createRun();
    expect((await holding.call("hold", { label: "a" })).ok).toBe(true);
    await registry.close();
    expect(disposed).toEqual(["a"]);
    expect(holding.closed).toBe(true);
    expect(idle.closed).toBe(false);
    await holding.close();
    expect(disposed).toEqual(["a"]);
  });
});
