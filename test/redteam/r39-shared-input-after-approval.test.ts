/**
 * Red team round 39: what the run hands out about a call (the approval request's `input`, in
 * `approval.requested`, `approval.resolved` and `broker.pending()`, and the `tool.called` event's
 * `input`) was the very object the handler then ran with. A host that masks a secret field in
 * place for its log, or an approver page that rewrites what it shows, changed the call after a
 * person approved it: the handler (or the MCP server) got `prod` where the person was shown and
 * approved `staging`, and `argumentsDigest` of what was shown still matched at decide time.
 */
import { createRegistry, defineTool, InMemoryApprovalBroker } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { callThroughPolicy, recordingDeployTool } from "../support/recording-deploy-tool.js";

type Input = { target: string; options: { force: boolean; tags: string[] } };

function setup(approval: "destructive" | "none") {
  const broker = new InMemoryApprovalBroker();
  const ran: unknown[] = [];
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys.",
    mutating: true,
    inputSchema: {
      type: "object",
      properties: {
        target: { type: "string" },
        options: {
          type: "object",
          properties: { force: { type: "boolean" }, tags: { type: "array", items: { type: "string" } } },
        },
      },
      required: ["target", "options"],
    },
    handler: (input: Input) => {
      ran.push(structuredClone(input));
      return "deployed";
    },
  });
  const registry = createRegistry({ tools: [deploy], approvals: broker });
  const run = registry.createRun({ permissions: { approval } });
  return { broker, registry, run, ran };
}

const asked: Input = { target: "staging", options: { force: false, tags: ["a"] } };

/**
 * What a careless listener does to the input it is handed: rewrites it in place, at every level.
 * Since round 44 what approvers and listeners get is frozen, so each step throws a TypeError in
 * strict code (a listener's error; the call goes on): tolerated here so each step is tried.
 */
function rewrite(input: unknown): void {
  const value = input as Input;
  const steps = [
    () => {
      value.target = "prod";
    },
    () => {
      value.options.force = true;
    },
    () => value.options.tags.push("injected"),
  ];
  for (const step of steps) {
    try {
      step();
    } catch {
      // Frozen (round 44).
    }
  }
}

