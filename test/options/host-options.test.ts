/**
 * The host subpath's numeric options against hostile values: each is refused where it is given
 * (`invalid_option` naming it) unless its documented rule accepts it. Before, every value was
 * taken and misbehaved later: `HttpWebFetcher({ timeoutMs: 2 ** 31 })` failed every fetch after
 * 1 ms, a swarm with `maxConcurrency: NaN` started none of its tasks, `InMemoryQuestionBroker({
 * timeoutMs: NaN })` re-armed a 1 ms timer for ever, `InProcessCronScheduler({ maxOutputChars: 0 })`
 * kept the whole output, `NaN` limits kept everything. Positive controls: the documented values,
 * 0 and Infinity where they mean something, work in real calls.
 */
import {
  agentToolGroup,
  createMonitorTool,
  createSessionSearchTool,
  createSourcegraphTool,
  createSwarmTool,
  createTaskCompleteTool,
  HttpWebFetcher,
  InMemoryQuestionBroker,
  InMemoryTranscriptStore,
  InProcessCallbackManager,
  InProcessCronScheduler,
  InProcessSubagentManager,
  InProcessWorkflowService,
  sessionSearchToolGroup,
  skillToolGroup,
  subagentToolGroup,
  swarmToolGroup,
  webToolGroup,
  workflowToolGroup,
} from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { hostRun, record, ScriptedRunner } from "../host/support/host-test-kit.js";
import { type DocumentedRule, expectRuleHolds, TIMER } from "../support/hostile-options.js";

const runner = new ScriptedRunner(() => ({ output: "done" }));
const COUNT: DocumentedRule = { min: 1, integer: true, infinite: true };
const KEPT: DocumentedRule = { min: 0, integer: true, infinite: true };
const WAIT_SECONDS: DocumentedRule = { min: 0, aboveMin: true, max: 2_147_483 };
const DEPTH: DocumentedRule = { min: 0, integer: true };
const FORK_DEPTH: DocumentedRule = { min: 0, integer: true, infinite: true };

