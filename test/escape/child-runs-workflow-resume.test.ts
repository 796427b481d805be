/**
 * Escape attempts through `run_workflow` with `resume_run_id` (red team round 22, "not fixed").
 * Workflow runs belong to a conversation (`hostContext.conversationId`), and a resumed run goes on
 * with the scope saved when it started. A host that gives its narrower runs (sub-agents) the
 * conversation's id let such a run resume a wider run's failed workflow, whose step then wrote
 * outside the narrower run's workspace. Both the in-process and the Redis workflow service (a real
 * redis-server on 127.0.0.1; the second service stands for another process, which adopts the run
 * from the checkpoint saved in Redis). Controls: the run that started it, or a run with the same
 * scope, resumes it and the step writes.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { createRegistry, type PermissionConfig, type Registry } from "agent-tool-catalog";
import {
  type AgentRunner,
  CONVERSATION_ID_CONTEXT_KEY,
  defineWorkflow,
  InProcessWorkflowService,
  type WorkflowService,
  workflowToolGroup,
} from "agent-tool-catalog/host";
import { RedisWorkflowService } from "agent-tool-catalog/redis";
import { createWriteTool } from "agent-tool-catalog/tools";
import type { Redis } from "ioredis";
import { afterEach, beforeAll, beforeEach, describe, expect } from "vitest";
import { temporaryDirectory } from "../host/support/host-test-kit.js";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const CONVERSATION = "conv-shared";

/**
 * The agent of a workflow step: a child run of the scope the workflow hands it (as every runner
 * makes it, `createRun({ parent })`) that writes the file its prompt names.
 */