describe("the input handed to approvers and listeners is not the one the handler runs with", () => {
  it("rewritten in approval.requested, then approved: the handler gets what was shown", async () => {
    const { broker, run, ran } = setup("destructive");
    const shown: unknown[] = [];
    broker.events.on("approval.requested", (request) => {
      shown.push(structuredClone(request.input));
      rewrite(request.input);
      broker.approve(request.id);
    });
    const result = await run.call("deploy", structuredClone(asked));
    expect(result.ok).toBe(true);
    expect(shown).toEqual([asked]);
    expect(ran).toEqual([asked]);
  });

  it("rewritten through broker.pending() before approving with the shown digest", async () => {
    const { broker, run, ran } = setup("destructive");
    const { approvalArgumentsDigest } = await import("agent-tool-catalog");
    const calling = run.call("deploy", structuredClone(asked));
    await expect.poll(() => broker.pending().length).toBe(1);
    const request = broker.pending()[0] as NonNullable<ReturnType<typeof broker.pending>[0]>;
    const digest = approvalArgumentsDigest(request);
    rewrite(request.input);
    // Round 44: the broker's request is frozen, so the rewrite did not land and what was shown
    // is still what the broker holds (before, the shown digest no longer matched).
    expect(request.input).toEqual(asked);
    expect(broker.decide(request.id, "approved", { argumentsDigest: digest })).toEqual({ ok: true });
    expect((await calling).ok).toBe(true);
    expect(ran).toEqual([asked]);
  });

  it("rewritten in approval.resolved (a log masking fields): the handler gets what was approved", async () => {
    const { broker, run, ran } = setup("destructive");
    broker.events.on("approval.requested", (request) => void broker.approve(request.id));
    broker.events.on("approval.resolved", ({ request }) => rewrite(request.input));
    expect((await run.call("deploy", structuredClone(asked))).ok).toBe(true);
    expect(ran).toEqual([asked]);
  });

  it("rewritten in tool.called (run and registry events), with and without approval", async () => {
    for (const approval of ["none", "destructive"] as const) {
      for (const where of ["run", "registry"] as const) {
        const { broker, registry, run, ran } = setup(approval);
        broker.events.on("approval.requested", (request) => void broker.approve(request.id));
        (where === "run" ? run.events : registry.events).on("tool.called", ({ input }) => rewrite(input));
        expect((await run.call("deploy", structuredClone(asked))).ok).toBe(true);
        expect(ran).toEqual([asked]);
      }
    }
  });

  it("control: a `__proto__` key and 5,000 levels of nesting reach the handler as sent", async () => {
    const got: unknown[] = [];
    const tool = defineTool({
      name: "keep",
      description: "Keeps.",
      mutating: true,
      inputSchema: { type: "object" },
      handler: (input: unknown) => {
        got.push(input);
        return "kept";
      },
    });
    const broker = new InMemoryApprovalBroker();
    broker.events.on("approval.requested", (request) => void broker.approve(request.id));
    const run = createRegistry({ tools: [tool], approvals: broker }).createRun({ permissions: { approval: "destructive" } });
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const text = `{"__proto__":{"polluted":true},"deep":${deep},"list":[1,[2,[3]]]}`;
    expect((await run.call("keep", text)).ok).toBe(true);
    expect(Object.hasOwn(got[0] as object, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    // Walked, not stringified: the test worker's stack is smaller than the run's.
    let level = (got[0] as { deep: unknown }).deep;
    let depth = 0;
    for (; typeof level === "object" && level !== null; depth++) level = (level as { a: unknown }).a;
    expect([depth, level]).toEqual([5000, 1]);
    expect((got[0] as { list: unknown }).list).toEqual([1, [2, [3]]]);
    expect(Object.getOwnPropertyDescriptor(got[0], "__proto__")?.value).toEqual({ polluted: true });
  });

  it("control: a handler still gets values a zod schema builds (a Date, a Map, a class), and may change its own input", async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const got: unknown[] = [];
    const tool = defineTool({
      name: "build",
      description: "Builds.",
      mutating: true,
      inputSchema: z.object({
        when: z.string().transform((text) => new Date(text)),
        map: z.record(z.string(), z.number()).transform((record) => new Map(Object.entries(record))),
        point: z.object({ x: z.number(), y: z.number() }).transform(({ x, y }) => new Point(x, y)),
        list: z.array(z.number()),
      }),
      handler: (input) => {
        got.push(input.when instanceof Date, input.map instanceof Map && input.map.get("k"), input.point instanceof Point);
        input.list.push(99);
        return input.list;
      },
    });
    const broker = new InMemoryApprovalBroker();
    broker.events.on("approval.requested", (request) => void broker.approve(request.id));
    const run = createRegistry({ tools: [tool], approvals: broker }).createRun({ permissions: { approval: "destructive" } });
    const result = await run.call("build", { when: "2026-01-02T00:00:00.000Z", map: { k: 7 }, point: { x: 1, y: 2 }, list: [1] });
    expect(result).toMatchObject({ ok: true, output: [1, 99] });
    expect(got).toEqual([true, 7, true]);
  });
});

describe("applyPolicy (a handler called outside a run) keeps its own input too", () => {
  it("rewritten in approval.requested, then approved: the wrapped handler gets what was shown", async () => {
    const broker = new InMemoryApprovalBroker();
    const ran: unknown[] = [];
    const tool = recordingDeployTool(ran);
    broker.events.on("approval.requested", (request) => {
      rewrite(request.input);
      broker.approve(request.id);
    });
    expect(await callThroughPolicy(tool, broker, asked)).toBe("deployed");
    expect(ran).toEqual([asked]);
  });
});
