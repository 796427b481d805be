// A transcript store that fails in every way a host's database client can: rejecting, throwing
// before it returns a promise (a closed client), answering with no promise at all. The call it
// records must still return its result, the host must hear of each failure through `onError`,
// and nothing may reach the process as an uncaught exception (which would end a real host).
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTranscriptStore, recordRunTranscript, type TranscriptStore } from "../../src/host/index.js";
import { collectUncaught } from "../support/collect-uncaught.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes its text.",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

const failingStores: [string, () => TranscriptStore][] = [
  ["rejects", () => ({ append: () => Promise.reject(new Error("db down")), entries: async () => [] })],
  [
    "throws before returning a promise",
    () => ({
      append: () => {
        throw new Error("client closed");
      },
      entries: async () => [],
    }),
  ],
  // A JavaScript host's store that answers synchronously, against the interface.
  ["returns no promise", () => ({ append: () => undefined as unknown as Promise<void>, entries: async () => [] })],
];

describe("recordRunTranscript with a failing store", () => {
  it.each(failingStores)("a store that %s: the call returns, onError hears it, nothing uncaught", async (label, makeStore) => {
    const run = createRegistry({ tools: [echo] }).createRun();
    const errors: unknown[] = [];
    recordRunTranscript(run, makeStore(), { onError: (error) => errors.push(error) });
    let result: unknown;
    const uncaught = await collectUncaught(async () => {
      result = await run.call("echo", { text: "hi" });
    });
    expect(uncaught).toEqual([]);
    expect(result).toMatchObject({ ok: true, output: "hi" });
    expect(errors.length).toBe(label === "returns no promise" ? 0 : 2);
  });

  it("control: a working store records the call and its result", async () => {
    const run = createRegistry({ tools: [echo] }).createRun();
    const store = new InMemoryTranscriptStore();
    recordRunTranscript(run, store);
    expect(await run.call("echo", { text: "hi" })).toMatchObject({ ok: true });
    expect((await store.entries({ runId: run.id })).map((entry) => [entry.kind, entry.text])).toEqual([
      ["tool_call", '{"text":"hi"}'],
      ["tool_result", "hi"],
    ]);
  });
});
