/**
 * Red team round 19: hostile values from tool handlers and host hooks. The README promises that
 * `run.call` never rejects and never hangs on odd values: every outcome is a `ToolCallResult`.
 * Attacked here: handler outputs JSON cannot hold (a top-level symbol or function, a Proxy whose
 * traps throw, a revoked Proxy, a `toJSON` returning itself, a string just over the output limit,
 * arrays nested a million deep, a sparse array of length 2^32 - 1), hostile thenables (a `then`
 * that throws synchronously, one calling both resolve and reject), a promise that never settles
 * with the call's signal fired; approval brokers that throw synchronously, answer with a
 * non-resolution (`1`, `"yes"`, `null`) or with a thenable that never settles; event listeners that
 * throw; output schemas whose validator throws, never settles or answers nonsense; and the same
 * through the adapters. Each case checks the structured code, that no unhandled rejection or
 * uncaught exception fired, and that the run serves a normal call next (the positive control).
 */

import { runInNewContext } from "node:vm";
import { type ApprovalBroker, createRegistry, defineTool, EventBus, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cpuMsSince } from "../support/cpu-time.js";
import { failOnStrayErrors } from "../support/stray-errors.js";

const MAX_OUTPUT_CHARS = 8 * 1024 * 1024;
const TRUNCATED = "[... output truncated: over its size limit ...]";

failOnStrayErrors();

function deepArray(levels: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

function throwingProxy(): object {
  const fail = () => {
    throw new Error("trap boom");
  };
  return new Proxy(
    {},
    { get: fail, has: fail, ownKeys: fail, getOwnPropertyDescriptor: fail, getPrototypeOf: fail, apply: fail },
  );
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

interface Self {
  toJSON(): Self;
}

const OUTPUTS: Record<string, () => unknown> = {
  cyclic: () => {
    const self: { self?: unknown } = {};
    self.self = self;
    return self;
  },
  bigint: () => 12345678901234567890n,
  symbol: () => Symbol("s"),
  func: () => () => 1,
  throwing_proxy: () => throwingProxy(),
  nested_throwing_proxy: () => ({ kept: 1, inner: throwingProxy() }),
  revoked_proxy: () => revokedProxy(),
  nested_revoked_proxy: () => ({ kept: 1, inner: revokedProxy() }),
  to_json_self: () => {
    const value: Self = {
      toJSON() {
        return value;
      },
    };
    return value;
  },
  over_limit_string: () => "x".repeat(MAX_OUTPUT_CHARS + 1),
  over_limit_object_string: () => ({ text: "x".repeat(MAX_OUTPUT_CHARS + 1) }),
  deep_arrays: () => deepArray(1_000_000),
  sparse: () => new Array(2 ** 32 - 1),
  then_throws: () => ({
    // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the test
    then() {
      throw new Error("then boom");
    },
  }),
  resolve_and_reject: () => ({
    // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the test
    then(resolve: (value: unknown) => void, reject: (reason: unknown) => void) {
      resolve("resolved");
      reject(new Error("rejected too"));
    },
  }),
  reject_and_resolve: () => ({
    // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the test
    then(resolve: (value: unknown) => void, reject: (reason: unknown) => void) {
      reject(new Error("rejected first"));
      resolve("resolved late");
    },
  }),
  never: () => new Promise(() => {}),
};

const tools = [
  ...Object.entries(OUTPUTS).map(([name, make]) =>
    defineTool({ name, description: `Returns a hostile ${name}.`, inputSchema: z.object({}), handler: make as () => string }),
  ),
  defineTool({ name: "echo", description: "Echoes.", inputSchema: z.object({}), handler: () => "still here" }),
];

function runOf(options: Parameters<ReturnType<typeof createRegistry>["createRun"]>[0] = {}): Run {
  const run = createRegistry({ tools }).createRun(options);
  run.activate([...Object.keys(OUTPUTS), "echo"]);
  return run;
}

/** The call's result, or "hung" after 20 s. */
async function within(call: Promise<ToolCallResult>, ms = 20_000): Promise<ToolCallResult | "hung"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), ms);
  });
  return Promise.race([call, hung]).finally(() => clearTimeout(timer));
}

async function stillServes(run: Run): Promise<void> {
  expect(await within(run.call("echo", {}))).toMatchObject({ ok: true, output: "still here" });
}

