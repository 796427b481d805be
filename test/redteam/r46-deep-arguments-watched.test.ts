/**
 * Red team round 46: a model's arguments nested 20,000 levels deep (a 40 KB string) reach the
 * handler of a tool whose schema does not recurse (`{ type: "object" }`), as sent, in a run nobody
 * watches. The same call in a run with a `tool.called` listener (a logger, OpenTelemetry) answered
 * `internal_error` ("failed inside the tool catalog"), and under an approval policy
 * `approval_denied` saying the approval service failed: the copies the library hands listeners and
 * approvers were frozen recursively, and the approval digest a page computes recursed too; a
 * recorded transcript lost the call's entry (`JSON.stringify` overflowed). Each watched call must
 * answer as the unwatched one does, a page's digest must match, the transcript must hold the call.
 */

import { createHash } from "node:crypto";
import {
  type ApprovalRequest,
  approvalArgumentsDigest,
  createRegistry,
  defineTool,
  InMemoryApprovalBroker,
} from "agent-tool-catalog";
import { InMemoryTranscriptStore, recordRunTranscript } from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";

const DEPTH = 20_000;
const deep = (depth: number) => `{"v":${"[".repeat(depth)}${"]".repeat(depth)}}`;

/** How deeply the value's `v` nests, walked without recursion. */
function depthOf(input: unknown): number {
  let level = (input as { v: unknown }).v;
  let depth = 0;
  for (; Array.isArray(level); depth++) level = level[0];
  return depth;
}

/** The digest as earlier versions computed it (a recursive copy with sorted keys), for shallow values. */
function earlierDigest(request: { runId: string; callId: string; toolName: string; input: unknown }): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      Object.defineProperty(out, key, {
        value: canonical((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  const text = JSON.stringify([request.runId, request.callId, request.toolName, canonical(request.input)]);
  return createHash("sha256").update(text).digest("hex");
}

function setup() {
  const got: unknown[] = [];
  const tool = defineTool({
    name: "take",
    description: "Takes any JSON value in v.",
    mutating: true,
    inputSchema: { type: "object", properties: { v: {} } },
    handler: (input: unknown) => {
      got.push(input);
      return "took";
    },
  });
  const broker = new InMemoryApprovalBroker();
  const registry = createRegistry({ tools: [tool], approvals: broker });
  return { got, broker, registry };
}

describe("arguments nested 20,000 levels deep, watched", () => {
  it("control: unwatched, they reach the handler as sent", async () => {
    const { got, registry } = setup();
    expect(await registry.createRun().call("take", deep(DEPTH))).toMatchObject({ ok: true, output: "took" });
    expect(depthOf(got[0])).toBe(DEPTH);
  });

  it("a tool.called listener on the run or the registry sees them frozen; the call answers as unwatched", async () => {
    const { got, registry } = setup();
    const seen: unknown[] = [];
    const run = registry.createRun();
    run.events.on("tool.called", (event) => seen.push(event.input));
    expect(await run.call("take", deep(DEPTH))).toMatchObject({ ok: true, output: "took" });
    registry.events.on("tool.called", (event) => seen.push(event.input));
    expect(await registry.createRun().call("take", deep(DEPTH))).toMatchObject({ ok: true, output: "took" });
    expect(got.map(depthOf)).toEqual([DEPTH, DEPTH]);
    expect(seen.map(depthOf)).toEqual([DEPTH, DEPTH]);
    let level = (seen[0] as { v: unknown }).v;
    for (let depth = 0; depth < DEPTH - 1; depth++) level = (level as unknown[])[0];
    expect(Object.isFrozen(level)).toBe(true);
  });

  it("a run's transcript records the call with its arguments", async () => {
    const { got, registry } = setup();
    const store = new InMemoryTranscriptStore({ maxTextLength: Number.POSITIVE_INFINITY });
    const errors: unknown[] = [];
    const run = registry.createRun();
    recordRunTranscript(run, store, { onError: (error) => errors.push(error) });
    expect(await run.call("take", deep(DEPTH))).toMatchObject({ ok: true, output: "took" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(errors).toEqual([]);
    const calls = (await store.entries({ runId: run.id })).filter((entry) => entry.kind === "tool_call");
    expect(calls.map((entry) => entry.text)).toEqual([deep(DEPTH)]);
    expect(got.map(depthOf)).toEqual([DEPTH]);
  });

  it("an approver sees them, a page's digest matches, and the approved call runs", async () => {
    const { got, broker, registry } = setup();
    const requests: ApprovalRequest[] = [];
    broker.events.on("approval.requested", (request) => {
      requests.push(request);
      queueMicrotask(() => {
        // What an approval page does: decide with the digest of the arguments it showed.
        const decided = broker.decide(request.id, "approved", { argumentsDigest: approvalArgumentsDigest(request) });
        if (!decided.ok) broker.decide(request.id, "denied", { reason: `page: ${decided.reason}` });
      });
    });
    // A page that failed leaves the request to its deadline: short, so a failure shows at once.
    const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 3_000 });
    expect(await run.call("take", deep(DEPTH))).toMatchObject({ ok: true, output: "took" });
    expect(requests.map((request) => depthOf(request.input))).toEqual([DEPTH]);
    expect(got.map(depthOf)).toEqual([DEPTH]);
  });

  it("the digest still tells arguments apart, at any depth and in key order alike", () => {
    const base = { runId: "r", callId: "c", toolName: "take" };
    const at = (text: string) => approvalArgumentsDigest({ ...base, input: JSON.parse(text) });
    expect(at(deep(DEPTH))).toBe(at(deep(DEPTH)));
    expect(at(deep(DEPTH))).not.toBe(at(deep(DEPTH - 1)));
    expect(at('{"a":1,"b":[{"y":2,"x":"\\u2028"}]}')).toBe(at('{"b":[{"x":"\\u2028","y":2}],"a":1}'));
    // The digest of shallow arguments is the one earlier versions computed (a page and a broker of
    // two versions agree): sha256 of the canonical JSON, keys sorted.
    const sparse: unknown[] = [1];
    sparse[3] = "x";
    const values: unknown[] = [
      undefined,
      null,
      "text",
      -0,
      Number.NaN,
      [],
      {},
      sparse,
      [undefined, () => 1, Symbol("s"), Number.POSITIVE_INFINITY],
      { b: undefined, a: () => 1, c: [{}], d: null },
      JSON.parse('{"__proto__":{"z":1,"y":[2]},"constructor":"c","\u00e9":1,"e":2,"E":3,"":0}'),
      { when: new Date(0), boxed: new String("ab"), list: [[[["deep"]]]] },
    ];
    for (const input of values) expect(approvalArgumentsDigest({ ...base, input })).toBe(earlierDigest({ ...base, input }));
    expect(at('{"b":[1,null,"x"],"a":{"d":true,"c":-0.5}}')).toBe(
      "986f724445895ac55ee426037e6bdac195ce1d14a30a9e5ee0f190b83b7633cf",
    );
  });
});
