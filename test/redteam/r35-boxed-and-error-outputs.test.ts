/**
 * Red team round 35: handler outputs whose data lives in an object's internal slots. The README
 * promises the output is made JSON-safe the way `JSON.stringify` prints it, and that values JSON
 * prints as `{}` though they hold data (a `Map`, a `Set`) are given whole. Attacked:
 *
 * - boxed primitives (`new Number(5)`, `new String("ok")`, `new Boolean(false)`, `Object(10n)`):
 *   `JSON.stringify` prints `5`, `"ok"`, `false`; the conversion walked them as objects and the
 *   model was told `{}` (or `{"0":"o","1":"k"}`) (found, fixed);
 * - an `Error` returned (not thrown): `JSON.stringify` prints `{}` for `new Error("disk full")`, so
 *   the model was told nothing (found, fixed: its name, message, own cause and own properties,
 *   never its stack, which names the host's files);
 * - held: a `Uint8Array`, a `Date` and a `RegExp` with own properties, a generator, a getter that
 *   changes between reads, `-0`/`NaN`: each as JSON prints it, the getter read once.
 *
 * Each through `run.call` and the three adapters' loops, with plain outputs as the control.
 */
import { runInNewContext } from "node:vm";
import { createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { type AnthropicToolUseBlock, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls } from "agent-tool-catalog/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function runWith(outputs: Record<string, () => unknown>) {
  registry = createRegistry();
  for (const [name, output] of Object.entries(outputs)) {
    registry.register(defineTool({ name, description: `The ${name} tool.`, inputSchema: z.object({}), handler: output }));
  }
  return registry.createRun();
}

const toolUse = (name: string): AnthropicToolUseBlock => ({ type: "tool_use", id: "toolu_1", name, input: {} });

async function outputOf(output: () => unknown): Promise<unknown> {
  const result = await runWith({ value: output }).call("value", {});
  expect(result.ok).toBe(true);
  return result.ok ? result.output : undefined;
}

describe("boxed primitives", () => {
  it("are given as JSON prints them, at the top and nested, from another realm too", async () => {
    expect(await outputOf(() => new Number(5))).toBe(5);
    expect(await outputOf(() => new String("ok"))).toBe("ok");
    expect(await outputOf(() => new Boolean(false))).toBe(false);
    expect(await outputOf(() => Object(10n))).toBe("10");
    expect(await outputOf(() => ({ a: new String("x"), b: [new Number(7), new Boolean(true)] }))).toEqual({
      a: "x",
      b: [7, true],
    });
    expect(await outputOf(() => runInNewContext("({ n: new Number(3), s: new String('far') })"))).toEqual({ n: 3, s: "far" });
    expect(await outputOf(() => new Number(Number.NaN))).toBe(null);
  });

  it("runs none of the output's own valueOf or toString to unbox", async () => {
    let ran = 0;
    const boxed = Object.assign(new Number(9), {
      valueOf: () => {
        ran++;
        return 1;
      },
      toString: () => {
        ran++;
        return "1";
      },
    });
    expect(await outputOf(() => boxed)).toBe(9);
    expect(ran).toBe(0);
  });

  it("control: a Proxy of one, and a boxed symbol, stay objects, as JSON has them", async () => {
    expect(await outputOf(() => new Proxy(new Number(5), {}))).toEqual({});
    expect(await outputOf(() => Object(Symbol("s")))).toEqual({});
    expect(JSON.stringify(new Proxy(new Number(5), {}))).toBe("{}");
  });
});

describe("an Error returned as the output", () => {
  it("gives its name, message, own cause and own properties, never its stack", async () => {
    const error = Object.assign(new TypeError("disk full"), { code: "ENOSPC", detail: { free: 0 } });
    const output = await outputOf(() => ({ failure: error }));
    expect(output).toEqual({ failure: { name: "TypeError", message: "disk full", code: "ENOSPC", detail: { free: 0 } } });
    expect(JSON.stringify(output)).not.toContain(import.meta.filename);
    const caused = await outputOf(() => new Error("outer", { cause: new RangeError("inner") }));
    expect(caused).toEqual({ name: "Error", message: "outer", cause: { name: "RangeError", message: "inner" } });
    const aggregate = await outputOf(() => new AggregateError([new Error("one")], "many"));
    expect(aggregate).toEqual({ name: "AggregateError", message: "many" });
  });

  it("from another realm, holding itself as its cause, with a throwing name getter: no throw, no loop", async () => {
    expect(await outputOf(() => runInNewContext("new SyntaxError('far away')"))).toEqual({
      name: "SyntaxError",
      message: "far away",
    });
    const self = new Error("me");
    (self as { cause?: unknown }).cause = self;
    expect(await outputOf(() => self)).toEqual({ name: "Error", message: "me", cause: "[Circular]" });
    const hostile = new Error("named");
    Object.defineProperty(hostile, "name", {
      get() {
        throw new Error("name boom");
      },
    });
    expect(await outputOf(() => hostile)).toEqual({ name: "[Unserializable]", message: "named" });
  });

  it("reaches the model through the Anthropic, OpenAI and AI SDK loops", async () => {
    const run = runWith({ fails: () => new Error("disk full") });
    const [anthropic] = await runAnthropicToolUses(run, [toolUse("fails")]);
    expect(JSON.stringify(anthropic?.content)).toContain("disk full");
    const [chat] = await runOpenAIChatToolCalls(run, [
      { id: "c1", type: "function", function: { name: "fails", arguments: "{}" } },
    ]);
    expect(JSON.stringify(chat?.content)).toContain("disk full");
    const { tools } = createAiSdkTools(run);
    const output = await tools.fails?.execute?.({}, { toolCallId: "s1", messages: [] });
    expect(JSON.stringify(output)).toContain("disk full");
  });

  it("control: a plain object with the same fields is unchanged, and thrown errors are still tool errors", async () => {
    expect(await outputOf(() => ({ name: "TypeError", message: "disk full" }))).toEqual({
      name: "TypeError",
      message: "disk full",
    });
    const thrown = await runWith({
      throws: () => {
        throw new Error("thrown");
      },
    }).call("throws", {});
    expect(thrown.ok).toBe(false);
  });
});

describe("held: other values as JSON prints them", () => {
  it("a typed array, a Date and a RegExp with own properties, a generator, -0 and NaN", async () => {
    const cases: Array<() => unknown> = [
      () => new Uint8Array([1, 2, 3]),
      () => Object.assign(new Date(0), { extra: "own" }),
      () => Object.assign(/ab+c/gi, { extra: 1 }),
      () =>
        (function* () {
          yield 1;
        })(),
      () => ({ zero: -0, nan: Number.NaN, inf: Number.POSITIVE_INFINITY }),
    ];
    // The JSON text compared: `-0` stays `-0` in the output object, and JSON prints it `0`.
    for (const make of cases) expect(JSON.stringify(await outputOf(make))).toBe(JSON.stringify(make()));
  });

  it("a getter that changes between reads is read once: the model and the result see one value", async () => {
    let reads = 0;
    const run = runWith({
      changing: () => ({
        get value() {
          return ++reads;
        },
      }),
    });
    const [result] = await runAnthropicToolUses(run, [toolUse("changing")]);
    expect(reads).toBe(1);
    expect(result?.content).toBe('{"value":1}');
  });
});