describe("hostile handler values through run.call", () => {
  it.each([
    ["cyclic", { ok: true, output: { self: "[Circular]" } }],
    ["bigint", { ok: true, output: "12345678901234567890" }],
    ["symbol", { ok: false, error: { code: "invalid_output" } }],
    ["func", { ok: false, error: { code: "invalid_output" } }],
    // Resolving the handler's promise with it reads its `then`, which throws: the handler failed.
    ["revoked_proxy", { ok: false, error: { code: "tool_failed" } }],
    ["nested_revoked_proxy", { ok: true, output: { kept: 1, inner: "[Unserializable]" } }],
    ["nested_throwing_proxy", { ok: true, output: { kept: 1, inner: "[Unserializable]" } }],
    ["to_json_self", { ok: true, output: "[Circular]" }],
    ["then_throws", { ok: false, error: { code: "tool_failed" } }],
    ["resolve_and_reject", { ok: true, output: "resolved" }],
    ["reject_and_resolve", { ok: false, error: { code: "tool_failed" } }],
  ])("%s: a structured result, and the run goes on", async (name, expected) => {
    const run = runOf();
    expect(await within(run.call(name, {}))).toMatchObject(expected);
    await stillServes(run);
  });

  it("a Proxy whose every trap throws: a structured result (not a rejection), and the run goes on", async () => {
    const run = runOf();
    const result = await within(run.call("throwing_proxy", {}));
    expect(result).not.toBe("hung");
    const outcome = result as ToolCallResult;
    // Its `get` trap throws on `then`, as the handler's promise resolves with it: the handler failed.
    expect(outcome).toMatchObject({ ok: false, error: { code: "tool_failed" } });
    await stillServes(run);
  });

  it("a string just over the output limit is cut at 8 Mi characters with the marker (with condensing off)", async () => {
    const run = runOf({ condenseThreshold: Number.MAX_SAFE_INTEGER });
    for (const name of ["over_limit_string", "over_limit_object_string"]) {
      const result = (await within(run.call(name, {}))) as ToolCallResult;
      expect(result.ok).toBe(true);
      const text = JSON.stringify(result.ok ? result.output : undefined);
      expect(text.length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS + TRUNCATED.length + 32);
      expect(text).toContain(TRUNCATED);
    }
    await stillServes(run);
  }, 30_000);

  it("arrays nested a million deep and a sparse array of length 2^32 - 1 are cut, fast", async () => {
    const run = runOf();
    // CPU, not wall time (which at load 10-20 on 2 cores measures the machine); `within` guards a hang.
    const started = process.cpuUsage();
    const deep = (await within(run.call("deep_arrays", {}))) as ToolCallResult;
    expect(deep).toMatchObject({ ok: true });
    expect(JSON.stringify(deep.ok ? deep.output : undefined)).toContain("[Too deep]");
    const sparse = (await within(run.call("sparse", {}))) as ToolCallResult;
    expect(sparse).toMatchObject({ ok: true });
    const output = sparse.ok ? (sparse.output as unknown) : undefined;
    expect(typeof output === "string" || Array.isArray(output)).toBe(true);
    expect(JSON.stringify(output).length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS + 64);
    const cpuMs = cpuMsSince(started);
    if (process.env.ATC_WALL_TO_CPU) console.log(`deep and sparse: ${Math.round(cpuMs)} ms CPU`);
    expect(cpuMs, "CPU ms").toBeLessThan(5_000);
    await stillServes(run);
  }, 30_000);

  it("a promise that never settles: aborted when the call's signal fires, and the run goes on", async () => {
    const run = runOf();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    expect(await within(run.call("never", {}, { signal: controller.signal }))).toMatchObject({
      ok: false,
      error: { code: "aborted" },
    });
    const timed = await within(run.call("never", {}, { signal: AbortSignal.timeout(30) }));
    expect(timed).toMatchObject({ ok: false });
    expect(["aborted", "timeout"]).toContain((timed as Extract<ToolCallResult, { ok: false }>).error.code);
    await stillServes(run);
  });
});

const act = defineTool({
  name: "act",
  description: "Does something that needs approval.",
  mutating: true,
  inputSchema: z.object({}),
  handler: () => "acted",
});

// biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the test
const neverThenable = () => ({ then() {} });

function brokerOf(request: (...args: Parameters<ApprovalBroker["request"]>) => unknown): ApprovalBroker {
  return {
    events: new EventBus(),
    request: request as ApprovalBroker["request"],
    approve: () => false,
    deny: () => false,
    pending: () => [],
  };
}

function approvalRun(broker: ApprovalBroker, approvalTimeoutMs?: number): Run {
  const registry = createRegistry({ tools: [act, ...tools], approvals: broker });
  return registry.createRun({
    permissions: { sandbox: "unrestricted", approval: "destructive" },
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
  });
}