/** Option, how a factory is given it, the documented rule. */
const OPTIONS: readonly [string, string, (value: never) => unknown, DocumentedRule][] = [
  ["createMonitorTool", "maxBufferBytes", (maxBufferBytes) => createMonitorTool({ maxBufferBytes }), { min: 1, integer: true }],
  ["createMonitorTool", "maxPollBytes", (maxPollBytes) => createMonitorTool({ maxPollBytes }), COUNT],
  ["createMonitorTool", "maxProcesses", (maxProcesses) => createMonitorTool({ maxProcesses }), COUNT],
  ["HttpWebFetcher", "timeoutMs", (timeoutMs) => new HttpWebFetcher({ timeoutMs }), TIMER],
  ["HttpWebFetcher", "maxBytes", (maxBytes) => new HttpWebFetcher({ maxBytes }), { min: 1, integer: true }],
  ["HttpWebFetcher", "maxRedirects", (maxRedirects) => new HttpWebFetcher({ maxRedirects }), { min: 0, integer: true }],
  [
    "createSourcegraphTool",
    "timeoutMs",
    (timeoutMs) => createSourcegraphTool({ endpoint: "https://sg.example", timeoutMs }),
    TIMER,
  ],
  ["InMemoryQuestionBroker", "timeoutMs", (timeoutMs) => new InMemoryQuestionBroker({ timeoutMs }), { min: 1, infinite: true }],
  ["InMemoryTranscriptStore", "maxEntries", (maxEntries) => new InMemoryTranscriptStore({ maxEntries }), COUNT],
  ["InMemoryTranscriptStore", "maxTextLength", (maxTextLength) => new InMemoryTranscriptStore({ maxTextLength }), KEPT],
  [
    "InProcessCallbackManager",
    "maxPendingPerConversation",
    (maxPendingPerConversation) => new InProcessCallbackManager({ onFire: () => {}, maxPendingPerConversation }),
    COUNT,
  ],
  [
    "InProcessCallbackManager",
    "maxRetained",
    (maxRetained) => new InProcessCallbackManager({ onFire: () => {}, maxRetained }),
    KEPT,
  ],
  // As BullMqCronScheduler's (test/options/cross-surface-options.test.ts): 0 and Infinity were accepted here only.
  [
    "InProcessCronScheduler",
    "historyLimit",
    (historyLimit) => new InProcessCronScheduler({ historyLimit }),
    { min: 1, integer: true },
  ],
  ["InProcessCronScheduler", "maxOutputChars", (maxOutputChars) => new InProcessCronScheduler({ maxOutputChars }), COUNT],
  ["InProcessSubagentManager", "maxRunning", (maxRunning) => new InProcessSubagentManager({ runner, maxRunning }), COUNT],
  ["InProcessSubagentManager", "maxRetained", (maxRetained) => new InProcessSubagentManager({ runner, maxRetained }), KEPT],
  ["createSwarmTool", "maxAgents", (maxAgents) => createSwarmTool(runner, { maxAgents }), COUNT],
  ["createSwarmTool", "maxConcurrency", (maxConcurrency) => createSwarmTool(runner, { maxConcurrency }), COUNT],
  ["createSwarmTool", "maxTokens", (maxTokens) => createSwarmTool(runner, { maxTokens }), { min: 0, infinite: true }],
  ["createSwarmTool", "maxWaitSeconds", (maxWaitSeconds) => createSwarmTool(runner, { maxWaitSeconds }), WAIT_SECONDS],
  ["swarmToolGroup", "maxConcurrency", (maxConcurrency) => swarmToolGroup({ runner, maxConcurrency }), COUNT],
  ["subagentToolGroup", "maxWaitSeconds", (maxWaitSeconds) => subagentToolGroup({ maxWaitSeconds }), WAIT_SECONDS],
  ["workflowToolGroup", "maxWaitSeconds", (maxWaitSeconds) => workflowToolGroup({ maxWaitSeconds }), WAIT_SECONDS],
  [
    "createSessionSearchTool",
    "maxEntries",
    (maxEntries) => createSessionSearchTool(new InMemoryTranscriptStore(), { maxEntries }),
    COUNT,
  ],
  ["sessionSearchToolGroup", "maxEntries", (maxEntries) => sessionSearchToolGroup({ maxEntries }), COUNT],
  ["createTaskCompleteTool", "depth", (depth) => createTaskCompleteTool({ depth }), DEPTH],
  ["createTaskCompleteTool", "maxForkDepth", (maxForkDepth) => createTaskCompleteTool({ maxForkDepth }), FORK_DEPTH],
  ["agentToolGroup", "maxForkDepth", (maxForkDepth) => agentToolGroup({ runner, maxForkDepth }), FORK_DEPTH],
  ["webToolGroup", "depth", (depth) => webToolGroup({ depth }), DEPTH],
  [
    "InProcessWorkflowService",
    "budget.maxAgentCalls",
    (maxAgentCalls) => new InProcessWorkflowService({ runner, defaultBudget: { maxAgentCalls } }),
    KEPT,
  ],
  [
    "InProcessWorkflowService",
    "budget.maxTokens",
    (maxTokens) =>
      new InProcessWorkflowService({
        runner,
        workflows: [{ name: "w", description: "A workflow.", budget: { maxTokens }, run: async () => "done" }],
      }),
    { min: 0, infinite: true },
  ],
  ["skillToolGroup", "maxForkDepth", (maxForkDepth) => skillToolGroup({ maxForkDepth } as never), FORK_DEPTH],
];

describe("host options: refused where given unless the documented rule accepts them", () => {
  for (const [factory, field, give, rule] of OPTIONS) {
    it(`${factory} ${field}`, async () => {
      await expectRuleHolds(field, give, rule);
    });
  }
});

describe("positive controls: documented values work in real calls", () => {
  it("a swarm with maxConcurrency Infinity and maxTokens Infinity runs every task", async () => {
    const { run } = hostRun(
      [swarmToolGroup({ runner, maxConcurrency: Number.POSITIVE_INFINITY, maxTokens: Number.POSITIVE_INFINITY })],
      {
        permissions: { sandbox: "local", approval: "none" },
      },
    );
    const out = record(await run.call("swarm", { tasks: [{ task: "a" }, { task: "b" }, { task: "c" }] }));
    expect(out).toMatchObject({ completed: 3, failed: 0 });
  });

  it("a question broker with timeoutMs Infinity keeps the question until answered", async () => {
    const broker = new InMemoryQuestionBroker({ timeoutMs: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    const asked = broker.ask({ id: "q1", question: "Which?", options: [] } as never, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(broker.pending().map((question) => question.id)).toEqual(["q1"]);
    broker.answer("q1", { answer: "this one" } as never);
    await expect(asked).resolves.toMatchObject({ answer: "this one" });
  });

  it("a transcript store with maxTextLength 0 keeps entries, their text cut", async () => {
    const store = new InMemoryTranscriptStore({ maxTextLength: 0, maxEntries: Number.POSITIVE_INFINITY });
    await store.append({ runId: "r", role: "user", text: "hello" } as never);
    const [entry] = await store.entries({} as never);
    expect(entry?.text).toBe(" [cut]");
  });
});
