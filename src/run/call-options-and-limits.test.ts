import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import type { ToolCallResult } from "../tool/tool-call-result.js";
import type { Run } from "./run.js";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A tool whose calls stay in flight until the test opens `release`; counts the calls that entered. */
function slowTool() {
  const release = gate();
  let entered = 0;
  const slow = defineTool({
    name: "slow",
    description: "Waits for the test to let it go.",
    tier: "core",
    inputSchema: z.object({}),
    handler: async () => {
      entered += 1;
      await release.opened;
      return "done";
    },
  });
  return { release, slow, entered: () => entered };
}

describe("run.call with a handler that calls its own run", () => {
  it("ends a call chain without end at maxCallsInFlight", async () => {
    let levels = 0;
    let run!: Run;
    const selfCall = defineTool({
      name: "self_call",
      description: "Calls itself, without end.",
      tier: "core",
      inputSchema: z.object({}),
      handler: async () => {
        levels += 1;
        const inner = await run.call("self_call", {});
        // The refusal at the bottom travels up as every level's output.
        return inner.ok ? inner.output : { refused: inner.error.code };
      },
    });
    run = createRegistry({ tools: [selfCall] }).createRun({ maxCallsInFlight: 200 });
    const started = performance.now();
    // Before the bound, this call never settled and no timer of the process fired again.
    const result = await run.call("self_call", {});
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ ok: true, output: { refused: "too_many_calls" } });
    expect(levels).toBe(200);
    // The run is usable afterwards: nothing is left in flight.
    levels = 0;
    expect(await run.call("self_call", {})).toMatchObject({ ok: true, output: { refused: "too_many_calls" } });
    expect(levels).toBe(200);
  });

  it("refuses a call over the limit with too_many_calls, and takes calls again once some finish", async () => {
    const { release, slow, entered } = slowTool();
    const run = createRegistry({ tools: [slow] }).createRun({ maxCallsInFlight: 2 });
    const first = run.call("slow", {});
    const second = run.call("slow", {});
    while (entered() < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    const refused = await run.call("slow", {});
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe("too_many_calls");
    expect(entered()).toBe(2);
    release.open();
    expect((await first).ok).toBe(true);
    expect((await second).ok).toBe(true);
    // Control: the same call goes through once the two finished.
    const again = await run.call("slow", {});
    expect(again.ok).toBe(true);
    expect(entered()).toBe(3);
  });

  it("lets 200 parallel calls of one model step through under the default limit", async () => {
    const { release, slow } = slowTool();
    const run = createRegistry({ tools: [slow] }).createRun({});
    const calls = Array.from({ length: 200 }, () => run.call("slow", {}));
    setTimeout(release.open, 10);
    const results = await Promise.all(calls);
    expect(results.every((result) => result.ok)).toBe(true);
  });

  it("rejects a maxCallsInFlight that is not a positive number when the run is made", () => {
    const registry = createRegistry({ tools: [] });
    expect(() => registry.createRun({ maxCallsInFlight: 0 })).toThrow(/maxCallsInFlight/);
    expect(() => registry.createRun({ maxCallsInFlight: Number.NaN })).toThrow(/maxCallsInFlight/);
  });
});

describe("a handler that calls into a new child run of its own run, without end", () => {
  it("ends at the child depth bound with tool_failed, while 64 levels are allowed", async () => {
    let levels = 0;
    let registry!: ReturnType<typeof createRegistry>;
    const forkCall = defineTool({
      name: "fork_call",
      description: "Makes a child run and calls itself there, without end.",
      tier: "core",
      inputSchema: z.object({}),
      handler: async (_input, context) => {
        levels += 1;
        const child = registry.createRun({ parent: context.scope });
        const inner = await child.call("fork_call", {});
        return inner.ok ? inner.output : { refused: inner.error.code, message: inner.error.message };
      },
    });
    registry = createRegistry({ tools: [forkCall] });
    const result = await registry.createRun({}).call("fork_call", {});
    // Levels 0..64 ran; the handler at depth 64 could not make a 65th level.
    expect(levels).toBe(65);
    expect(result).toMatchObject({ ok: true, output: { refused: "tool_failed" } });
    // Control: the deepest allowed child is made.
    let parent = registry.createRun({});
    for (let depth = 1; depth <= 64; depth += 1) parent = registry.createRun({ parent });
    expect(parent.depth).toBe(64);
    expect(() => registry.createRun({ parent })).toThrow(/at most 64 levels/);
  });
});

describe("run.call with unusable call options", () => {
  function setup() {
    const seen: AbortSignal[] = [];
    const tool = defineTool({
      name: "wait_for_abort",
      description: "Resolves when its call is aborted, or at once when told so.",
      tier: "core",
      inputSchema: z.object({ wait: z.boolean() }),
      handler: async ({ wait }, context) => {
        seen.push(context.signal);
        if (!wait) return "ran";
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
        return "aborted late";
      },
    });
    return { run: createRegistry({ tools: [tool] }).createRun({}), seen };
  }

  function errorOf(result: ToolCallResult) {
    expect(result.ok).toBe(false);
    return result.ok ? undefined : result.error;
  }

  it("names an AbortController passed where its signal belongs, and does not call the tool", async () => {
    const { run, seen } = setup();
    const controller = new AbortController();
    const result = await run.call("wait_for_abort", { wait: false }, { signal: controller as unknown as AbortSignal });
    const error = errorOf(result);
    expect(error?.code).toBe("internal_error");
    expect(error?.message).toMatch(/AbortController: pass its \.signal/);
    expect(seen).toHaveLength(0);
    // Control: the controller's signal itself works.
    const good = await run.call("wait_for_abort", { wait: false }, { signal: controller.signal });
    expect(good.ok).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it.each([
    ["a plain object", {}],
    ["a string", "abort"],
    ["a number", 7],
    [
      "an object whose aborted getter throws",
      Object.defineProperty({}, "aborted", {
        get: () => {
          throw new Error("no");
        },
      }),
    ],
  ])("says the signal is not an AbortSignal when it is %s", async (_label, signal) => {
    const { run, seen } = setup();
    const error = errorOf(await run.call("wait_for_abort", { wait: false }, { signal: signal as unknown as AbortSignal }));
    expect(error?.code).toBe("internal_error");
    expect(error?.message).toMatch(/signal is not an AbortSignal/);
    expect(seen).toHaveLength(0);
  });

  it("says so when the options are not an object or reading them throws", async () => {
    const { run, seen } = setup();
    const notObject = errorOf(await run.call("wait_for_abort", { wait: false }, 42 as never));
    expect(notObject?.message).toMatch(/must be an object/);
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error("hostile options");
        },
      },
    );
    const threw = errorOf(await run.call("wait_for_abort", { wait: false }, throwing));
    expect(threw?.message).toMatch(/Reading the call options threw/);
    expect(seen).toHaveLength(0);
    // Control: null and undefined options are no options.
    expect((await run.call("wait_for_abort", { wait: false }, null as never)).ok).toBe(true);
    expect((await run.call("wait_for_abort", { wait: false }, undefined)).ok).toBe(true);
  });

  it("accepts a signal of another shape (an EventTarget with aborted), and aborting it aborts the call", async () => {
    const { run, seen } = setup();
    const target = new EventTarget() as EventTarget & { aborted: boolean; reason: unknown };
    target.aborted = false;
    const pending = run.call("wait_for_abort", { wait: true }, { signal: target as unknown as AbortSignal });
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    target.aborted = true;
    target.dispatchEvent(new Event("abort"));
    const error = errorOf(await pending);
    expect(error?.code).toBe("aborted");
  });
});