describe("hostile approval brokers", () => {
  it("a broker whose request throws synchronously: approval_denied, the tool not run; the run goes on", async () => {
    const run = approvalRun(
      brokerOf(() => {
        throw new Error("broker boom");
      }),
    );
    run.activate(["echo"]);
    expect(await within(run.call("act", {}))).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    await stillServes(run);
  });

  it.each([
    ["1", 1],
    ['"yes"', "yes"],
    ["null", null],
    ["true", true],
    ["undefined", undefined],
    ["{ decision: 'yes' }", { id: "x", decision: "yes", reason: undefined, resolvedBy: "host" }],
  ])("a broker answering %s: never approved, a structured refusal; the run goes on", async (_label, answer) => {
    const run = approvalRun(brokerOf(async () => answer));
    run.activate(["echo"]);
    const result = await within(run.call("act", {}));
    expect(result).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    await stillServes(run);
  });

  it("positive control: a broker that approves is obeyed", async () => {
    const run = approvalRun(brokerOf(async () => ({ id: "a", decision: "approved", reason: undefined, resolvedBy: "host" })));
    expect(await within(run.call("act", {}))).toMatchObject({ ok: true, output: "acted" });
  });

  it("a broker answering a thenable that never settles: approval_denied at approvalTimeoutMs, aborted on the signal", async () => {
    const run = approvalRun(brokerOf(neverThenable), 50);
    run.activate(["echo"]);
    expect(await within(run.call("act", {}))).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    const slow = approvalRun(brokerOf(neverThenable));
    slow.activate(["echo"]);
    expect(await within(slow.call("act", {}, { signal: AbortSignal.timeout(30) }))).toMatchObject({
      ok: false,
      error: { code: "aborted" },
    });
    await stillServes(run);
    await stillServes(slow);
  });
});

describe("event listeners that throw", () => {
  it("a throwing listener on every call event does not change the result; the run goes on", async () => {
    const registry = createRegistry({ tools });
    const run = registry.createRun();
    run.activate(["echo", "bigint"]);
    const boom = () => {
      throw new Error("listener boom");
    };
    const asyncBoom = async () => {
      throw new Error("async listener boom");
    };
    for (const event of ["tool.called", "tool.result"] as const) {
      run.events.on(event, boom);
      run.events.on(event, asyncBoom);
      registry.events.on(event, boom);
      registry.events.on(event, asyncBoom);
    }
    expect(await within(run.call("bigint", {}))).toMatchObject({ ok: true, output: "12345678901234567890" });
    await stillServes(run);
  });
});

function schemaTool(name: string, validate: (value: unknown) => unknown) {
  return defineTool({
    name,
    description: `Output schema edge ${name}.`,
    inputSchema: z.object({}),
    outputSchema: {
      "~standard": { version: 1, vendor: "hostile", validate, jsonSchema: { input: () => ({ type: "object" }) } },
    } as unknown as z.ZodType<{ n: number }>,
    handler: () => ({ n: 1 }),
  });
}

describe("hostile output schemas", () => {
  const edges = [
    schemaTool("validate_throws", () => {
      throw new Error("validator boom");
    }),
    schemaTool("validate_never", () => new Promise(() => {})),
    schemaTool("validate_nonsense_issues", () => ({ issues: "not a list" })),
    schemaTool("validate_null", () => null),
    schemaTool("validate_issue_getter", () => ({
      get issues(): never {
        throw new Error("issues boom");
      },
    })),
    schemaTool("validate_ok", (value) => ({ value })),
  ];

  it.each([
    ["validate_throws", "invalid_output"],
    ["validate_nonsense_issues", "invalid_output"],
    ["validate_null", "invalid_output"],
    ["validate_issue_getter", "invalid_output"],
  ])("%s: %s; the run goes on", async (name, code) => {
    const run = createRegistry({ tools: [...edges, ...tools] }).createRun();
    run.activate([name, "echo"]);
    expect(await within(run.call(name, {}))).toMatchObject({ ok: false, error: { code } });
    await stillServes(run);
  });

  it("a validator that never settles: aborted on the call's signal; the run goes on", async () => {
    const run = createRegistry({ tools: [...edges, ...tools] }).createRun();
    run.activate(["validate_never", "echo"]);
    expect(await within(run.call("validate_never", {}, { signal: AbortSignal.timeout(50) }))).toMatchObject({
      ok: false,
      error: { code: "aborted" },
    });
    await stillServes(run);
  });

  it("a validator that never settles: run.close() settles the call as aborted", async () => {
    const run = createRegistry({ tools: [...edges, ...tools] }).createRun();
    run.activate(["validate_never"]);
    const call = within(run.call("validate_never", {}));
    setTimeout(() => void run.close(), 50);
    expect(await call).toMatchObject({ ok: false, error: { code: "aborted" } });
  });

  it("positive control: a validator that accepts gives the output", async () => {
    const run = createRegistry({ tools: [...edges, ...tools] }).createRun();
    run.activate(["validate_ok"]);
    expect(await within(run.call("validate_ok", {}))).toMatchObject({ ok: true, output: { n: 1 } });
  });
});

