/**
 * Spec conformance (/work/shared/spec/agent-tool-catalog.md, "Deferred tools" and "Enabling
 * conditions"): web_search, cron_create, the delayed callbacks, spawn_agent / task_complete and
 * the subagent tools, through `agent-tool-catalog/host`, each at its boundaries, every failure a
 * model error from the one list. Statement table: docs/spec-conformance.md.
 */
import { createRegistry, type Run, type ToolGroup } from "agent-tool-catalog";
import {
  type AgentPromptRequest,
  type AgentRunner,
  agentToolGroup,
  callbackToolGroup,
  cronToolGroup,
  DEFAULT_MAX_FORK_DEPTH,
  HttpWebFetcher,
  InProcessCallbackManager,
  InProcessCronScheduler,
  InProcessSubagentManager,
  ManualClock,
  subagentToolGroup,
  type WebSearchRequest,
  webToolGroup,
} from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { modelError, ok } from "./support.js";

/** A registry of `groups` and a full-profile run with every deferred tool activated. */
function hostRun(groups: readonly ToolGroup[], context: Record<string, unknown> = {}): Run {
  const registry = createRegistry({ groups });
  const run = registry.createRun({ profile: "full", context });
  run.activate(registry.list({ tier: "deferred" }).map((tool) => tool.name));
  return run;
}
const registered = (groups: readonly ToolGroup[]) =>
  createRegistry({ groups })
    .list()
    .map((tool) => tool.name)
    .filter((name) => name !== "find_tool" && name !== "toolbox");

class EchoRunner implements AgentRunner {
  readonly requests: AgentPromptRequest[] = [];
  async runPrompt(request: AgentPromptRequest) {
    this.requests.push(request);
    return { output: `done at depth ${request.depth}` };
  }
}

describe("web: registered when EnableAgent && EnableWebOps && WebFetcher != nil", () => {
  const searcher = {
    requests: [] as WebSearchRequest[],
    async search(request: WebSearchRequest) {
      this.requests.push(request);
      // More than asked for: the tool keeps at most the limit.
      return Array.from({ length: 80 }, (_, index) => ({
        title: `Result ${index + 1}`,
        url: `https://example.com/${index + 1}`,
      }));
    },
  };
  const fetcher = new HttpWebFetcher();

  it("is absent, silently, when any condition is missing", () => {
    expect(registered([webToolGroup({ searcher })])).toEqual([]);
    expect(registered([webToolGroup({ fetcher, searcher, enableAgent: false })])).toEqual([]);
    expect(registered([webToolGroup({ fetcher, searcher, enableWebOps: false })])).toEqual([]);
    expect(registered([webToolGroup({ fetcher, searcher, agentRunner: new EchoRunner() })])).toEqual([
      "web_search",
      "web_fetch",
      "agentic_fetch",
    ]);
  });

  it("web_search returns 5 results by default and up to 50; 0, 51 and fractions are invalid_input", async () => {
    const run = hostRun([webToolGroup({ fetcher, searcher })]);
    const count = (text: unknown) =>
      String(text)
        .split("\n")
        .filter((line) => /^\d+\. /.test(line)).length;
    expect(count(ok(await run.call("web_search", { query: "typescript" })))).toBe(5);
    expect(searcher.requests.at(-1)?.limit).toBe(5);
    expect(count(ok(await run.call("web_search", { query: "typescript", max_results: 50 })))).toBe(50);
    expect(count(ok(await run.call("web_search", { query: "typescript", max_results: 1 })))).toBe(1);
    modelError(await run.call("web_search", { query: "typescript", max_results: 51 }), "invalid_input", "max_results");
    modelError(await run.call("web_search", { query: "typescript", max_results: 0 }), "invalid_input", "max_results");
    modelError(await run.call("web_search", { query: "typescript", max_results: 2.5 }), "invalid_input", "max_results");
    modelError(await run.call("web_search", { query: "" }), "invalid_input", "query");
    modelError(await run.call("web_search", { query: "   " }), "invalid_input", "query");
    expect(count(ok(await run.call("web_search", { query: "東京 天気 🙂" })))).toBe(5);
  });
});

