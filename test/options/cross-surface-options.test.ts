/**
 * One option name, one meaning and one range on every surface (stop 37). Each group below is an
 * option that two or more factories take with the same meaning (the in-process and the Redis or
 * BullMQ implementation of one service, the brokers and `createRun`, the MCP server config and
 * the MCP tools); every hostile value must be accepted by all of them or refused by all of them.
 * Before: `historyLimit` 0 and `Infinity` were accepted by `InProcessCronScheduler` and refused by
 * `BullMqCronScheduler`; the MCP `maxOutputBytes` 0.5 was accepted by a server config and by
 * `createConnectMcpTool` (floored to 0: every output cut to nothing) and refused by the resource
 * and prompt tools; an approval timeout of 1.5 ms passed every check and failed every request on
 * Redis (PEXPIRE takes whole ms).
 */
import { createRegistry, InMemoryApprovalBroker } from "agent-tool-catalog";
import { InProcessCallbackManager, InProcessCronScheduler, InProcessSubagentManager } from "agent-tool-catalog/host";
import {
  connectMcpServer,
  createConnectMcpTool,
  createMcpPromptTools,
  createMcpResourceTools,
  McpServerSet,
} from "agent-tool-catalog/mcp";
import {
  BullMqCallbackManager,
  BullMqCronScheduler,
  RedisApprovalBroker,
  RedisRunStore,
  RedisSubagentManager,
  RedisWorkflowService,
} from "agent-tool-catalog/redis";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { inMemoryFixture } from "../mcp/support/in-memory-fixture.js";
import { capability } from "../support/capabilities.js";
import { HOSTILE_VALUES, thrownBy } from "../support/hostile-options.js";
import { useRedisServer } from "../support/redis-server.js";

type Surface = readonly [label: string, give: (value: never) => unknown];

/**
 * For each hostile value, which surfaces accept it; every value on which they disagree, as
 * `value: accepted by A, B; refused by C`. A refusal must name the option (`data.field`).
 */
async function disagreements(option: string, surfaces: readonly Surface[]): Promise<string[]> {
  const out: string[] = [];
  for (const value of HOSTILE_VALUES) {
    const accepted: string[] = [];
    const refused: string[] = [];
    for (const [label, give] of surfaces) {
      const error = await thrownBy(() => give(value as never));
      if (error === undefined) accepted.push(label);
      else {
        const field = (error as { data?: { field?: unknown } }).data?.field;
        refused.push(field === option ? label : `${label} (not naming ${option}: ${String(error)})`);
      }
    }
    const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
    if (accepted.length > 0 && refused.length > 0)
      out.push(`${shown}: accepted by ${accepted.join(", ")}; refused by ${refused.join(", ")}`);
    else if (refused.some((label) => label.includes("(not naming"))) out.push(`${shown}: ${refused.join(", ")}`);
  }
  return out;
}

const lazyRedis = new Redis({ lazyConnect: true, port: 1 });
const local = new InProcessSubagentManager({ runner: { runPrompt: async () => ({ output: "" }) } });

async function connectWith(config: object): Promise<void> {
  const registry = createRegistry();
  try {
    await connectMcpServer(registry, { ...inMemoryFixture("fixture"), ...config });
  } finally {
    await registry.close();
  }
}

const GROUPS: readonly { option: string; surfaces: readonly Surface[] }[] = [
  {
    option: "timeoutMs",
    surfaces: [
      ["InMemoryApprovalBroker", (timeoutMs) => new InMemoryApprovalBroker({ timeoutMs })],
      ["RedisApprovalBroker", (timeoutMs) => new RedisApprovalBroker({ redis: lazyRedis, timeoutMs })],
    ],
  },
  {
    option: "maxOutputBytes",
    surfaces: [
      ["MCP server config", (maxOutputBytes) => connectWith({ maxOutputBytes })],
      [
        "createConnectMcpTool",
        (maxOutputBytes) => createConnectMcpTool(createRegistry(), { allowedUrls: ["https://mcp.example"], maxOutputBytes }),
      ],
      ["createMcpPromptTools", (maxOutputBytes) => createMcpPromptTools(new McpServerSet(), { maxOutputBytes })],
      ["createMcpResourceTools", (maxOutputBytes) => createMcpResourceTools(new McpServerSet(), { maxOutputBytes })],
    ],
  },
  {
    option: "retainMs",
    surfaces: [
      ["RedisApprovalBroker", (retainMs) => new RedisApprovalBroker({ redis: lazyRedis, retainMs })],
      ["RedisSubagentManager", (retainMs) => new RedisSubagentManager({ redis: lazyRedis, local, retainMs })],
      [
        "RedisWorkflowService",
        (retainMs) =>
          new RedisWorkflowService({ redis: lazyRedis, local: { onJournal: () => () => undefined } as never, retainMs }),
      ],
    ],
  },
  {
    option: "operationTimeoutMs",
    surfaces: [
      ["RedisRunStore", (operationTimeoutMs) => new RedisRunStore({ redis: lazyRedis, operationTimeoutMs })],
      ["RedisApprovalBroker", (operationTimeoutMs) => new RedisApprovalBroker({ redis: lazyRedis, operationTimeoutMs })],
      ["RedisSubagentManager", (operationTimeoutMs) => new RedisSubagentManager({ redis: lazyRedis, local, operationTimeoutMs })],
    ],
  },
];

