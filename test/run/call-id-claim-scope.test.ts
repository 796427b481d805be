/**
 * Review of the call-id claim (stop 39): a tool passing its own call id to a nested call was
 * refused `duplicate_call_id` only when the run had a store; a call answered (aborted, run closed)
 * while its handler went on gave up its claim, so a second process ran the same call beside it;
 * ids derived from a long host id (toolbox's `<id>/<tool>`) went over the 512 limit and the model
 * got `invalid_call_id`. Each fails on the old code.
 */
import { createRegistry, defineTool, InMemoryRunStore, type ToolCallResult } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_CALL_ID_LENGTH } from "../../src/tool/call-id-limit.js";
import { childCallId } from "../../src/tool/child-call-id.js";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

describe("a nested call under the caller's own id", () => {
  function registry() {
    return createRegistry({
      tools: [
        defineTool({ name: "inner", description: "Inner.", inputSchema: z.object({}), handler: () => "inner ran" }),
        defineTool({
          name: "outer",
          description: "Outer.",
          inputSchema: z.object({}),
          handler: async (_, context) => {
            const result = await context.catalog.call("inner", {}, { callId: context.callId });
            return result.ok ? String(result.output) : `inner failed: ${result.error.code}`;
          },
        }),
      ],
    });
  }

  it("runs with a store as without one", async () => {
    const tools = registry();
    for (const store of [undefined, new InMemoryRunStore()]) {
      const run = tools.createRun(store === undefined ? {} : { store });
      run.activate(["inner", "outer"]);
      const result = await run.call("outer", {}, { callId: "toolu_1" });
      expect(result.ok && result.output).toBe("inner ran");
    }
  });

  it("control: another copy of the run (another process) is still refused while the call runs", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tools = createRegistry({
      tools: [
        defineTool({
          name: "slow",
          description: "Slow.",
          inputSchema: z.object({}),
          handler: async (_, context) => {
            await gate;
            const nested = await context.catalog.call("slow_inner", {}, { callId: context.callId });
            return code(nested);
          },
        }),
        defineTool({ name: "slow_inner", description: "Inner.", inputSchema: z.object({}), handler: () => "x" }),
      ],
    });
    const store = new InMemoryRunStore();
    const one = tools.createRun({ runId: "conv", store });
    const two = tools.createRun({ runId: "conv", store });
    one.activate(["slow", "slow_inner"]);
    two.activate(["slow", "slow_inner"]);
    const first = one.call("slow", {}, { callId: "toolu_1" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(code(await two.call("slow_inner", {}, { callId: "toolu_1" }))).toBe("duplicate_call_id");
    release();
    const done = await first;
    expect(done.ok && done.output).toBe("ok");
    // Free again once the call (and its nested call) ended: the shared claim was released once.
    expect(code(await two.call("slow_inner", {}, { callId: "toolu_1" }))).toBe("ok");
  });
});

describe("a call answered while its handler goes on", () => {
  function tools(state: { running: number; max: number; finish: () => void }) {
    return createRegistry({
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys.",
          inputSchema: z.object({}),
          // Ignores its abort signal.
          handler: async () => {
            state.running++;
            state.max = Math.max(state.max, state.running);
            await new Promise<void>((resolve) => {
              state.finish = resolve;
            });
            state.running--;
            return "deployed";
          },
        }),
      ],
    });
  }

  it("the caller's abort: the id stays claimed until the handler settles, then is free", async () => {
    const state = { running: 0, max: 0, finish: () => undefined };
    const registry = tools(state);
    const store = new InMemoryRunStore();
    const first = await registry
      .createRun({ runId: "conv", store })
      .call("deploy", {}, { callId: "toolu_1", signal: AbortSignal.timeout(50) });
    expect(code(first)).toBe("aborted");
    expect(state.running).toBe(1);
    const second = await registry.createRun({ runId: "conv", store }).call("deploy", {}, { callId: "toolu_1" });
    expect(code(second)).toBe("duplicate_call_id");
    expect(state.max).toBe(1);
    state.finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Control: once the handler settled, the id is free (the claim covers overlapping calls only).
    const third = registry.createRun({ runId: "conv", store }).call("deploy", {}, { callId: "toolu_1" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.running).toBe(1);
    state.finish();
    expect(code(await third)).toBe("ok");
  });

  it("run.close: the same", async () => {
    const state = { running: 0, max: 0, finish: () => undefined };
    const registry = tools(state);
    const store = new InMemoryRunStore();
    const one = registry.createRun({ runId: "conv", store });
    const first = one.call("deploy", {}, { callId: "call_0" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await one.close();
    expect(code(await first)).toBe("aborted");
    const second = await registry.createRun({ runId: "conv", store }).call("deploy", {}, { callId: "call_0" });
    expect(code(second)).toBe("duplicate_call_id");
    state.finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = registry.createRun({ runId: "conv", store }).call("deploy", {}, { callId: "call_0" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    state.finish();
    expect(code(await third)).toBe("ok");
  });
});

describe("a call answered while its preflight or a thenable handler goes on (round 19)", () => {
  function registry(state: { preflights: number; handlers: number; finish: () => void }, thenable: boolean) {
    const wait = () =>
      new Promise<void>((resolve) => {
        state.finish = resolve;
      });
    return createRegistry({
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys.",
          inputSchema: z.object({}),
          // Ignores its abort signal, like the handler below.
          ...(thenable
            ? {}
            : {
                preflight: async () => {
                  state.preflights++;
                  await wait();
                },
              }),
          handler: () => {
            state.handlers++;
            if (!thenable) return "deployed";
            // Not a native promise: a thenable the run follows itself.
            const settled = wait().then(() => "deployed");
            return {
              // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a promise is the point.
              then: (ok: (value: unknown) => void, no: (error: unknown) => void) => settled.then(ok, no),
            };
          },
        }),
      ],
    });
  }

  for (const thenable of [false, true]) {
    const what = thenable ? "a handler returning a thenable" : "a preflight";
    it(`${what} ignoring the abort keeps the id claimed until it settles, then frees it`, async () => {
      const state = { preflights: 0, handlers: 0, finish: () => undefined };
      const tools = registry(state, thenable);
      const store = new InMemoryRunStore();
      const first = await tools
        .createRun({ runId: "conv", store })
        .call("deploy", {}, { callId: "toolu_1", signal: AbortSignal.timeout(50) });
      expect(code(first)).toBe("aborted");
      // Bounded: on the old code this second call ran (and waited like the first).
      const second = await tools
        .createRun({ runId: "conv", store })
        .call("deploy", {}, { callId: "toolu_1", signal: AbortSignal.timeout(500) });
      expect(code(second)).toBe("duplicate_call_id");
      expect(thenable ? state.handlers : state.preflights).toBe(1);
      state.finish();
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Control: once it settled, the id is free.
      const third = tools.createRun({ runId: "conv", store }).call("deploy", {}, { callId: "toolu_1" });
      await new Promise((resolve) => setTimeout(resolve, 20));
      state.finish();
      expect(code(await third)).toBe("ok");
    });
  }
});

