import { describe, expect, it } from "vitest";
import { RunResourceBudget, runBudgetPlan } from "./run-resource-budget.js";

const run = { maxProcesses: 10, maxMemoryBytes: undefined };
const share = (label: string, processes: number) => ({ label, processes, memoryBytes: 0 });
const never = new AbortController().signal;

describe("RunResourceBudget", () => {
  it("grants in arrival order: a large share waiting is not overtaken by a smaller one", async () => {
    const budget = new RunResourceBudget();
    const first = await budget.reserve(share("a", 6), run, 1_000, never);
    const order: string[] = [];
    const large = budget.reserve(share("large", 8), run, 1_000, never).then((release) => {
      order.push("large");
      return release;
    });
    // Fits beside "a" (6 + 3 <= 10) but arrived after "large": it waits its turn.
    const small = budget.reserve(share("small", 2), run, 1_000, never).then((release) => {
      order.push("small");
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    first();
    first(); // giving back twice gives back once
    (await large)();
    (await small)();
    expect(order).toEqual(["large", "small"]);
    expect(budget.held()).toEqual({ processes: 0, memoryBytes: 0 });
  });

  it("fails after the wait with run_limit_reached naming the holders, and lets the next one in", async () => {
    const budget = new RunResourceBudget();
    const holder = await budget.reserve(share("monitor mon_1", 10), run, 0, never);
    await expect(budget.reserve(share("bash call_2", 1), run, 30, never)).rejects.toMatchObject({
      code: "run_limit_reached",
      message: expect.stringContaining("Held by: monitor mon_1"),
    });
    holder();
    const next = await budget.reserve(share("bash call_3", 10), run, 0, never);
    expect(budget.holders().map((each) => each.label)).toEqual(["bash call_3"]);
    next();
  });

  it("a plan: 8 × the per-command limits by default; none with runLimits false; a total below one command refused", () => {
    expect(runBudgetPlan({ maxProcesses: 16, maxMemoryBytes: false }, undefined)?.run).toEqual({
      maxProcesses: 128,
      maxMemoryBytes: undefined,
    });
    expect(runBudgetPlan({ maxProcesses: 16 }, false)).toBeUndefined();
    expect(runBudgetPlan(false, undefined)).toBeUndefined();
    expect(() => runBudgetPlan({ maxProcesses: 16 }, { maxProcesses: 15 })).toThrow(/at least/);
  });
});
