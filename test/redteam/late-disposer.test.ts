// Red team round 5: a handler that ignores its abort signal and registers its cleanup
// (ctx.addRunDisposer) after run.close() had it accepted and never run: whatever it started
// (a process, a connection) leaked. A disposer added to a closed run now runs at once.
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("cleanup registered after close", () => {
  it("runs at once, and a failing one is a diagnostic; before close it waits for close (positive control)", async () => {
    const cleaned: string[] = [];
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "start_worker",
          description: "Starts something that needs cleanup, ignoring the abort signal.",
          tier: "core",
          inputSchema: z.object({ label: z.string(), fail: z.boolean().optional() }),
          handler: async ({ label, fail }, context) => {
            if (label === "late") {
              started();
              await gate;
            }
            context.addRunDisposer(() => {
              cleaned.push(label);
              if (fail === true) throw new Error("cleanup failed");
            });
            return "started";
          },
        }),
      ],
    });
    const run = registry.createRun({});
    expect(await run.call("start_worker", { label: "early" })).toMatchObject({ ok: true });
    expect(cleaned).toEqual([]);
    const late = run.call("start_worker", { label: "late", fail: true });
    await running;
    await run.close();
    expect(cleaned).toEqual(["early"]);
    expect(await late).toMatchObject({ ok: false, error: { code: "aborted" } });
    release();
    for (let tries = 0; tries < 50 && run.diagnostics().length === 0; tries++) await sleep(10);
    expect(cleaned).toEqual(["early", "late"]);
    expect(run.diagnostics()).toEqual([
      expect.objectContaining({ kind: "disposer_failed", message: expect.stringContaining("cleanup failed") }),
    ]);
  });
});
