/**
 * Red team round 15: a host's `SubagentManager` or `WorkflowService` whose `wait` ignores its
 * `timeoutMs` and signal and never settles. `run_agent`, `wait_subagent` and `run_workflow` tell the
 * model they wait "at most timeout_seconds" and then return the state either way, but left the
 * limit to the host's service: the call, and the model's whole step, waited for ever.
 */
import {
  defineWorkflow,
  InProcessSubagentManager,
  InProcessWorkflowService,
  type SubagentManager,
  subagentToolGroup,
  type WorkflowService,
  workflowToolGroup,
} from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { hostRun, record, ScriptedRunner, untilAborted } from "../host/support/host-test-kit.js";

const never = () => new Promise<never>(() => undefined);
// A child agent that runs until it is cancelled, so every wait ends by its time limit.
const busyRunner = () => new ScriptedRunner((request) => untilAborted(request.signal as AbortSignal));

/** The real manager, but its `wait` never answers (or, for the control, is the real one). */
function subagents(hostileWait: boolean) {
  const real = new InProcessSubagentManager({ runner: busyRunner() });
  const manager: SubagentManager = {
    start: (request) => real.start(request),
    get: (id) => real.get(id),
    cancel: (id) => real.cancel(id),
    wait: hostileWait ? never : (id, options) => real.wait(id, options),
  };
  return hostRun([subagentToolGroup({ manager })]);
}

function workflows(hostileWait: boolean) {
  const real = new InProcessWorkflowService({
    runner: busyRunner(),
    workflows: [defineWorkflow({ name: "slow", description: "One agent call.", run: (ctx) => ctx.agent("work") })],
  });
  const service: WorkflowService = Object.create(real, {
    wait: { value: hostileWait ? never : real.wait.bind(real) },
  });
  return hostRun([workflowToolGroup({ service })]);
}

async function timed(call: Promise<unknown>) {
  const started = Date.now();
  const result = await call;
  return { result, elapsed: Date.now() - started };
}

describe("a host service whose wait ignores its time limit", () => {
  it("run_agent and wait_subagent answer with the subagent still running, a second past timeout_seconds", async () => {
    const { run, registry } = subagents(true);
    run.activate(["run_agent", "wait_subagent"]);
    const ran = await timed(run.call("run_agent", { task: "work", timeout_seconds: 1 }));
    expect(ran.result).toMatchObject({ ok: true });
    expect(record(ran.result as never)).toMatchObject({ status: "running" });
    expect(ran.elapsed).toBeLessThan(10_000);
    const id = String(record(ran.result as never).id);
    const waited = await timed(run.call("wait_subagent", { id, timeout_seconds: 1 }));
    expect(record(waited.result as never)).toMatchObject({ id, status: "running" });
    expect(waited.elapsed).toBeLessThan(10_000);
    await registry.close();
  }, 30_000);

  it("run_workflow answers with the run still running, a second past timeout_seconds", async () => {
    const { run, registry } = workflows(true);
    run.activate(["run_workflow"]);
    const ran = await timed(run.call("run_workflow", { name: "slow", timeout_seconds: 1 }));
    expect(ran.result).toMatchObject({ ok: true });
    expect(record(ran.result as never)).toMatchObject({ status: "running" });
    expect(ran.elapsed).toBeLessThan(10_000);
    await registry.close();
  }, 30_000);

  it("control: an honest service's wait answers at its limit, with the same state", async () => {
    const agents = subagents(false);
    agents.run.activate(["run_agent"]);
    expect(record(await agents.run.call("run_agent", { task: "work", timeout_seconds: 1 }))).toMatchObject({ status: "running" });
    await agents.registry.close();
    const flows = workflows(false);
    flows.run.activate(["run_workflow"]);
    expect(record(await flows.run.call("run_workflow", { name: "slow", timeout_seconds: 1 }))).toMatchObject({
      status: "running",
    });
    await flows.registry.close();
  }, 30_000);
});