describe("an option shared by several surfaces has one range on all of them", () => {
  for (const { option, surfaces } of GROUPS) {
    it(`${option}: ${surfaces.map(([label]) => label).join(", ")}`, async () => {
      expect(await disagreements(option, surfaces)).toEqual([]);
    });
  }

  it("approvalTimeoutMs of createRun takes what the brokers' timeoutMs takes", async () => {
    const run = (approvalTimeoutMs: never) => createRegistry().createRun({ approvalTimeoutMs });
    const broker = (timeoutMs: never) => new InMemoryApprovalBroker({ timeoutMs });
    for (const value of HOSTILE_VALUES) {
      const [byRun, byBroker] = [await thrownBy(() => run(value as never)), await thrownBy(() => broker(value as never))];
      expect([value, byRun === undefined], String(value)).toEqual([value, byBroker === undefined]);
    }
  });

  it("the probe sees a disagreement (positive control)", async () => {
    const found = await disagreements("maxOutputBytes", [
      ["createMcpPromptTools", (maxOutputBytes) => createMcpPromptTools(new McpServerSet(), { maxOutputBytes })],
      ["a surface that takes anything", () => undefined],
    ]);
    expect(found.length).toBeGreaterThan(0);
    expect(found).toContain("0.5: accepted by a surface that takes anything; refused by createMcpPromptTools");
  });
});

const redisCapability = capability("redis");

describe.skipIf(redisCapability.missing)(
  redisCapability.label("in-process and BullMQ services, with a real redis-server"),
  () => {
    const server = useRedisServer();
    const { closers } = server;
    const connection = () => ({ host: "127.0.0.1", port: server.port });
    const cron = (options: object) => {
      const scheduler = new BullMqCronScheduler({ connection: connection(), prefix: "cross", ...options });
      closers.push(() => scheduler.close());
      return scheduler;
    };
    const callbacks = (options: object) => {
      const manager = new BullMqCallbackManager({ connection: connection(), prefix: "cross", onFire: () => {}, ...options });
      closers.push(() => manager.close());
      return manager;
    };

    it("an approval timeout answers the same in memory and on Redis: whole ms wait, a fraction is refused where given", async () => {
      const redis = server.client();
      const onRedis = new RedisApprovalBroker({ redis });
      const brokers = [new InMemoryApprovalBroker(), onRedis];
      try {
        const base = { runId: "r", callId: "c", toolName: "deploy", input: {}, mutating: true, policy: "destructive" as const };
        for (const broker of brokers) {
          // Control: a whole number of ms waits and times out (denied) on both.
          await expect(broker.request(base, { timeoutMs: 30 })).resolves.toMatchObject({
            decision: "denied",
            resolvedBy: "timeout",
          });
          // Before: 30.5 ms timed out in memory, and on Redis failed with "ERR value is not an integer" from PEXPIRE.
          expect(await thrownBy(() => broker.request(base, { timeoutMs: 30.5 }))).toMatchObject({
            code: "invalid_approval_timeout",
            data: { field: "timeoutMs" },
          });
        }
      } finally {
        await onRedis.close();
        redis.disconnect();
      }
    });

    it("historyLimit: InProcessCronScheduler and BullMqCronScheduler", async () => {
      expect(
        await disagreements("historyLimit", [
          ["InProcessCronScheduler", (historyLimit) => new InProcessCronScheduler({ historyLimit })],
          ["BullMqCronScheduler", (historyLimit) => cron({ historyLimit })],
        ]),
      ).toEqual([]);
    });

    it("maxOutputChars: InProcessCronScheduler and BullMqCronScheduler", async () => {
      expect(
        await disagreements("maxOutputChars", [
          ["InProcessCronScheduler", (maxOutputChars) => new InProcessCronScheduler({ maxOutputChars })],
          ["BullMqCronScheduler", (maxOutputChars) => cron({ maxOutputChars })],
        ]),
      ).toEqual([]);
    });

    it("maxPendingPerConversation and retainMs: InProcessCallbackManager, BullMqCallbackManager, the Redis brokers", async () => {
      expect(
        await disagreements("maxPendingPerConversation", [
          [
            "InProcessCallbackManager",
            (maxPendingPerConversation) => new InProcessCallbackManager({ onFire: () => {}, maxPendingPerConversation }),
          ],
          ["BullMqCallbackManager", (maxPendingPerConversation) => callbacks({ maxPendingPerConversation })],
        ]),
      ).toEqual([]);
      expect(
        await disagreements("retainMs", [
          ["BullMqCallbackManager", (retainMs) => callbacks({ retainMs })],
          ["RedisApprovalBroker", (retainMs) => new RedisApprovalBroker({ redis: lazyRedis, retainMs })],
        ]),
      ).toEqual([]);
    });
  },
);
