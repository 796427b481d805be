/**
 * Red team round 39 (held): arguments a host hands `run.call` as objects that JSON cannot hold,
 * or that lie about themselves (variants not in `arguments-read-once.test.ts`). Each resolves
 * within a second to a structured result, never a rejection: not JSON data is `invalid_input`
 * naming the cause (stop 58; it was `input_too_large`, "larger than the limit or not plain JSON"),
 * an array whose length is over the limit `input_too_large`, and what JSON takes is taken as JSON
 * takes it.
 */
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { cpuMsSince } from "../support/cpu-time.js";

const revoked = (target: object) => {
  const pair = Proxy.revocable(target, {});
  pair.revoke();
  return pair.proxy;
};
const hugeLength = (() => {
  const array: unknown[] = [];
  array.length = 2 ** 32 - 1;
  return array;
})();
const selfJson: { toJSON(): unknown } = {
  toJSON() {
    return selfJson;
  },
};
const sparse: unknown[] = [];
sparse[3] = 1;

/** [label, arguments, expected code or the JSON the handler receives] */
const cases: [string, unknown, { code: string } | { json: string }][] = [
  ["a revoked proxy", revoked({}), { code: "invalid_input" }],
  ["a revoked proxy of an array", revoked([]), { code: "invalid_input" }],
  [
    "a proxy whose ownKeys trap throws",
    new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    ),
    { code: "invalid_input" },
  ],
  [
    "a getter throwing a symbol",
    {
      get x() {
        throw Symbol("s");
      },
    },
    { code: "invalid_input" },
  ],
  [
    "a toJSON getter that throws",
    {
      get toJSON() {
        throw new Error("g");
      },
    },
    { code: "invalid_input" },
  ],
  ["a toJSON returning a BigInt", { a: { toJSON: () => 1n } }, { code: "invalid_input" }],
  ["a toJSON returning its own object", { a: selfJson }, { code: "invalid_input" }],
  // biome-ignore lint/suspicious/noThenProperty: a thenable is the point
  ["a thenable", { then: (resolve: (value: unknown) => void) => resolve({}) }, { code: "invalid_input" }],
  ["a function", () => 1, { code: "invalid_input" }],
  ["an array of length 2^32 - 1", { a: hugeLength }, { code: "input_too_large" }],
  [
    "a value whose valueOf and toString throw",
    {
      a: {
        valueOf: () => {
          throw 1;
        },
        toString: () => {
          throw 2;
        },
      },
    },
    { code: "invalid_input" },
  ],
  ["a sparse array", { a: sparse }, { json: '{"a":[null,null,null,1]}' }],
  ["frozen objects", Object.freeze({ a: Object.freeze([1, 2]) }), { json: '{"a":[1,2]}' }],
  ["-0, NaN and Infinity", { a: -0, b: Number.NaN, c: Number.POSITIVE_INFINITY }, { json: '{"a":0,"b":null,"c":null}' }],
  [
    "prototype-named keys from JSON",
    JSON.parse('{"__proto__":{"p":1},"constructor":1,"toString":2}'),
    { json: '{"__proto__":{"p":1},"constructor":1,"toString":2}' },
  ],
  ["an object without a prototype", Object.assign(Object.create(null), { a: 1 }), { json: '{"a":1}' }],
  [
    "a getter on the prototype only",
    Object.create({
      get a() {
        throw new Error("proto");
      },
    }),
    { json: "{}" },
  ],
  [
    "an arguments object",
    (function (..._: unknown[]) {
      // biome-ignore lint/complexity/noArguments: an arguments object is the point
      return arguments;
    })(1, 2),
    { json: '{"0":1,"1":2}' },
  ],
  ["a symbol key", { [Symbol("k")]: 1, b: 2 }, { json: '{"b":2}' }],
  ["a typed array", { a: new Uint8Array(2) }, { json: '{"a":{"0":0,"1":0}}' }],
];

describe("odd argument objects resolve to structured results", () => {
  it.each(cases)("%s", async (_label, args, expected) => {
    let got: unknown;
    const echo = defineTool({
      name: "echo",
      description: "Echoes.",
      inputSchema: { type: "object", additionalProperties: true },
      handler: (input: unknown) => {
        got = input;
        return "ok";
      },
    });
    const run = createRegistry({ tools: [echo] }).createRun();
    // CPU, not wall time (which at load 10-20 on 2 cores measures the machine).
    const started = process.cpuUsage();
    const result: ToolCallResult = await run.call("echo", args);
    const cpuMs = cpuMsSince(started);
    if (process.env.ATC_WALL_TO_CPU) console.log(`${_label}: ${Math.round(cpuMs)} ms CPU`);
    expect(cpuMs, "CPU ms").toBeLessThan(2_000);
    if ("code" in expected) {
      expect(result.ok ? "ok" : result.error.code).toBe(expected.code);
      expect(got).toBeUndefined();
    } else {
      expect(result.ok).toBe(true);
      expect(JSON.stringify(got)).toBe(expected.json);
    }
  });
});