describe("cron_create: name, schedule (5-field UTC), explicit execution_type shell|harness, timeout 30", () => {
  const setup = () => {
    const scheduler = new InProcessCronScheduler({
      clock: new ManualClock(Date.UTC(2025, 0, 1)),
      runShell: async () => ({ exitCode: 0, output: "" }),
      continueConversation: async () => "continued",
    });
    return hostRun([cronToolGroup({ client: scheduler })], { conversationId: "c1" });
  };
  const shell = { name: "nightly", schedule: "0 3 * * *", execution_type: "shell", command: "make report" };

  it("is absent without a client or with EnableCron off (6 tools otherwise)", () => {
    expect(registered([cronToolGroup({})])).toEqual([]);
    expect(registered([cronToolGroup({ client: new InProcessCronScheduler(), enableCron: false })])).toEqual([]);
    expect(registered([cronToolGroup({ client: new InProcessCronScheduler() })])).toHaveLength(6);
  });

  it("requires name, schedule and an explicit execution_type", async () => {
    const run = setup();
    const { execution_type: _, ...withoutType } = shell;
    modelError(await run.call("cron_create", withoutType), "invalid_input", "execution_type");
    modelError(await run.call("cron_create", { ...shell, execution_type: "bash" }), "invalid_input", "execution_type");
    modelError(await run.call("cron_create", { ...shell, name: undefined }), "invalid_input", "name");
    modelError(await run.call("cron_create", { ...shell, name: "  " }), "invalid_input", "name");
    modelError(await run.call("cron_create", { ...shell, schedule: undefined }), "invalid_input", "schedule");
  });

  it("takes 5 fields in UTC only", async () => {
    const run = setup();
    const job = ok(await run.call("cron_create", shell)) as Record<string, unknown>;
    expect(job).toMatchObject({ schedule: "0 3 * * * (UTC)", next_run_at: "2025-01-01T03:00:00.000Z" });
    modelError(await run.call("cron_create", { ...shell, name: "six", schedule: "0 0 3 * * *" }), "invalid_schedule");
    modelError(await run.call("cron_create", { ...shell, name: "four", schedule: "0 3 * *" }), "invalid_schedule");
    modelError(await run.call("cron_create", { ...shell, name: "nick", schedule: "@daily" }), "invalid_schedule");
  });

  it("a field out of range names the values it takes, never the parser's own numbers; a time zone is refused as such", async () => {
    const run = setup();
    let index = 0;
    const refused = async (schedule: string) =>
      modelError(await run.call("cron_create", { ...shell, name: `r${index++}`, schedule }), "invalid_schedule").message;
    // The parser counts days and months from 0: it said "Invalid value for day: -1" for "0" and
    // "month: 12" for "13".
    const day = await refused("0 0 0 * *");
    expect(day).toContain('the day-of-month field "0" is not valid');
    expect(day).toContain("1-31");
    expect(day).not.toContain("-1");
    const month = await refused("0 0 * 13 *");
    expect(month).toContain("1-12");
    expect(month).not.toContain(": 12");
    expect(await refused("60 * * * *")).toContain("0-59");
    expect(await refused("0 24 * * *")).toContain("0-23");
    expect(await refused("0 0 * * 8")).toContain("SUN-SAT");
    // A reason that is the expression's own stays: a range written backwards.
    expect(await refused("5-1 * * * *")).toContain("5-1");
    // A time zone was read as a seconds field ("6 fields given; seconds are not supported").
    for (const schedule of ["CRON_TZ=Europe/Paris 0 3 * * *", "TZ=UTC 0 3 * * *", "0 3 * * * UTC", "0 3 * * * Europe/Paris"]) {
      const message = await refused(schedule);
      expect(message, schedule).toContain("time zones are not supported");
      expect(message, schedule).not.toContain("seconds");
    }
    // IANA names with digits and signs, and all-caps abbreviations, are time zones too.
    for (const schedule of [
      "0 9 * * * Etc/GMT-14",
      "0 9 * * * EST",
      "0 9 * * * America/Argentina/Buenos_Aires",
      "0 9 * * * UTC+2",
    ]) {
      const message = await refused(schedule);
      expect(message, schedule).toContain("time zones are not supported");
      expect(message, schedule).not.toContain("seconds");
    }
    // Control: month and day names in a sixth field are no time zone; six fields still say seconds.
    expect(await refused("0 0 9 * JAN MON")).toContain("seconds are not supported");
    expect(await refused("0 0 9 * * FRIL")).toContain("seconds are not supported");
    // Positive controls at the edges: each field's last value, names, ranges, steps, L.
    for (const schedule of ["59 23 31 12 7", "0 0 1 JAN SUN", "0 0 * * MON-FRI", "*/15 0-23/2 1,15 1-12 0-6", "0 3 L * *"]) {
      ok(await run.call("cron_create", { ...shell, name: `ok${index++}`, schedule }));
    }
    // Still 6 fields of numbers: seconds.
    expect(await refused("0 0 3 * * *")).toContain("seconds are not supported");
  });

  it("shell needs a non-empty command and takes no prompt; harness needs a non-empty prompt and rejects command", async () => {
    const run = setup();
    const base = { name: "j", schedule: "* * * * *" };
    modelError(await run.call("cron_create", { ...base, execution_type: "shell" }), "missing_command");
    modelError(await run.call("cron_create", { ...base, execution_type: "shell", command: "" }), "missing_command");
    modelError(await run.call("cron_create", { ...base, execution_type: "shell", command: " \t " }), "missing_command");
    modelError(
      await run.call("cron_create", { ...base, execution_type: "shell", command: "ls", prompt: "p" }),
      "unexpected_prompt",
    );
    modelError(await run.call("cron_create", { ...base, execution_type: "harness" }), "missing_prompt");
    modelError(await run.call("cron_create", { ...base, execution_type: "harness", prompt: "" }), "missing_prompt");
    modelError(
      await run.call("cron_create", { ...base, execution_type: "harness", prompt: "go", command: "ls" }),
      "unexpected_command",
    );
    // An empty command next to a harness prompt is still a command: refused, not ignored.
    modelError(
      await run.call("cron_create", { ...base, execution_type: "harness", prompt: "go", command: "" }),
      "unexpected_command",
    );
    const harness = ok(
      await run.call("cron_create", { ...base, name: "h", execution_type: "harness", prompt: "Summarise the day 🙂" }),
    );
    expect(harness).toMatchObject({ execution_type: "harness", prompt: "Summarise the day 🙂" });
  });

  it("timeout_seconds defaults to 30 and takes a positive integer", async () => {
    const run = setup();
    expect(ok(await run.call("cron_create", shell))).toMatchObject({ timeout_seconds: 30 });
    expect(ok(await run.call("cron_create", { ...shell, name: "t1", timeout_seconds: 1 }))).toMatchObject({ timeout_seconds: 1 });
    modelError(await run.call("cron_create", { ...shell, name: "t0", timeout_seconds: 0 }), "invalid_input", "timeout_seconds");
    modelError(await run.call("cron_create", { ...shell, name: "tf", timeout_seconds: 1.5 }), "invalid_input", "timeout_seconds");
    modelError(
      await run.call("cron_create", { ...shell, name: "ts", timeout_seconds: "30" }),
      "invalid_input",
      "timeout_seconds",
    );
  });

  it("names are unique; cron_get shows the 5 most recent executions", async () => {
    const run = setup();
    ok(await run.call("cron_create", shell));
    modelError(await run.call("cron_create", shell), "duplicate_job_name");
    modelError(await run.call("cron_get", { id: "nope" }), "unknown_job");
  });
});

