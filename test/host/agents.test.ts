import { createRegistry } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import {
  type AgentPromptRequest,
  type AgentPromptResult,
  type AgentRunner,
  agentToolGroup,
  DEFAULT_MAX_FORK_DEPTH,
  type TaskCompletion,
} from "../../src/host/index.js";
import { failure, hostRun, output, ScriptedRunner, text, toolNames } from "./support/host-test-kit.js";

/**
 * A host's runner in miniature: every child gets its own registry (built for its depth, so it
 * has task_complete) and run; a scripted "model" tries to spawn a grandchild, then reports back.
 */
class RecursiveRunner implements AgentRunner {
  readonly depths: number[] = [];

  async runPrompt(request: AgentPromptRequest): Promise<AgentPromptResult> {
    this.depths.push(request.depth);
    let completion: TaskCompletion | undefined;
    const registry = createRegistry({
      groups: [
        agentToolGroup({
          runner: this,
          depth: request.depth,
          onTaskComplete: (done) => {
            completion = done;
          },
        }),
      ],
    });
    const run = registry.createRun({ profile: "full" });
    run.activate(["spawn_agent"]);
    const spawned = await run.call("spawn_agent", { task: `${request.prompt} > child` }, { signal: request.signal });
    const result = spawned.ok
      ? `depth ${request.depth} <- ${String((spawned.output as { result: string }).result)}`
      : `bottom at depth ${request.depth} (${spawned.error.code})`;
    expect(text(await run.call("task_complete", { result }))).toContain("Stop now");
    return { output: completion?.result ?? "no result", steps: 2 };
  }
}

describe("agent tool group", () => {
  it("is present only with a runner and the switch on; task_complete only below the root", () => {
    const runner = new ScriptedRunner(() => ({ output: "" }));
    expect(toolNames(hostRun([agentToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([agentToolGroup({ runner, enableAgent: false })]).registry)).toEqual([]);
    expect(toolNames(hostRun([agentToolGroup({ runner })]).registry)).toEqual(["agent", "spawn_agent"]);
    expect(toolNames(hostRun([agentToolGroup({ runner, depth: 1 })]).registry)).toEqual([
      "agent",
      "spawn_agent",
      "task_complete",
    ]);
  });

  it("agent runs an inline sub-agent one level down and returns its answer", async () => {
    const runner = new ScriptedRunner((request) => ({ output: `answered: ${request.prompt}` }));
    const { run } = hostRun([agentToolGroup({ runner })]);
    expect(text(await run.call("agent", { prompt: "What is 2 + 2?", model: "small" }))).toBe("answered: What is 2 + 2?");
    expect(runner.requests[0]).toMatchObject({ depth: 1, model: "small", parentRunId: run.id });
  });

  it("spawn_agent recurses until the fork depth limit (5), and the results come back up through task_complete", async () => {
    const runner = new RecursiveRunner();
    const { run } = hostRun([agentToolGroup({ runner })]);
    const result = output(await run.call("spawn_agent", { task: "dig", profile: "explorer", max_steps: 10 }));
    expect(DEFAULT_MAX_FORK_DEPTH).toBe(5);
    expect(runner.depths).toEqual([1, 2, 3, 4, 5]);
    expect(result).toEqual({
      depth: 1,
      result: "depth 1 <- depth 2 <- depth 3 <- depth 4 <- bottom at depth 5 (max_fork_depth_exceeded)",
      steps: 2,
    });
  });

  it("honours a lower limit and the run's own depth from its context", async () => {
    const runner = new ScriptedRunner(() => ({ output: "never" }));
    const limited = hostRun([agentToolGroup({ runner, maxForkDepth: 2 })], { context: { agentDepth: 2 } }).run;
    const error = failure(await limited.call("spawn_agent", { task: "x" }));
    expect(error).toMatchObject({ code: "max_fork_depth_exceeded", message: expect.stringContaining("limit of 2") });
    expect(failure(await limited.call("agent", { prompt: "x" })).code).toBe("max_fork_depth_exceeded");
    expect(runner.requests).toHaveLength(0);
  });

  it("task_complete refuses at depth 0 and passes bad input back", async () => {
    const completions: TaskCompletion[] = [];
    const group = agentToolGroup({
      runner: new ScriptedRunner(() => ({ output: "" })),
      depth: 1,
      onTaskComplete: (done) => void completions.push(done),
    });
    const root = hostRun([group], { context: { agentDepth: 0 } }).run;
    expect(failure(await root.call("task_complete", { result: "done" })).code).toBe("not_a_child_agent");
    const child = hostRun([group]).run;
    expect(failure(await child.call("task_complete", { result: "" })).code).toBe("invalid_input");
    expect(text(await child.call("task_complete", { result: "found it", status: "failure" }))).toContain("delivered");
    expect(completions).toEqual([{ runId: child.id, depth: 1, status: "failure", result: "found it" }]);
  });
});
