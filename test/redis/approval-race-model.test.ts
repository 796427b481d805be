/**
 * A model-based property test of the Redis approval broker: a call waits for approval in one
 * broker while two other brokers on their own connections (as two other processes would be)
 * approve, deny, approve with a wrong digest, at random moments around the request's deadline,
 * and the call's own signal may abort. Whatever the interleaving: the call settles; a request is
 * decided once (at most one `approve`/`deny` answers true, and then it is what Redis records);
 * the tool runs only when Redis records an approval, and at most once; a denied call does nothing;
 * an approval that answered true is not lost (without an abort, the call ran); a call whose
 * request was never announced (stored past its deadline) is denied and does nothing. Held on the
 * code as it was (red team round 15): a test of what holds, not of a fix.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const RUNS = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Action =
  | { readonly kind: "approve" | "deny" | "wrong-digest"; readonly by: 0 | 1; readonly atMs: number }
  | { readonly kind: "abort"; readonly atMs: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("approve" as const, "deny" as const, "wrong-digest" as const),
    by: fc.constantFrom(0 as const, 1 as const),
    atMs: fc.integer({ min: 0, max: 260 }),
  }),
  fc.record({ kind: fc.constant("abort" as const), atMs: fc.integer({ min: 0, max: 260 }) }),
);

describe.skipIf(redisCapability.missing)(redisCapability.label("RedisApprovalBroker under racing decisions (model)"), () => {
  const server = useRedisServer();
  const clients: Redis[] = [];
  const brokers: RedisApprovalBroker[] = [];
  afterAll(async () => {
    await Promise.all(brokers.map((broker) => broker.close()));
  });

  it("decided once, run only when Redis records the approval, never twice", async () => {
    // Three brokers for the whole file, each on its own connection (as three processes would be),
    // ready before the first round; each round's request has its own id. New brokers each round
    // (three connections, and the waiting one's subscriber connection, per round, 120 held to the
    // end) spent most of each round on connecting: at load 30, 0.3-3.6 s of a 0.6-4.3 s round
    // before the request was announced, the test's 120 s beside a second suite.
    for (let index = 0; index < 3; index++) clients.push(server.client());
    await Promise.all(clients.map((client) => client.ping()));
    const [waitingRedis, firstRedis, secondRedis] = clients as [Redis, Redis, Redis];
    const waiting = new RedisApprovalBroker({ redis: waitingRedis, prefix: "race", pollIntervalMs: 20, timeoutMs: 200 });
    const others = [firstRedis, secondRedis].map((redis) => new RedisApprovalBroker({ redis, prefix: "race" }));
    brokers.push(waiting, ...others);
    let round = 0;
    let unannounced = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 5 }), async (actions) => {
        round++;
        let ran = 0;
        const tool = defineTool({
          name: "act",
          description: "Acts once per approved call.",
          mutating: true,
          inputSchema: { type: "object" },
          handler: () => ++ran,
        });
        const run = createRegistry({ tools: [tool], approvals: waiting }).createRun({ permissions: { approval: "all" } });
        const controller = new AbortController();
        let unsubscribe = () => {};
        const requested = new Promise<string>((resolve) => {
          unsubscribe = waiting.events.on("approval.requested", (request) => resolve(request.id));
        });
        const call = run.call("act", { round }, { signal: controller.signal });
        // A request is announced once stored; one whose store outlasts its 200 ms deadline (new
        // connections on a loaded machine) is denied unannounced, and waiting for the announcement
        // alone never ended (this test's 120 s limit, 4 of 5 runs beside busy loops at load 20).
        const id = await Promise.race([requested, call.then(() => undefined)]);
        if (id === undefined) {
          unannounced++;
          expect(await call).toMatchObject({ ok: false, error: { code: "approval_denied" } });
          expect(ran).toBe(0);
          unsubscribe();
          await run.close();
          return;
        }
        const answers = await Promise.all(
          actions.map(async (step) => {
            await sleep(step.atMs);
            if (step.kind === "abort") {
              controller.abort();
              return { kind: step.kind, answer: false };
            }
            const broker = others[step.by] as RedisApprovalBroker;
            const answer =
              step.kind === "deny"
                ? await broker.deny(id, "no")
                : await broker.approve(id, step.kind === "wrong-digest" ? { argumentsDigest: "0".repeat(64) } : {});
            return { kind: step.kind, answer };
          }),
        );
        const result = await call;
        const resolution = await others[0]?.resolution(id);
        const won = answers.filter((entry) => entry.answer);
        // Decided once; the winner is what Redis records.
        expect(won.length).toBeLessThanOrEqual(1);
        expect(answers.filter((entry) => entry.kind === "wrong-digest" && entry.answer)).toEqual([]);
        expect(resolution?.decision).toMatch(/approved|denied/);
        if (won[0]?.kind === "approve") expect(resolution).toMatchObject({ decision: "approved", resolvedBy: "host" });
        if (won[0]?.kind === "deny") expect(resolution).toMatchObject({ decision: "denied", resolvedBy: "host" });
        if (won.length === 0) expect(resolution?.resolvedBy).toMatch(/timeout|abort/);
        // Run at most once, and only under a recorded approval; a denied call did nothing.
        expect(ran).toBeLessThanOrEqual(1);
        if (ran === 1) expect(resolution?.decision).toBe("approved");
        if (resolution?.decision === "denied") expect({ ran, ok: result.ok }).toEqual({ ran: 0, ok: false });
        if (result.ok) expect(ran).toBe(1);
        // An approval that answered true is not lost: without an abort, the call ran with it.
        if (won[0]?.kind === "approve" && !actions.some((step) => step.kind === "abort")) expect(ran).toBe(1);
        unsubscribe();
        await run.close();
      }),
      { numRuns: RUNS },
    );
    // Control: the races were run, not mostly skipped as calls denied before anyone could decide.
    expect(unannounced).toBeLessThanOrEqual(RUNS / 4);
  }, 120_000);
});
