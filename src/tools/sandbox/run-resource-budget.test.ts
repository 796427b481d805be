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

  it("has one set of totals whatever tools share it: the smallest declared", async () => {
    const budget = new RunResourceBudget();
    const bash = { maxProcesses: 128, maxMemoryBytes: undefined };
    const monitor = { maxProcesses: 8192, maxMemoryBytes: undefined };
    const first = await budget.reserve({ ...share("bash call_1", 16), tool: "bash" }, bash, 0, never);
    // 16 + 1024 fitted the monitor's own 8,192 total on the old code.
    const error = await budget
      .reserve({ ...share("monitor mon_1", 1024), tool: "monitor" }, monitor, 60_000, never)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "run_limit_reached",
      data: {
        reason: "exceeds_run_total",
        limit: "processes",
        needed: 1024,
        runLimit: 128,
        runLimitSetBy: "bash",
        option: "monitor limits.maxProcesses",
      },
    });
    expect(budget.runTotals()).toEqual({ maxProcesses: 128, maxMemoryBytes: undefined });
    // A larger total declared later does not raise the run's: 8 × 16 still fit, a 9th waits.
    const shares = [first];
    for (let index = 2; index <= 8; index++) {
      shares.push(await budget.reserve({ ...share(`monitor mon_${index}`, 16), tool: "monitor" }, monitor, 0, never));
    }
    await expect(budget.reserve({ ...share("monitor mon_9", 16), tool: "monitor" }, monitor, 10, never)).rejects.toMatchObject({
      data: { reason: "held", runLimit: 128 },
    });
    for (const release of shares) release();
    expect(budget.held()).toEqual({ processes: 0, memoryBytes: 0 });
  });

  it("a waiter that can never fit once a smaller total is declared fails at once, not after its wait", async () => {
    const budget = new RunResourceBudget();
    const holder = await budget.reserve(
      { ...share("monitor mon_1", 100), tool: "monitor" },
      { maxProcesses: 100, maxMemoryBytes: undefined },
      0,
      never,
    );
    const waiting = budget
      .reserve(
        { ...share("monitor mon_2", 100), tool: "monitor" },
        { maxProcesses: 100, maxMemoryBytes: undefined },
        60_000,
        never,
      )
      .catch((caught: unknown) => caught);
    const asked = performance.now();
    // bash declares a total below the monitor's per-command limit (it does not get in itself:
    // the monitor granted before holds more than the new total until it ends).
    const small = await budget
      .reserve({ ...share("bash call_1", 10), tool: "bash" }, { maxProcesses: 50, maxMemoryBytes: undefined }, 0, never)
      .catch((caught: unknown) => caught);
    expect(small).toMatchObject({ data: { reason: "held", held: 100, runLimit: 50 } });
    expect(await waiting).toMatchObject({ data: { reason: "exceeds_run_total", runLimitSetBy: "bash" } });
    expect(performance.now() - asked).toBeLessThan(1_000);
    holder();
    expect(budget.held()).toEqual({ processes: 0, memoryBytes: 0 });
  });

  it("a waiter timing out behind an earlier larger request says it was queued, not short of memory", async () => {
    const budget = new RunResourceBudget();
    const hold = await budget.reserve(share("monitor mon_1", 6), run, 0, never);
    const large = budget.reserve(share("monitor mon_2", 8), run, 2_000, never);
    const error = await budget.reserve(share("bash c3", 2), run, 100, never).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "run_limit_reached",
      message: expect.stringContaining("queued behind earlier, larger requests of the run (monitor mon_2)"),
      data: { reason: "queued", ahead: ["monitor mon_2"], holders: ["monitor mon_1"] },
    });
    expect((error as Error).message).not.toMatch(/memory|undefined/);
    expect((error as Error).message).toContain("after 100 ms");
    hold();
    (await large)();
  });

  it("a waiter short of processes says so (control of the queued message)", async () => {
    const budget = new RunResourceBudget();
    const hold = await budget.reserve(share("monitor mon_1", 9), run, 0, never);
    const error = await budget.reserve(share("bash c2", 2), run, 100, never).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      message: expect.stringContaining(
        "processes (9 of the run's 10 are held, this command needs 2), and none ended within 100 ms",
      ),
      data: { reason: "held", limit: "processes", held: 9, needed: 2, runLimit: 10 },
    });
    hold();
  });

  it("waitSeconds past the longest timer Node keeps is refused when the plan is made", () => {
    // setTimeout fires after ~1 ms above 2^31 - 1 ms: a 30-day wait was no wait.
    expect(() => runBudgetPlan({ maxProcesses: 10 }, { waitSeconds: 30 * 24 * 3600 })).toThrow(
      /waitSeconds must be from 0 to 2147483/,
    );
    expect(runBudgetPlan({ maxProcesses: 10 }, { waitSeconds: 2_147_483 })?.waitMs).toBe(2_147_483_000);
    expect(runBudgetPlan({ maxProcesses: 10 }, { waitSeconds: 0.25 })?.waitMs).toBe(250);
  });

  it("a run total for a limit that is off per command is refused; so is a bad limit with the totals off", () => {
    expect(() => runBudgetPlan({ maxProcesses: false }, { maxProcesses: 32 })).toThrow(
      /runLimits.maxProcesses \(32\) needs a per-command limits.maxProcesses/,
    );
    expect(() => runBudgetPlan({ maxProcesses: 0 }, false)).toThrow(/limits.maxProcesses must be an integer of at least 1/);
    // Controls: the limit off with no total asked for, or the total off too, or a valid limit.
    expect(runBudgetPlan({ maxProcesses: false, maxMemoryBytes: false }, undefined)).toBeUndefined();
    expect(runBudgetPlan({ maxProcesses: false }, { maxProcesses: false })?.run.maxProcesses).toBeUndefined();
    expect(runBudgetPlan({ maxProcesses: 16 }, false)).toBeUndefined();
  });

  it("a holder granted before a smaller total was declared is named as above the run's total", async () => {
    const budget = new RunResourceBudget();
    // A monitor left at the defaults starts first, under its own 8,192 total.
    const monitor = await budget.reserve(
      { ...share("monitor mon_1", 1024), tool: "monitor" },
      { maxProcesses: 8192, maxMemoryBytes: undefined },
      0,
      never,
    );
    const error = await budget
      .reserve({ ...share("bash call_1", 16), tool: "bash" }, { maxProcesses: 128, maxMemoryBytes: undefined }, 50, never)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      message: expect.stringContaining(
        "monitor mon_1 alone holds more than the run's whole total (128, runLimits.maxProcesses of bash)",
      ),
      data: { reason: "held", aboveRunTotal: ["monitor mon_1"] },
    });
    monitor();
    // Control: once it has ended, bash gets in, and a monitor at bash's limits is not named.
    const small = await budget.reserve(
      { ...share("monitor mon_2", 120), tool: "monitor" },
      { maxProcesses: 128, maxMemoryBytes: undefined },
      0,
      never,
    );
    const refused = await budget
      .reserve({ ...share("bash call_2", 16), tool: "bash" }, { maxProcesses: 128, maxMemoryBytes: undefined }, 10, never)
      .catch((caught: unknown) => caught);
    expect((refused as Error).message).not.toContain("alone hold");
    expect((refused as { data: object }).data).not.toHaveProperty("aboveRunTotal");
    small();
  });
});