describe("ids derived from a long host id", () => {
  const builtin = (name: string) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      tags: ["builtin"],
      inputSchema: z.object({ x: z.string().optional() }),
      handler: ({ x }) => `${name}:${x ?? ""}`,
    });

  it("toolbox under a 510-character id runs the listed tool", async () => {
    const registry = createRegistry({
      tools: ["read", "write", "edit", "apply_patch", "bash", "ls", "grep", "todo"].map(builtin),
    });
    const run = registry.createRun({ environment: {}, store: new InMemoryRunStore() });
    const callId = "c".repeat(510);
    const viaBox = await run.call("toolbox", { action: "run", tool: "todo", args: { x: "1" } }, { callId });
    expect(JSON.stringify(viaBox)).toContain("todo:1");
    expect(code(viaBox)).toBe("ok");
    // Control: the limit still holds for the host's own ids.
    expect(code(await run.call("read", { x: "1" }, { callId: "c".repeat(513) }))).toBe("invalid_call_id");
  });
});

describe("childCallId", () => {
  it("keeps short ids as they were, bounds long ones, and keeps distinct parents distinct", () => {
    expect(childCallId("toolu_1", "read")).toBe("toolu_1/read");
    const a = childCallId(`${"p".repeat(600)}a`, "step-1");
    const b = childCallId(`${"p".repeat(600)}b`, "step-1");
    expect(a.length).toBeLessThanOrEqual(MAX_CALL_ID_LENGTH);
    expect(a.endsWith("/step-1")).toBe(true);
    expect(a).not.toBe(b);
    expect(childCallId("x".repeat(512), "t".repeat(64)).length).toBeLessThanOrEqual(MAX_CALL_ID_LENGTH);
  });
});
