// A handler returning a Map or a Set (or one nested in its output) reached the model as `{}`:
// JSON.stringify prints neither, and nothing warned. Their contents are now kept: a Map as an
// object when its keys are strings or numbers (else `[key, value]` pairs), a Set as an array,
// within the same bounds as any output.

import { runInNewContext } from "node:vm";
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TRUNCATED_MARKER, toJsonSafe } from "../../src/run/json-safe-output.js";

async function callReturning(output: unknown): Promise<ToolCallResult> {
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "collections",
        description: "Returns collections.",
        tier: "core",
        inputSchema: z.object({}),
        handler: async () => output,
      }),
    ],
  });
  return registry.createRun({}).call("collections", {});
}

function okOutput(result: ToolCallResult): unknown {
  expect(result.ok).toBe(true);
  if (!result.ok) throw new Error("unreachable");
  return result.output;
}

describe("Map and Set outputs", () => {
  it("gives the model a symbol Map key or Set member as its text, not null (a symbol value prints as JSON prints it)", async () => {
    const id = Symbol("session");
    const output = okOutput(
      await callReturning({
        map: new Map<unknown, unknown>([
          [id, "open"],
          [Symbol(), 2],
          ["plain", Symbol("value")],
        ]),
        set: new Set([Symbol("a"), "b"]),
      }),
    );
    expect(JSON.stringify(output)).toBe(
      '{"map":[["Symbol(session)","open"],["Symbol()",2],["plain",null]],"set":["Symbol(a)","b"]}',
    );
  });

  it("gives the model a Map with string or number keys as an object", async () => {
    const output = okOutput(
      await callReturning(
        new Map<string | number, unknown>([
          ["a", 1],
          [2, "two"],
          ["__proto__", true],
        ]),
      ),
    );
    expect(JSON.stringify(output)).toBe('{"2":"two","a":1,"__proto__":true}');
  });

  it("gives the model a Map with other keys, or keys that print alike, as [key, value] pairs", async () => {
    const key = { id: 7 };
    expect(
      okOutput(
        await callReturning(
          new Map<unknown, unknown>([
            [key, "seven"],
            [true, null],
          ]),
        ),
      ),
    ).toEqual([
      [{ id: 7 }, "seven"],
      [true, null],
    ]);
    expect(
      okOutput(
        await callReturning(
          new Map<unknown, unknown>([
            [1, "number"],
            ["1", "string"],
          ]),
        ),
      ),
    ).toEqual([
      [1, "number"],
      ["1", "string"],
    ]);
  });

  it("gives the model a Set as an array, nested ones too", async () => {
    const output = okOutput(
      await callReturning({ tags: new Set(["x", "y"]), rows: [new Map([["n", new Set([1n, 2])]])], plain: { kept: 1 } }),
    );
    expect(output).toEqual({ tags: ["x", "y"], rows: [{ n: ["1", 2] }], plain: { kept: 1 } });
  });

  it("marks a Map or Set that holds itself as circular", async () => {
    const map = new Map<string, unknown>();
    map.set("self", map);
    const set = new Set<unknown>();
    set.add(set);
    expect(okOutput(await callReturning({ map, set }))).toEqual({ map: { self: "[Circular]" }, set: ["[Circular]"] });
  });

  it("keeps a huge Set or Map within the size limit, with the truncation marker", async () => {
    const set = new Set<number>();
    for (let index = 0; index < 200_000; index++) set.add(index);
    const map = new Map<string, number>();
    for (let index = 0; index < 200_000; index++) map.set(`k${index}`, index);
    const fromSet = toJsonSafe(set, 10_000);
    const fromMap = toJsonSafe(map, 10_000);
    if (!fromSet.ok || !fromMap.ok) throw new Error("expected ok");
    const items = fromSet.value as unknown[];
    expect(items.at(-1)).toBe(TRUNCATED_MARKER);
    expect(items.length).toBeLessThan(10_000);
    const record = fromMap.value as Record<string, unknown>;
    expect(record["…"]).toBe(TRUNCATED_MARKER);
    expect(Object.keys(record).length).toBeLessThan(10_000);
  });

  it("leaves a Proxy of a Map, a Map subclass's toJSON and hostile entries without crashing", async () => {
    class Tagged extends Map<string, number> {
      toJSON() {
        return "tagged";
      }
    }
    const hostile = new Map<string, unknown>([
      [
        "getter",
        {
          get boom() {
            throw new Error("boom");
          },
        },
      ],
    ]);
    const output = okOutput(
      await callReturning({ proxy: new Proxy(new Map([["a", 1]]), {}), tagged: new Tagged([["a", 1]]), hostile }),
    );
    expect(output).toEqual({ proxy: {}, tagged: "tagged", hostile: { getter: { boom: "[Unserializable]" } } });
  });

  it("finds a Map or Set from another realm, and a subclass that renames its tag", async () => {
    class Renamed extends Map<string, number> {
      override get [Symbol.toStringTag]() {
        return "Renamed";
      }
    }
    const foreign = runInNewContext("({ map: new Map([['a', 1]]), set: new Set([2]) })") as object;
    expect(okOutput(await callReturning({ foreign, renamed: new Renamed([["b", 2]]) }))).toEqual({
      foreign: { map: { a: 1 }, set: [2] },
      renamed: { b: 2 },
    });
  });

  it("costs plain objects no more than JSON.stringify does, within 10x (a brand check throwing per object made it 45x)", () => {
    const rows = Array.from({ length: 100_000 }, (_, id) => ({ id, tags: { a: 1 }, name: `row ${id}` }));
    const cpu = (work: () => void): number => {
      const start = process.cpuUsage();
      work();
      const used = process.cpuUsage(start);
      return used.user + used.system;
    };
    const ratios: number[] = [];
    for (let round = 0; round < 3; round++) {
      const reference = cpu(() => JSON.stringify(rows));
      const converted = cpu(() => toJsonSafe(rows, Number.MAX_SAFE_INTEGER));
      ratios.push(converted / Math.max(reference, 1));
    }
    // The best of three rounds: a descheduled round inflates both, never deflates.
    expect(Math.min(...ratios)).toBeLessThan(10);
  });

  it("control: plain objects and arrays are unchanged", async () => {
    expect(okOutput(await callReturning({ a: [1, "b", { c: null }] }))).toEqual({ a: [1, "b", { c: null }] });
  });
});