describe("RunResourceBudget of a child run", () => {
  const family = () => {
    const lifetimes = { top: new AbortController(), middle: new AbortController() };
    const top = new RunResourceBudget();
    const middle = new RunResourceBudget({ budget: top, lifetime: lifetimes.top.signal });
    const child = (name: string) => ({
      name,
      budget: new RunResourceBudget({ budget: middle, lifetime: lifetimes.middle.signal }),
    });
    return { lifetimes, top, middle, child };
  };

  it("children racing for the last slots of the top run: exactly its total is granted, never more", async () => {
    const { top, child } = family();
    const children = Array.from({ length: 25 }, (_, index) => child(`run_${index}`));
    // 25 children, each asking for 1 of 10 at once with no wait: 10 granted, 15 refused.
    const outcomes = await Promise.allSettled(
      children.map((each) => each.budget.reserveWithAncestors(share("bash call_1", 1), run, 0, never, each.name)),
    );
    const granted = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    expect(granted).toHaveLength(10);
    expect(top.held().processes).toBe(10);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "run_limit_reached" });
    }
    // Each refused child gave back what it had taken on the way (its own and the middle run's share).
    for (const [index, each] of children.entries()) {
      expect(each.budget.held().processes).toBe(outcomes[index]?.status === "fulfilled" ? 1 : 0);
    }
    for (const grant of granted) grant.release();
    expect(top.held().processes).toBe(0);
    // Control: with the slots back, a child gets one at once.
    const first = children[0] as (typeof children)[number];
    const again = await first.budget.reserveWithAncestors(share("bash call_2", 1), run, 0, never, "run_0");
    expect(top.holders().map((each) => each.childRun)).toEqual(["run_0"]);
    again.release();
  });

  it("a child's own total is a further cap below its parent's", async () => {
    const { top, child } = family();
    const { budget } = child("run_a");
    const small = { maxProcesses: 4, maxMemoryBytes: undefined };
    const grant = await budget.reserveWithAncestors(share("bash call_1", 4), small, 0, never, "run_a");
    await expect(budget.reserveWithAncestors(share("bash call_2", 1), small, 0, never, "run_a")).rejects.toMatchObject({
      code: "run_limit_reached",
      message: expect.stringContaining("the run's commands already hold"),
    });
    // The parent had room: the refusal was the child's own total.
    expect(top.held().processes).toBe(4);
    grant.release();
  });

  it("a child's totals stand in for a parent that declared none, until the parent's own tools declare theirs", async () => {
    const { top, middle, child } = family();
    const { budget } = child("run_a");
    const small = { maxProcesses: 4, maxMemoryBytes: undefined };
    const grant = await budget.reserveWithAncestors(share("bash call_1", 4), small, 0, never, "run_a");
    expect(top.runTotals().maxProcesses).toBe(4);
    // The top run's own bash, with a total of 10, replaces the child's 4 (larger or not)...
    const own = await top.reserveWithAncestors(share("bash call_2", 6), run, 0, never, "top");
    expect(top.runTotals().maxProcesses).toBe(10);
    expect(top.held().processes).toBe(10);
    // ...and a child's smaller total does not lower it again (its share still counts).
    grant.release();
    const other = child("run_b").budget;
    const tight = await other.reserveWithAncestors(
      share("bash call_3", 2),
      { maxProcesses: 2, maxMemoryBytes: undefined },
      0,
      never,
      "run_b",
    );
    expect(top.runTotals().maxProcesses).toBe(10);
    expect(top.held().processes).toBe(8);
    // The middle run declared nothing of its own: its stand-in is the largest its children declared.
    expect(middle.runTotals().maxProcesses).toBe(4);
    tight.release();
    own.release();
  });

  it("a tightly configured child does not bind its siblings: a parent with no totals of its own takes the largest a child declared", async () => {
    const { top, child } = family();
    const tight = child("run_a").budget;
    const wide = child("run_b").budget;
    const two = { maxProcesses: 2, maxMemoryBytes: undefined };
    const sixtyFour = { maxProcesses: 64, maxMemoryBytes: undefined };
    // run_a: runLimits 2 (1 per command); run_b: runLimits 64 (16 per command).
    const a = await tight.reserveWithAncestors(share("bash call_1", 1), two, 0, never, "run_a");
    const b = await wide.reserveWithAncestors(share("bash call_2", 16), sixtyFour, 0, never, "run_b");
    expect(top.runTotals().maxProcesses).toBe(64);
    // A tight child declaring later does not lower it again.
    const a2 = await tight.reserveWithAncestors(share("bash call_3", 1), two, 0, never, "run_a");
    expect(top.runTotals().maxProcesses).toBe(64);
    // Denial: the children together still stay within that total (64 - 18 = 46 left, so two more
    // commands of 16 fit, a third waits and fails), and the tight child's own total still caps it.
    const more = [
      await wide.reserveWithAncestors(share("bash call_4", 16), sixtyFour, 0, never, "run_b"),
      await wide.reserveWithAncestors(share("bash call_5", 16), sixtyFour, 0, never, "run_b"),
    ];
    const c = child("run_c").budget;
    await expect(c.reserveWithAncestors(share("bash call_6", 16), sixtyFour, 0, never, "run_c")).rejects.toMatchObject({
      code: "run_limit_reached",
      data: { reason: "held", held: 50, runLimit: 64 },
    });
    await expect(tight.reserveWithAncestors(share("bash call_7", 1), two, 0, never, "run_a")).rejects.toMatchObject({
      code: "run_limit_reached",
      message: expect.stringContaining("the run's commands already hold"),
    });
    for (const each of [a, b, a2, ...more]) each.release();
    expect(top.held().processes).toBe(0);
  });

  it("a grant is never handed back revoked: an ancestor closed between a grant and the next reservation", async () => {
    // Three levels: the grandchild waits in the middle run's budget, then goes on to the top's.
    const attempt = async (closeTop: boolean) => {
      const { lifetimes, top, middle, child } = family();
      const { budget } = child("run_g");
      const full = { maxProcesses: 4, maxMemoryBytes: undefined };
      const holder = await middle.reserveWithAncestors(share("bash call_1", 4), full, 0, never, "run_m");
      const pending = budget.reserveWithAncestors(share("monitor mon_1", 4), full, 1000, never, "run_g");
      await new Promise((resolve) => setTimeout(resolve, 10));
      // The middle run's slot comes back (the grandchild is granted there, its continuation
      // queued) and the top run closes in the same turn.
      holder.release();
      if (closeTop) lifetimes.top.abort(new Error("closed"));
      const outcome = await pending.then(
        (grant) => ({ revoked: grant.revoked.aborted, held: top.held().processes, grant }),
        (error: { code: string }) => ({ code: error.code, held: top.held().processes, middleHeld: middle.held().processes }),
      );
      return outcome;
    };
    // Refused with run_closed, holding nothing, rather than granted with the revocation already fired
    // (a monitor adding its abort listener then would never stop its process).
    expect(await attempt(true)).toEqual({ code: "run_closed", held: 0, middleHeld: 0 });
    // Control: with the top run open, the same reservation is granted and not revoked.
    const granted = await attempt(false);
    expect(granted).toMatchObject({ revoked: false, held: 4 });
    if ("grant" in granted) granted.grant.release();
  });

  it("closing an ancestor revokes its children's grants and refuses their next ones", async () => {
    const { lifetimes, top, child } = family();
    const { budget } = child("run_a");
    const grant = await budget.reserveWithAncestors(share("monitor mon_1", 10), run, 0, never, "run_a");
    const waiting = budget.reserveWithAncestors(share("bash call_2", 1), run, 60_000, never, "run_a");
    expect(grant.revoked.aborted).toBe(false);
    lifetimes.middle.abort(new Error("closed"));
    expect(grant.revoked.aborted).toBe(true);
    expect(grant.revoked.reason).toMatchObject({ code: "run_closed" });
    // The waiting one ends at once, not after its minute.
    await expect(waiting).rejects.toMatchObject({ code: "run_closed" });
    grant.release();
    expect(top.held().processes).toBe(0);
    await expect(budget.reserveWithAncestors(share("bash call_3", 1), run, 0, never, "run_a")).rejects.toMatchObject({
      code: "run_closed",
    });
    // Control: the top run itself still grants.
    const own = await top.reserveWithAncestors(share("bash call_4", 10), run, 0, never, "top");
    expect(own.revoked.aborted).toBe(false);
    own.release();
  });
});