function writingRunner(registry: () => Registry): AgentRunner {
  return {
    runPrompt: async (request) => {
      const child = registry().createRun({ parent: request.scope, profile: "full" });
      const result = await child.call("write", JSON.parse(request.prompt) as unknown);
      return {
        output: result.ok ? "written" : `refused: ${JSON.stringify(result.error)}`,
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
  };
}

/** A service whose one workflow fails while `gate.failures` lasts (shared by "processes"), then writes. */
function workflowService(registry: () => Registry, gate: { failures: number }): InProcessWorkflowService {
  return new InProcessWorkflowService({
    runner: writingRunner(registry),
    workflows: [
      defineWorkflow({
        name: "write-later",
        description: "Writes a first file, fails once, then has an agent write a second file.",
        run: async (ctx, args) => {
          // A first step inside every scope of the test, journaled (and checkpointed) before the failure.
          const { first, path: file, content } = args as { first: string; path: string; content: string };
          await ctx.agent(JSON.stringify({ path: first, content }));
          if (gate.failures-- > 0) throw new Error("a transient failure");
          return ctx.agent(JSON.stringify({ path: file, content }));
        },
      }),
    ],
  });
}

/** A registry with the write tool and the workflow tools on `service`. */
function registryWith(service: () => WorkflowService): Registry {
  return createRegistry({ tools: [createWriteTool()], groups: [workflowToolGroup({ service: service() })] });
}

describe("escape attempts: resuming a workflow run", () => {
  let root: { path: string; remove(): Promise<void> };
  let target: string;
  beforeEach(async () => {
    root = await temporaryDirectory("workflow-resume-");
    await mkdir(path.join(root.path, "narrow"));
    await mkdir(path.join(root.path, "elsewhere"));
    target = path.join(root.path, "elsewhere", "escaped.txt");
  });
  afterEach(async () => {
    await root.remove();
  });

  const wide = (): PermissionConfig => ({ sandbox: "workspace", workspace: root.path, approval: "none" });
  const narrow = (): PermissionConfig => ({ sandbox: "workspace", workspace: path.join(root.path, "narrow"), approval: "none" });

  /** A run of the shared conversation with `permissions`, its workflow tools active. */
  function runIn(registry: Registry, permissions: PermissionConfig, allowedTools?: string[]) {
    const run = registry.createRun({
      profile: "full",
      permissions,
      context: { [CONVERSATION_ID_CONTEXT_KEY]: CONVERSATION },
      ...(allowedTools === undefined ? {} : { allowedTools }),
    });
    run.activate(["run_workflow"]);
    return run;
  }

  /** The wide run starts the workflow, which fails; returns its run id. */
  async function startFailing(registry: Registry): Promise<string> {
    const started = await runIn(registry, wide()).call("run_workflow", {
      name: "write-later",
      args: { first: path.join(root.path, "narrow", "first.txt"), path: target, content: "x\n" },
      timeout_seconds: 10,
    });
    expect(started).toMatchObject({ ok: true, output: { status: "failed", error: { message: "a transient failure" } } });
    // Control: its first step ran (and is journaled) before it failed.
    expect(existsSync(path.join(root.path, "narrow", "first.txt"))).toBe(true);
    return (started.ok ? (started.output as { run_id: string }) : { run_id: "" }).run_id;
  }

  /**
   * `resume_run_id` from a run with `permissions`: `scope_refused` when it was refused for its
   * scope, any other refusal's code and message (a run with no saved checkpoint is refused too, and
   * must not pass for the refusal the attempt is about), or the run's status.
   */
  async function resumeFrom(
    registry: Registry,
    permissions: PermissionConfig,
    runId: string,
    allowedTools?: string[],
  ): Promise<string> {
    const result = await runIn(registry, permissions, allowedTools).call("run_workflow", {
      resume_run_id: runId,
      timeout_seconds: 10,
    });
    if (!result.ok) {
      const { code, message } = result.error as { code: string; message: string };
      return code === "resume_refused" && message.includes("was started with more permissions than this run has")
        ? "scope_refused"
        : `${code}: ${message}`;
    }
    return (result.output as { status: string }).status;
  }

  escapeAttempt("child-runs", "in-process: a narrower run of the same conversation resumes a wider run's workflow", async () => {
    let service: InProcessWorkflowService | undefined;
    const registry: Registry = registryWith(() => {
      service = workflowService(() => registry, { failures: 1 });
      return service;
    });
    const runId = await startFailing(registry);
    const attempt = await resumeFrom(registry, narrow(), runId);
    expect(existsSync(target)).toBe(false);
    expect(attempt).toBe("scope_refused");
    // The refusal left the run as it was.
    expect(await service?.get(runId)).toMatchObject({ status: "failed" });
    // Fewer tools alone (the same permissions) is refused too.
    expect(await resumeFrom(registry, wide(), runId, ["run_workflow"])).toBe("scope_refused");
    expect(existsSync(target)).toBe(false);
    // Positive control: a run with the starting run's scope resumes it, and the step writes.
    expect(await resumeFrom(registry, wide(), runId)).toBe("completed");
    expect(existsSync(target)).toBe(true);
    await registry.close();
  });

  const redisCapability = capability("redis");
  describe.skipIf(redisCapability.missing)(redisCapability.label("RedisWorkflowService"), () => {
    const server = useRedisServer();
    let redis: Redis;
    beforeAll(() => {
      redis = server.client();
    });

    escapeAttempt(
      "child-runs",
      "Redis: a narrower run resumes a wider run's workflow, here and in another process from its checkpoint",
      async () => {
        const prefix = `resume-${Date.now()}`;
        const services: RedisWorkflowService[] = [];
        const gate = { failures: 1 };
        const make = (): Registry => {
          const registry: Registry = registryWith(() => {
            const service = new RedisWorkflowService({ redis, local: workflowService(() => registry, gate), prefix });
            services.push(service);
            return service;
          });
          return registry;
        };
        const here = make();
        const there = make();
        try {
          const runId = await startFailing(here);
          // In the process that started it, and in one that would adopt it from Redis.
          expect(await resumeFrom(here, narrow(), runId)).toBe("scope_refused");
          expect(await resumeFrom(there, narrow(), runId)).toBe("scope_refused");
          expect(existsSync(target)).toBe(false);
          expect(await services[0]?.get(runId)).toMatchObject({ status: "failed" });
          // Positive control: a run with the same scope in the other process resumes it from the
          // checkpoint (a scope read back from JSON), and the step writes.
          const control = await runIn(there, wide()).call("run_workflow", { resume_run_id: runId, timeout_seconds: 10 });
          expect(control.ok ? (control.output as { status: string }).status : control.error, JSON.stringify(control)).toBe(
            "completed",
          );
          expect(existsSync(target)).toBe(true);
        } finally {
          for (const service of services) service.close();
          await here.close();
          await there.close();
        }
      },
      30_000,
    );
  });
});
