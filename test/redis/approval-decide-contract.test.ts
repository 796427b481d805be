// One contract for `decide` on both brokers: the same refusals, for the same reasons, so a host
// that moves from the in-memory broker to Redis reads the same answers. Against a real redis-server.
import {
  type ApprovalDecideOptions,
  type ApprovalDecisionResult,
  type ApprovalRequest,
  type ApprovalResolution,
  approvalArgumentsDigest,
  InMemoryApprovalBroker,
} from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import { describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");

interface Contender {
  request(callId: string, timeoutMs?: number): Promise<{ id: string; settled: Promise<ApprovalResolution> }>;
  decide(id: string, decision: "approved" | "denied", options?: ApprovalDecideOptions): Promise<ApprovalDecisionResult>;
  approve(id: string): Promise<boolean>;
  deny(id: string, reason?: string): Promise<boolean>;
  pendingIds(): Promise<string[]>;
}

const base = {
  runId: "run-1",
  toolName: "deploy",
  input: { target: "prod", replicas: 2 },
  mutating: true,
  policy: "destructive",
} as const;

type Broker = InMemoryApprovalBroker | RedisApprovalBroker;

function contender(broker: Broker): Contender {
  return {
    async request(callId, timeoutMs) {
      const requested = new Promise<ApprovalRequest>((resolve) =>
        broker.events.on("approval.requested", (request) => {
          if (request.callId === callId) resolve(request);
        }),
      );
      const settled = broker.request({ ...base, callId }, timeoutMs === undefined ? {} : { timeoutMs });
      const request = await requested;
      // Redis: the request is stored (listed) before `approval.requested`; wait for the listing anyway.
      for (let i = 0; i < 200 && !(await broker.pending()).some((r) => r.id === request.id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { id: request.id, settled };
    },
    decide: async (id, decision, options) => broker.decide(id, decision, options),
    approve: async (id) => broker.approve(id),
    deny: async (id, reason) => broker.deny(id, reason),
    pendingIds: async () => (await broker.pending()).map((request) => request.id),
  };
}

const kinds: [string, (server: ReturnType<typeof useRedisServer>, prefix: string) => Broker][] = [
  ["InMemoryApprovalBroker", () => new InMemoryApprovalBroker()],
  ["RedisApprovalBroker", (server, prefix) => new RedisApprovalBroker({ redis: server.client(), prefix, pollIntervalMs: 50 })],
];

describe.skipIf(redisCapability.missing)(redisCapability.label("ApprovalBroker.decide contract"), () => {
  const server = useRedisServer();
  let prefixes = 0;

  describe.each(kinds)("%s", (_name, make) => {
    const withBroker = async (body: (c: Contender) => Promise<void>) => {
      const broker = make(server, `decide-${++prefixes}`);
      try {
        await body(contender(broker));
      } finally {
        if (broker instanceof RedisApprovalBroker) await broker.close();
      }
    };

    it("answers unknown for an id nobody requested", () =>
      withBroker(async (c) => {
        expect(await c.decide("no-such-request", "approved")).toEqual({ ok: false, reason: "unknown" });
        expect(await c.decide("no-such-request", "denied")).toEqual({ ok: false, reason: "unknown" });
        expect(await c.approve("no-such-request")).toBe(false);
      }));

    it("approves a pending request once (ok), then answers decided, and the call runs approved", () =>
      withBroker(async (c) => {
        const { id, settled } = await c.request("c-approve");
        expect(await c.decide(id, "approved")).toEqual({ ok: true });
        expect(await settled).toMatchObject({ id, decision: "approved", resolvedBy: "host" });
        expect(await c.decide(id, "denied")).toEqual({ ok: false, reason: "decided" });
        expect(await c.decide(id, "approved")).toEqual({ ok: false, reason: "decided" });
        expect(await c.deny(id)).toBe(false);
      }));

    it("denies with the reason given; approve/deny wrappers still answer booleans", () =>
      withBroker(async (c) => {
        const { id, settled } = await c.request("c-deny");
        expect(await c.decide(id, "denied", { reason: "not on a Friday" })).toEqual({ ok: true });
        expect(await settled).toMatchObject({ decision: "denied", reason: "not on a Friday", resolvedBy: "host" });
        const second = await c.request("c-wrapper");
        expect(await c.approve(second.id)).toBe(true);
        expect(await c.approve(second.id)).toBe(false);
        expect(await c.decide(second.id, "approved")).toEqual({ ok: false, reason: "decided" });
      }));

    it("refuses a digest for other arguments (digest_mismatch, still pending); the right digest decides", () =>
      withBroker(async (c) => {
        const { id, settled } = await c.request("c-digest");
        const other = approvalArgumentsDigest({ ...base, callId: "c-digest", input: { target: "staging", replicas: 2 } });
        expect(await c.decide(id, "approved", { argumentsDigest: other })).toEqual({ ok: false, reason: "digest_mismatch" });
        expect(await c.pendingIds()).toContain(id);
        // Key order does not matter to the digest.
        const shown = approvalArgumentsDigest({ ...base, callId: "c-digest", input: { replicas: 2, target: "prod" } });
        expect(await c.decide(id, "approved", { argumentsDigest: shown })).toEqual({ ok: true });
        expect(await settled).toMatchObject({ decision: "approved" });
      }));

    it("answers expired for a request its timeout denied", () =>
      withBroker(async (c) => {
        const { id, settled } = await c.request("c-expire", 300);
        expect(await settled).toMatchObject({ decision: "denied", resolvedBy: "timeout" });
        expect(await c.decide(id, "approved")).toEqual({ ok: false, reason: "expired" });
        expect(await c.decide(id, "denied")).toEqual({ ok: false, reason: "expired" });
      }));
  });

  it("Redis: a person's decision that finds the request past its deadline answers expired (and denies it)", async () => {
    // The requester's connection is cut once the request is stored, so its own deadline denial
    // never reaches Redis: the approver finds the request pending past its deadline.
    const prefix = `decide-${++prefixes}`;
    const requesterClient = server.client();
    const requester = new RedisApprovalBroker({ redis: requesterClient, prefix, pollIntervalMs: 50 });
    const approver = new RedisApprovalBroker({ redis: server.client(), prefix, pollIntervalMs: 50 });
    try {
      const settled = requester.request({ ...base, callId: "c-late" }, { timeoutMs: 300 });
      let id: string | undefined;
      for (let i = 0; i < 200 && id === undefined; i++) {
        id = (await server.client().zrange(`${prefix}:approvals:pending`, 0, -1))[0];
        if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(id).toBeDefined();
      requesterClient.disconnect();
      await settled;
      expect(await server.client().hget(`${prefix}:approval:${id}`, "status")).toBe("pending");
      expect(await approver.decide(id as string, "approved")).toEqual({ ok: false, reason: "expired" });
      expect(await server.client().hmget(`${prefix}:approval:${id}`, "status", "resolvedBy")).toEqual(["denied", "timeout"]);
      expect(await approver.decide(id as string, "approved")).toEqual({ ok: false, reason: "expired" });
    } finally {
      await requester.close();
      await approver.close();
    }
  });

  it("Redis: an approval of a request whose stored input was cut answers input_truncated unless seen", async () => {
    const prefix = `decide-${++prefixes}`;
    const broker = new RedisApprovalBroker({ redis: server.client(), prefix, pollIntervalMs: 50, maxStoredInputChars: 5 });
    try {
      const c = contender(broker);
      const { id, settled } = await c.request("c-cut");
      expect(await c.decide(id, "approved")).toEqual({ ok: false, reason: "input_truncated" });
      expect(await c.pendingIds()).toContain(id);
      expect(await broker.decide(id, "approved", { inputTruncatedSeen: true })).toEqual({ ok: true });
      expect(await settled).toMatchObject({ decision: "approved" });
    } finally {
      await broker.close();
    }
  });
});