describe("delayed callbacks: min 5 s, max 1 hour, max 10 per conversation", () => {
  const setup = () => {
    const manager = new InProcessCallbackManager({ clock: new ManualClock(Date.UTC(2025, 0, 1)), onFire: () => undefined });
    const registry = createRegistry({ groups: [callbackToolGroup({ manager })] });
    const runFor = (conversationId: string) => {
      const run = registry.createRun({ profile: "full", context: { conversationId } });
      run.activate(["set_delayed_callback", "cancel_delayed_callback", "list_delayed_callbacks"]);
      return run;
    };
    return { manager, runFor };
  };

  it("accepts exactly 5 s and exactly 3600 s; refuses 4, 3601 and fractions", async () => {
    const run = setup().runFor("c");
    ok(await run.call("set_delayed_callback", { delay_seconds: 5, message: "at the minimum" }));
    ok(await run.call("set_delayed_callback", { delay_seconds: 3600, message: "at the maximum" }));
    modelError(await run.call("set_delayed_callback", { delay_seconds: 4, message: "x" }), "invalid_input", "delay_seconds");
    modelError(await run.call("set_delayed_callback", { delay_seconds: 3601, message: "x" }), "invalid_input", "delay_seconds");
    modelError(await run.call("set_delayed_callback", { delay_seconds: 4.9, message: "x" }), "invalid_input", "delay_seconds");
    modelError(await run.call("set_delayed_callback", { delay_seconds: "60", message: "x" }), "invalid_input", "delay_seconds");
    modelError(await run.call("set_delayed_callback", { delay_seconds: 60 }), "invalid_input", "message");
  });

  it("the 10th pending callback of a conversation is accepted, the 11th is too_many_callbacks; cancelling frees a place", async () => {
    const { runFor } = setup();
    const run = runFor("busy");
    const ids: string[] = [];
    for (let index = 0; index < 10; index++) {
      const set = ok(await run.call("set_delayed_callback", { delay_seconds: 60, message: `#${index}` })) as { id: string };
      ids.push(set.id);
    }
    modelError(await run.call("set_delayed_callback", { delay_seconds: 60, message: "#10" }), "too_many_callbacks");
    // Another conversation has its own ten.
    ok(await runFor("other").call("set_delayed_callback", { delay_seconds: 60, message: "fine" }));
    ok(await run.call("cancel_delayed_callback", { id: ids[0] }));
    ok(await run.call("set_delayed_callback", { delay_seconds: 60, message: "#10 after a cancel" }));
    expect(ok(await run.call("list_delayed_callbacks", {}))).toHaveLength(10);
    modelError(await run.call("cancel_delayed_callback", { id: "no-such-id" }), "unknown_callback");
  });
});

