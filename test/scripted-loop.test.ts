import { createRegistry } from "agent-tool-catalog";
import {
  expectCalled,
  expectToolsHidden,
  expectToolsVisible,
  runToolLoop,
  ScriptedModel,
  ScriptMismatchError,
} from "agent-tool-catalog/testing";
import { describe, expect, it } from "vitest";
import { sampleTools } from "./support/sample-tools.js";

describe("a multi-turn run driven by a scripted model", () => {
  it("discovers, activates and calls deferred tools over several turns, recovering from mistakes", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const model = new ScriptedModel([
      // The model guesses a hidden tool first: it gets a readable error, not an exception.
      { expectHidden: ["git_log_search"], respond: { toolCalls: [{ name: "git_log_search", args: { query: "fix" } }] } },
      {
        check: ({ messages }) =>
          expect(messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("tool_not_activated") }),
        respond: { toolCalls: [{ name: "find_tool", args: { query: "select:git_log_search" } }] },
      },
      // Bad input, then good input, in the same turn.
      {
        expectVisible: ["git_log_search"],
        respond: {
          toolCalls: [
            { name: "git_log_search", args: { query: 1 } },
            { name: "git_log_search", args: { query: "fix" } },
          ],
        },
      },
      { respond: { toolCalls: [{ name: "find_tool", args: { query: "blame lines context" } }] } },
      {
        expectVisible: ["git_log_search", "git_blame_context"],
        respond: { toolCalls: [{ name: "git_blame_context", args: '{"path":"a.ts","line":3}' }] },
      },
      { respond: { text: "done" } },
    ]);
    const transcript = await runToolLoop(run, model, { prompt: "who broke it?" });
    expect(transcript.finalText).toBe("done");
    expectToolsHidden(transcript, 1, ["git_log_search", "git_blame_context"]);
    expectToolsVisible(transcript, 3, ["git_log_search"]);
    expectToolsHidden(transcript, 3, ["git_blame_context"]);
    expectToolsVisible(transcript, 6, ["git_blame_context"]);
    expect(expectCalled(transcript, "git_log_search").map((call) => call.turn)).toEqual([3]);
    expect(expectCalled(transcript, "git_log_search", { includeFailures: true })).toHaveLength(3);
    expect(
      transcript.calls.filter((call) => !call.result.ok).map((call) => (call.result.ok ? "" : call.result.error.code)),
    ).toEqual(["tool_not_activated", "invalid_input"]);
    expect(run.toJSON().activation.activated).toEqual(["git_log_search", "git_blame_context"]);
  });

  it("fails on a turn the script does not have", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const model = new ScriptedModel([{ respond: { toolCalls: [{ name: "read", args: { path: "x" } }] } }]);
    await expect(runToolLoop(run, model, { prompt: "go" })).rejects.toThrowError(/Unexpected turn 2/);
  });

  it("fails when scripted turns are never played", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const model = new ScriptedModel([{ respond: { text: "early" } }, { respond: { text: "never" } }]);
    await expect(runToolLoop(run, model, { prompt: "go" })).rejects.toThrowError(ScriptMismatchError);
  });

  it("fails when an expected tool is not visible", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const model = new ScriptedModel([{ expectVisible: ["web_fetch"], respond: { text: "x" } }]);
    await expect(runToolLoop(run, model, { prompt: "go" })).rejects.toThrowError(/expected visible tools web_fetch/);
  });

  it("stops a model that never stops calling tools", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const looping = { respond: () => ({ toolCalls: [{ name: "read", args: { path: "x" } }] }) };
    await expect(runToolLoop(run, looping, { prompt: "go", maxTurns: 3 })).rejects.toThrowError(/after 3 turns/);
  });

  it("fails assertion helpers that do not hold", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const transcript = await runToolLoop(run, new ScriptedModel([{ respond: { text: "hi" } }]), { prompt: "go" });
    expect(() => expectCalled(transcript, "read")).toThrowError(/calls were: none/);
    expect(() => expectToolsVisible(transcript, 1, ["web_fetch"])).toThrowError(/not visible/);
    expect(() => expectToolsHidden(transcript, 1, ["read"])).toThrowError(/should be hidden/);
    expect(() => expectToolsVisible(transcript, 2, [])).toThrowError(/no turn 2/);
  });
});
