import { describe, expect, it } from "vitest";
import { askUserQuestionToolGroup, InMemoryQuestionBroker, ManualClock, type UserQuestion } from "../../src/host/index.js";
import { failure, hostRun, text, toolNames } from "./support/host-test-kit.js";

function askSetup(timeoutMs?: number) {
  const clock = new ManualClock();
  const asked: UserQuestion[] = [];
  const broker = new InMemoryQuestionBroker({
    clock,
    onQuestion: (question) => asked.push(question),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const { run } = hostRun([askUserQuestionToolGroup({ broker })], {
    allowedTools: ["read"],
    context: { conversationId: "chat-1" },
  });
  return { clock, asked, broker, run };
}

describe("AskUserQuestion", () => {
  it("is present only with a broker", () => {
    expect(toolNames(hostRun([askUserQuestionToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([askUserQuestionToolGroup({ broker: new InMemoryQuestionBroker() })]).registry)).toEqual([
      "AskUserQuestion",
    ]);
  });

  it("asks through the broker (even under an allow-list) and returns the answer", async () => {
    const { asked, broker, run } = askSetup();
    const pending = run.call("AskUserQuestion", {
      question: "Which database?",
      header: "DB",
      options: [{ label: "Postgres", description: "the default" }, { label: "SQLite" }],
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([
      expect.objectContaining({
        question: "Which database?",
        header: "DB",
        conversationId: "chat-1",
        runId: run.id,
        multiSelect: false,
      }),
    ]);
    expect(broker.pending()).toHaveLength(1);
    expect(broker.answer(String(asked[0]?.id), { answers: ["Postgres", "with PostGIS"], note: "prod only" })).toBe(true);
    expect(text(await pending)).toBe("The user answered: Postgres; (own words) with PostGIS\nNote: prod only");
    expect(broker.pending()).toEqual([]);
    expect(broker.answer(String(asked[0]?.id), { answers: [] })).toBe(false);
  });

  it("fails readably when dismissed, timed out or cancelled", async () => {
    const { asked, broker, clock, run } = askSetup(60_000);
    const dismissed = run.call("AskUserQuestion", { question: "Deploy now?" });
    await new Promise((resolve) => setImmediate(resolve));
    broker.dismiss(String(asked[0]?.id));
    expect(failure(await dismissed).code).toBe("question_dismissed");
    const timedOut = run.call("AskUserQuestion", { question: "Still there?" });
    await clock.advance(60_000);
    expect(failure(await timedOut)).toMatchObject({ code: "question_timeout", hint: expect.stringContaining("best judgement") });
    const controller = new AbortController();
    const cancelled = run.call("AskUserQuestion", { question: "Hello?" }, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(failure(await cancelled).code).toBe("aborted");
    expect(broker.pending()).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("refuses a single option", async () => {
    const { run } = askSetup();
    expect(failure(await run.call("AskUserQuestion", { question: "Pick", options: [{ label: "only" }] })).code).toBe(
      "invalid_input",
    );
  });
});
