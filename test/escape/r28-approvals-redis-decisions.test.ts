/**
 * Red team round 28: decisions on `RedisApprovalBroker` requests made by someone other than the
 * waiting process. Two attacks:
 *
 * - A decision meant for another call: an approver (a hostile or confused page, a replayed HTTP
 *   request) sends `approve(id, { argumentsDigest })` with the digest of a sibling request (the
 *   same call id and input in another run, another tool, another call id, other input), or
 *   replays an approval or denial after the request was decided.
 * - Two real processes deciding the same twelve requests at the same moment, one approving all,
 *   one denying all (each bound to the digest it listed), while the calls wait in this process.
 *
 * Held: a decision binds to its request's digest and is taken once; what a call did is what the
 * one decider that was answered `true` decided. Controls: the right digest approves; without a
 * rival every approval runs its call.
 */
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { repoRoot, spawnNode } from "../support/child-entry.js";
import { deleteNoteTool } from "../support/note-tools.js";
import { useRedisServer } from "../support/redis-server.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const redisCapability = capability("redis");
const decider = fileURLToPath(new URL("./support/r28-racing-decider.mjs", import.meta.url));

describe.skipIf(redisCapability.missing)(redisCapability.label("decisions on Redis approval requests from elsewhere"), () => {
  const server = useRedisServer();
  let prefix = 0;

  function setup() {
    const done: string[] = [];
    const name = `r28d${++prefix}`;
    const waiting = new RedisApprovalBroker({ redis: server.client(), prefix: name, timeoutMs: 60_000, pollIntervalMs: 100 });
    // The approver: its own connection, as another process's broker would be.
    const approver = new RedisApprovalBroker({ redis: server.client(), prefix: name });
    server.closers.push(
      () => waiting.close(),
      () => approver.close(),
    );
    const registry = createRegistry({ approvals: waiting, tools: [deleteNoteTool({ onDelete: (title) => done.push(title) })] });
    const run = (runId: string): Run => registry.createRun({ runId, permissions: { approval: "destructive" } });
    return { done, name, approver, run };
  }

  escapeAttempt(
    "approvals",
    "a decision bound to a sibling request's digest (another run, tool, call id, input) or replayed after the decision changes nothing",
    async () => {
      const { done, approver, run } = setup();
      const controller = new AbortController();
      const a = run("tenant-a").call("delete_note", { title: "thesis" }, { callId: "call_1", signal: controller.signal });
      const b = run("tenant-b").call("delete_note", { title: "thesis" }, { callId: "call_1", signal: controller.signal });
      await expect.poll(() => approver.pending().then((list) => list.length), { timeout: 20_000 }).toBe(2);
      const listed = await approver.pending();
      const requestA = listed.find((request) => request.runId === "tenant-a");
      const requestB = listed.find((request) => request.runId === "tenant-b");
      if (requestA === undefined || requestB === undefined) throw new Error("both requests are listed");
      const digest = (change: Partial<{ runId: string; callId: string; toolName: string; input: unknown }>) =>
        RedisApprovalBroker.argumentsDigest({ ...requestA, ...change });
      const foreign = [
        // tenant-b's request: the same call id, tool and input in another run.
        requestB.argumentsDigest,
        digest({ runId: "tenant-a " }),
        digest({ toolName: "read_note" }),
        digest({ callId: "call_2" }),
        digest({ input: { title: "thesis " } }),
        digest({ input: { title: "thesis", extra: true } }),
      ];
      expect(new Set(foreign).size).toBe(foreign.length);
      for (const argumentsDigest of foreign) {
        expect(await approver.approve(requestA.id, { argumentsDigest }), argumentsDigest).toBe(false);
        expect(await approver.deny(requestA.id, "x", { argumentsDigest }), argumentsDigest).toBe(false);
      }
      expect((await approver.pending()).map((request) => request.id).sort()).toEqual([requestA.id, requestB.id].sort());
      expect(done).toEqual([]);
      // Control: the request's own digest approves it, once; replays answer false.
      expect(await approver.approve(requestA.id, { argumentsDigest: requestA.argumentsDigest })).toBe(true);
      expect(await a).toMatchObject({ ok: true, output: "deleted thesis" });
      expect(await approver.approve(requestA.id, { argumentsDigest: requestA.argumentsDigest })).toBe(false);
      expect(await approver.deny(requestA.id)).toBe(false);
      expect(await approver.approve(requestB.id, { argumentsDigest: requestA.argumentsDigest })).toBe(false);
      expect(await approver.deny(requestB.id, "no", { argumentsDigest: requestB.argumentsDigest })).toBe(true);
      expect(await approver.approve(requestB.id, { argumentsDigest: requestB.argumentsDigest })).toBe(false);
      expect(await b).toMatchObject({ ok: false, error: { code: "approval_denied" } });
      expect(await approver.resolution(requestA.id)).toMatchObject({ decision: "approved" });
      expect(await approver.resolution(requestB.id)).toMatchObject({ decision: "denied" });
      controller.abort();
      expect(done).toEqual(["thesis"]);
    },
  );

  escapeAttempt(
    "approvals",
    "two processes approving and denying the same twelve requests at once: each request is decided by one, and each call did what that one decided",
    async () => {
      const { done, name, approver, run } = setup();
      const titles = Array.from({ length: 12 }, (_, index) => `note ${index}`);
      const calls = titles.map((title, index) => run(`run-${index % 3}`).call("delete_note", { title }));
      await expect.poll(() => approver.pending().then((list) => list.length), { timeout: 30_000 }).toBe(12);
      const listed = await approver.pending();
      const goKey = `${name}:go`;
      const children = (["approve", "deny"] as const).map((decision) => startDecider([server.url, name, decision, goKey, "12"]));
      try {
        for (const child of children) expect(await child.next()).toEqual({ ready: true });
        const go = new Redis(server.url);
        await go.rpush(goKey, "go", "go");
        go.disconnect();
        const [approved, denied] = (await Promise.all(children.map((child) => child.next()))) as Record<string, boolean>[];
        const results = (await Promise.all(calls)) as ToolCallResult[];
        const byId = new Map(listed.map((request) => [request.id, (request.input as { title: string }).title]));
        const ranTitles: string[] = [];
        for (const [id, title] of byId) {
          // Exactly one of the two was told it decided.
          expect([approved?.[id], denied?.[id]].filter(Boolean), id).toHaveLength(1);
          const result = results[titles.indexOf(title as string)];
          if (approved?.[id] === true) {
            expect(result, title).toMatchObject({ ok: true });
            ranTitles.push(title as string);
            expect(await approver.resolution(id)).toMatchObject({ decision: "approved" });
          } else {
            expect(result, title).toMatchObject({ ok: false, error: { code: "approval_denied" } });
            expect(await approver.resolution(id)).toMatchObject({ decision: "denied" });
          }
        }
        expect([...done].sort()).toEqual(ranTitles.sort());
      } finally {
        await Promise.all(children.map((child) => child.stop()));
      }
    },
    120_000,
  );

  it("control: a lone approving process approves every request, and every call runs", async () => {
    const { done, name, approver, run } = setup();
    const titles = ["one", "two", "three"];
    const calls = titles.map((title) => run("solo").call("delete_note", { title }));
    await expect.poll(() => approver.pending().then((list) => list.length), { timeout: 20_000 }).toBe(3);
    const child = startDecider([server.url, name, "approve", `${name}:go`, "3"]);
    try {
      expect(await child.next()).toEqual({ ready: true });
      const go = new Redis(server.url);
      await go.rpush(`${name}:go`, "go");
      go.disconnect();
      expect(Object.values(await child.next())).toEqual([true, true, true]);
      expect(await Promise.all(calls)).toMatchObject([{ ok: true }, { ok: true }, { ok: true }]);
      expect([...done].sort()).toEqual([...titles].sort());
    } finally {
      await child.stop();
    }
  }, 60_000);
});

/** A decider process (test/escape/support/r28-racing-decider.mjs) and its next JSON line. */
function startDecider(args: string[]): { stop: () => Promise<void>; next: () => Promise<Record<string, unknown>> } {
  const child = spawnNode(decider, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return {
    // It exits by itself after its answer; killed when the test failed before that.
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
    next: async () => {
      const line = await lines.next();
      if (line.done === true) throw new Error("the decider process ended without output");
      return JSON.parse(line.value) as Record<string, unknown>;
    },
  };
}