describe("agent orchestration: spawn_agent max fork depth 5, task_complete not at depth 0", () => {
  it("registered when EnableAgent && AgentRunner != nil", () => {
    const runner = new EchoRunner();
    expect(registered([agentToolGroup({})])).toEqual([]);
    expect(registered([agentToolGroup({ runner, enableAgent: false })])).toEqual([]);
    expect(registered([agentToolGroup({ runner })])).toEqual(["agent", "spawn_agent"]);
    expect(registered([agentToolGroup({ runner, depth: 1 })])).toEqual(["agent", "spawn_agent", "task_complete"]);
  });

  it("an agent at depth 4 may spawn (child at 5); at depth 5 spawn_agent is max_fork_depth_exceeded", async () => {
    expect(DEFAULT_MAX_FORK_DEPTH).toBe(5);
    const runner = new EchoRunner();
    const atFour = hostRun([agentToolGroup({ runner })], { agentDepth: 4 });
    expect(ok(await atFour.call("spawn_agent", { task: "go one deeper" }))).toMatchObject({ depth: 5 });
    const atFive = hostRun([agentToolGroup({ runner })], { agentDepth: 5 });
    const refused = modelError(await atFive.call("spawn_agent", { task: "too deep" }), "max_fork_depth_exceeded");
    expect(refused.hint).toContain("task_complete");
    modelError(await atFive.call("agent", { prompt: "too deep" }), "max_fork_depth_exceeded");
    expect(runner.requests.map((request) => request.depth)).toEqual([5]);
    modelError(await atFour.call("spawn_agent", { task: "" }), "invalid_input", "task");
  });

  it("task_complete refuses at depth 0 and works below it", async () => {
    const runner = new EchoRunner();
    const completions: unknown[] = [];
    const group = agentToolGroup({ runner, depth: 1, onTaskComplete: (done) => void completions.push(done.result) });
    // A registry built for a child, used by a run that says it is the root: refused.
    modelError(await hostRun([group], { agentDepth: 0 }).call("task_complete", { result: "x" }), "not_a_child_agent");
    ok(await hostRun([group], { agentDepth: 2 }).call("task_complete", { result: "the answer" }));
    expect(completions).toEqual(["the answer"]);
  });
});

describe("subagents: registered when SubagentManager != nil; run_agent params task, profile, model, max_steps", () => {
  it("registers the five tools with a manager and none without", () => {
    const manager = new InProcessSubagentManager({ runner: new EchoRunner() });
    expect(registered([subagentToolGroup({})])).toEqual([]);
    expect(registered([subagentToolGroup({ manager })])).toEqual([
      "run_agent",
      "start_subagent",
      "get_subagent",
      "wait_subagent",
      "cancel_subagent",
    ]);
  });

  it("run_agent passes task, profile, model and max_steps, and checks them", async () => {
    const runner = new EchoRunner();
    const run = hostRun([subagentToolGroup({ manager: new InProcessSubagentManager({ runner }) })]);
    ok(await run.call("run_agent", { task: "review", profile: "reviewer", model: "small", max_steps: 3 }));
    expect(runner.requests[0]).toMatchObject({ prompt: "review", profile: "reviewer", model: "small", maxSteps: 3 });
    modelError(await run.call("run_agent", {}), "invalid_input", "task");
    modelError(await run.call("run_agent", { task: "x", max_steps: 0 }), "invalid_input", "max_steps");
    modelError(await run.call("get_subagent", { id: "nope" }), "unknown_subagent");
  });
});
