import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTranscriptStore, recordRunTranscript, sessionSearchToolGroup } from "../../src/host/index.js";
import { failure, record } from "./support/host-test-kit.js";

const shell = defineTool({
  name: "shell",
  description: "Run a command.",
  inputSchema: z.object({ command: z.string() }),
  handler: ({ command }) => {
    if (command.includes("fail")) throw new Error("exit 1: ENOENT migrations/0003_users.sql");
    return `ran ${command}: 12 tests passed`;
  },
});

function setup() {
  const store = new InMemoryTranscriptStore();
  const registry = createRegistry({ tools: [shell], groups: [sessionSearchToolGroup({ store })] });
  const open = (runId: string) => {
    const run = registry.createRun({ runId, profile: "full" });
    run.activate(["session_search"]);
    recordRunTranscript(run, store);
    return run;
  };
  return { store, registry, open };
}

type Hit = { session: string; kind: string; tool?: string; role?: string; snippet: string };

describe("session_search", () => {
  it("is absent without a store, and is a read-only tool of the core set", () => {
    expect(
      createRegistry({ groups: [sessionSearchToolGroup({})] })
        .list()
        .map((tool) => tool.name),
    ).not.toContain("session_search");
    const tool = setup()
      .registry.list()
      .find((entry) => entry.name === "session_search");
    expect(tool?.mutating).toBe(false);
    expect(tool?.tags).toContain("core-set");
  });

  it("finds this run's tool calls, results and the host's messages, ranked, with snippets", async () => {
    const { store, open } = setup();
    const run = open("run-now");
    await store.append({ runId: "run-now", kind: "message", role: "user", text: "Please fix the users migration", at: 1 });
    await run.call("shell", { command: "npm run migrate -- fail" });
    await run.call("shell", { command: "npm test" });
    const out = record(await run.call("session_search", { query: "users migration", scope: "session" }));
    const hits = out.hits as Hit[];
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits.map((hit) => hit.kind)).toContain("tool_result");
    expect(hits.map((hit) => hit.kind)).toContain("message");
    expect(hits.some((hit) => hit.snippet.includes("0003_users.sql"))).toBe(true);
    expect(hits.every((hit) => hit.session === "this")).toBe(true);
    // the search's own call (whose input holds the query) is never a hit
    expect(hits.some((hit) => hit.tool === "session_search")).toBe(false);
    // kinds narrows the entries searched
    const calls = record(await run.call("session_search", { query: "migrate", kinds: ["tool_call"] })).hits as Hit[];
    expect(calls.map((hit) => [hit.kind, hit.tool])).toEqual([["tool_call", "shell"]]);
  });

  it("reaches earlier runs through the store, and keeps them apart from this one", async () => {
    const { open } = setup();
    const earlier = open("run-yesterday");
    await earlier.call("shell", { command: "deploy staging --region eu-west" });
    await earlier.close();
    const now = open("run-today");
    await now.call("shell", { command: "ls" });
    const all = record(await now.call("session_search", { query: "staging region" })).hits as Hit[];
    expect(all[0]).toMatchObject({ session: "run-yesterday", tool: "shell" });
    expect((record(await now.call("session_search", { query: "staging", scope: "session" })).hits as Hit[]).length).toBe(0);
    expect(
      (record(await now.call("session_search", { query: "staging", scope: "earlier" })).hits as Hit[]).length,
    ).toBeGreaterThan(0);
    // a closed run records nothing more
    await earlier.call("shell", { command: "deploy production" }).catch(() => undefined);
    expect((record(await now.call("session_search", { query: "production" })).hits as Hit[]).length).toBe(0);
  });

  it("bounds the store and refuses an empty query", async () => {
    const store = new InMemoryTranscriptStore({ maxEntries: 3, maxTextLength: 10 });
    for (let i = 0; i < 5; i++) await store.append({ runId: "r", kind: "message", text: `message number ${i}`, at: i });
    const kept = await store.entries({});
    expect(kept.map((entry) => entry.text)).toEqual(["message nu [cut]", "message nu [cut]", "message nu [cut]"]);
    expect(kept.map((entry) => entry.at)).toEqual([2, 3, 4]);
    const { open } = setup();
    expect(failure(await open("r").call("session_search", { query: "  " })).code).toBe("invalid_input");
  });
});