describe("the same hostile handlers through the adapters", () => {
  const NAMES = [
    "symbol",
    "func",
    "revoked_proxy",
    "throwing_proxy",
    "to_json_self",
    "then_throws",
    "reject_and_resolve",
    "deep_arrays",
    "sparse",
    "echo",
  ];

  it("Anthropic: every tool_use gets a tool_result, the last one the echo", async () => {
    const content = NAMES.map((name, index) => ({ type: "tool_use", id: `toolu_${index}`, name, input: {} }));
    const results = await runAnthropicToolUses(runOf(), content);
    expect(results.map((result) => result.tool_use_id)).toEqual(NAMES.map((_, index) => `toolu_${index}`));
    expect(results.at(-1)?.content).toBe("still here");
    expect(results[0]?.is_error).toBe(true);
  }, 60_000);

  it("OpenAI Chat and Responses: every call gets its answer", async () => {
    const run = runOf();
    const chat = await runOpenAIChatToolCalls(
      run,
      NAMES.map((name, index) => ({ id: `c${index}`, type: "function", function: { name, arguments: "{}" } })),
    );
    expect(chat.map((message) => (message as { tool_call_id?: string }).tool_call_id)).toEqual(
      NAMES.map((_, index) => `c${index}`),
    );
    expect(chat.at(-1)?.content).toBe("still here");
    const responses = await runOpenAIResponsesFunctionCalls(
      run,
      NAMES.map((name, index) => ({ type: "function_call", call_id: `r${index}`, name, arguments: "{}" })),
    );
    expect(responses.map((item) => item.call_id)).toEqual(NAMES.map((_, index) => `r${index}`));
    expect(responses.at(-1)?.output).toBe("still here");
  }, 60_000);

  it("AI SDK: execute and toModelOutput never throw for any of them", async () => {
    const { tools: sdkTools } = createAiSdkTools(runOf());
    for (const name of NAMES) {
      const tool = sdkTools[name];
      const output = await tool?.execute?.({}, { toolCallId: name, messages: [] });
      const model = await tool?.toModelOutput?.({ toolCallId: name, input: {}, output });
      expect(JSON.stringify(model)).toBeDefined();
    }
  }, 60_000);
});

describe("a Standard Schema whose validate answers a promise of another realm (not a native Promise)", () => {
  // `vm` promises fail `instanceof Promise` here: the answer was read as a plain result with no
  // `issues`, so a failing check passed (fail open), and the input reached the handler as undefined.
  const foreignRejecting = (value: unknown) =>
    runInNewContext("Promise.resolve({ issues: [{ message: 'not allowed', path: [] }] })", { value });
  const foreignPassing = (value: unknown) => runInNewContext("Promise.resolve({ value })", { value });
  const standard = (validate: (value: unknown) => unknown) =>
    ({
      "~standard": { version: 1, vendor: "realm", validate, jsonSchema: { input: () => ({ type: "object" }) } },
    }) as unknown as z.ZodType<{ n?: number }>;
  const seen: unknown[] = [];
  const realmTools = [
    defineTool({
      name: "foreign_output_refuses",
      description: "Its output schema refuses everything, asynchronously in another realm.",
      inputSchema: z.object({}),
      outputSchema: standard(foreignRejecting),
      handler: () => ({ n: 1 }),
    }),
    defineTool({
      name: "foreign_input_refuses",
      description: "Its input schema refuses everything, asynchronously in another realm.",
      inputSchema: standard(foreignRejecting),
      handler: (input) => {
        seen.push(input);
        return "ran";
      },
    }),
    defineTool({
      name: "foreign_input_passes",
      description: "Its input schema passes everything, asynchronously in another realm.",
      inputSchema: standard(foreignPassing),
      handler: (input) => input,
    }),
  ];

  it("a refusing validator refuses (input: invalid_input, not run; output: invalid_output); a passing one passes", async () => {
    const run = createRegistry({ tools: [...realmTools, ...tools] }).createRun();
    run.activate(["foreign_output_refuses", "foreign_input_refuses", "foreign_input_passes", "echo"]);
    expect(await within(run.call("foreign_output_refuses", {}))).toMatchObject({
      ok: false,
      error: { code: "invalid_output" },
    });
    expect(await within(run.call("foreign_input_refuses", { n: 1 }))).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(seen).toEqual([]);
    expect(await within(run.call("foreign_input_passes", { n: 2 }))).toMatchObject({ ok: true, output: { n: 2 } });
    await stillServes(run);
  });
});
