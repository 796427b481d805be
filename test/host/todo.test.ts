import { describe, expect, it } from "vitest";
import { MAX_TODO_ITEMS, todoToolGroup } from "../../src/host/index.js";
import { failure, hostRun, text } from "./support/host-test-kit.js";

describe("todo", () => {
  it("adds, updates, completes and lists items of this run", async () => {
    const { registry, run } = hostRun([todoToolGroup()]);
    expect(registry.get("todo")?.tags).toContain("builtin");
    expect(text(await run.call("todo", { action: "list" }))).toBe("The todo list is empty.");
    expect(text(await run.call("todo", { action: "add", items: ["read the spec", "write tests"] }))).toBe(
      "Todo (0/2 done):\n[ ] 1. read the spec\n[ ] 2. write tests",
    );
    text(await run.call("todo", { action: "update", id: 2, status: "in_progress", text: "write the tests" }));
    expect(text(await run.call("todo", { action: "complete", id: 1 }))).toBe(
      "Todo (1/2 done):\n[x] 1. read the spec\n[~] 2. write the tests",
    );
    const other = registry.createRun({ profile: "full" });
    expect(text(await other.call("todo", { action: "list" }))).toBe("The todo list is empty.");
  });

  it("is saved with the run and continues in another registry (another process)", async () => {
    const { run } = hostRun([todoToolGroup()]);
    text(await run.call("todo", { action: "add", items: ["one", "two"] }));
    text(await run.call("todo", { action: "complete", id: 1 }));
    const state = JSON.parse(JSON.stringify(run.toJSON()));
    expect(state.storage["todo-list"]).toMatchObject({ nextId: 3 });
    const { registry } = hostRun([todoToolGroup()]);
    const resumed = registry.createRun({ profile: "full", state });
    expect(text(await resumed.call("todo", { action: "list" }))).toBe("Todo (1/2 done):\n[x] 1. one\n[ ] 2. two");
    // Ids are never reused after a resume.
    expect(text(await resumed.call("todo", { action: "add", items: ["three"] }))).toContain("3. three");
    // A damaged saved list starts empty instead of breaking the run.
    const damaged = registry.createRun({
      profile: "full",
      state: { ...state, runId: "x", storage: { "todo-list": { items: "?" } } },
    });
    expect(text(await damaged.call("todo", { action: "list" }))).toBe("The todo list is empty.");
  });

  it("names what is missing or wrong", async () => {
    const { run } = hostRun([todoToolGroup()]);
    expect(failure(await run.call("todo", { action: "add" }))).toMatchObject({
      code: "invalid_input",
      message: 'action "add" needs items.',
    });
    expect(failure(await run.call("todo", { action: "complete" })).message).toBe('action "complete" needs id.');
    text(await run.call("todo", { action: "add", items: ["one"] }));
    expect(failure(await run.call("todo", { action: "update", id: 1 })).message).toBe('action "update" needs text or status.');
    expect(failure(await run.call("todo", { action: "complete", id: 9 })).code).toBe("unknown_todo");
    expect(failure(await run.call("todo", { action: "update", id: 1, status: "done" })).code).toBe("invalid_input");
    expect(failure(await run.call("todo", { action: "add", items: [""] })).code).toBe("invalid_input");
  });

  it("holds at most 100 items", async () => {
    const { run } = hostRun([todoToolGroup()]);
    text(await run.call("todo", { action: "add", items: Array.from({ length: 50 }, (_, index) => `a${index}`) }));
    text(await run.call("todo", { action: "add", items: Array.from({ length: 50 }, (_, index) => `b${index}`) }));
    expect(failure(await run.call("todo", { action: "add", items: ["one too many"] }))).toMatchObject({
      code: "too_many_todos",
      message: expect.stringContaining(`limit is ${MAX_TODO_ITEMS}`),
    });
  });
});
