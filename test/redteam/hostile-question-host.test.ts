import { askUserQuestionToolGroup, InMemoryQuestionBroker, ManualClock } from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { failure, hostRun, text } from "../host/support/host-test-kit.js";

// Red team: the host's onQuestion (the UI hook of InMemoryQuestionBroker) throws. The model's
// call failed, yet the question stayed pending with its ten-minute timer: a UI polling
// pending() showed a question nobody waited for, answer() said it was delivered, and the timer
// kept the process alive.

describe("AskUserQuestion when the host's onQuestion throws", () => {
  it("fails the call and leaves nothing pending: no question, no timer", async () => {
    const clock = new ManualClock(0);
    const broker = new InMemoryQuestionBroker({
      clock,
      onQuestion: () => {
        throw new Error("the UI is gone");
      },
    });
    const { run } = hostRun([askUserQuestionToolGroup({ broker })]);
    const error = failure(await run.call("AskUserQuestion", { question: "Which branch?" }));
    expect(error.message).toContain("the UI is gone");
    expect(broker.pending()).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("control: with a working onQuestion the question waits and its answer arrives", async () => {
    const clock = new ManualClock(0);
    const broker = new InMemoryQuestionBroker({
      clock,
      onQuestion: (question) => queueMicrotask(() => broker.answer(question.id, { answers: ["main"] })),
    });
    const { run } = hostRun([askUserQuestionToolGroup({ broker })]);
    expect(text(await run.call("AskUserQuestion", { question: "Which branch?" }))).toContain("main");
    expect(broker.pending()).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });
});
