import type { AddressInfo } from "node:net";
import { createRegistry } from "agent-tool-catalog";
import { afterEach, describe, expect, it } from "vitest";
import { createApprovalServer } from "../examples/approval-http-server.js";
import { sampleTools } from "./support/sample-tools.js";

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function start() {
  const registry = createRegistry({ tools: sampleTools() });
  const token = "approval-test-token-0123456789";
  const server = createApprovalServer(registry.approvals, { token });
  const headers = { authorization: `Bearer ${token}` };
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = (path: string, body?: unknown) =>
    fetch(
      `${base}${path}`,
      body === undefined ? { method: "POST", headers } : { method: "POST", headers, body: JSON.stringify(body) },
    ).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
  const get = (path: string) =>
    fetch(`${base}${path}`, { headers }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { approvals: { id: string }[] },
    }));
  return { registry, post, get };
}

async function waitForPending(
  get: (path: string) => Promise<{ body: { approvals: { id: string }[] } }>,
  runId: string,
  count: number,
) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { body } = await get(`/runs/${runId}/approvals`);
    if (body.approvals.length === count) return body.approvals;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`run ${runId} never had ${count} pending approvals`);
}

describe("approvals over HTTP on 127.0.0.1", () => {
  it("approves a waiting call with POST /runs/:id/approve and denies another with /deny", async () => {
    const { registry, post, get } = await start();
    const run = registry.createRun({ runId: "run-1", permissions: { approval: "destructive" } });

    const approvedCall = run.call("write", { path: "a.txt", content: "hi" });
    const [pending] = await waitForPending(get, "run-1", 1);
    // Without the id of the request that was shown, nothing is approved.
    expect(await post("/runs/run-1/approve", {})).toMatchObject({ status: 400, body: { error: { code: "invalid_body" } } });
    expect(await registry.approvals.pending({ runId: "run-1" })).toHaveLength(1);
    expect(await post("/runs/run-1/approve", { approval_id: pending?.id })).toEqual({
      status: 200,
      body: { id: pending?.id, decision: "approved" },
    });
    expect(await approvedCall).toMatchObject({ ok: true, output: { path: "a.txt", bytes: 2 } });

    const deniedCall = run.call("write", { path: "b.txt", content: "no" });
    const [second] = await waitForPending(get, "run-1", 1);
    expect((await post("/runs/run-1/deny", { approval_id: second?.id, reason: "not that file" })).status).toBe(200);
    expect(await deniedCall).toMatchObject({
      ok: false,
      error: { code: "approval_denied", message: expect.stringContaining("not that file") },
    });
    expect((await post("/runs/run-1/approve", { approval_id: second?.id })).status).toBe(404);
  });

  it("answers bad requests with structured errors", async () => {
    const { registry, post, get } = await start();
    const run = registry.createRun({ runId: "run-2", permissions: { approval: "all" } });
    expect((await post("/runs/run-2/approve")).status).toBe(400);
    expect((await post("/runs/run-2/deny", {})).status).toBe(404);
    const calls = [run.call("read", { path: "x" }), run.call("read", { path: "y" })];
    await waitForPending(get, "run-2", 2);
    expect(await post("/runs/run-2/deny", {})).toMatchObject({ status: 409, body: { error: { code: "no_such_approval" } } });
    expect((await post("/runs/other/approve", { approval_id: "x" })).status).toBe(404);
    expect((await post("/runs/run-2/approve", { approval_id: 7 })).status).toBe(400);
    expect((await get("/nowhere")).status).toBe(404);
    for (const request of await registry.approvals.pending()) await registry.approvals.deny(request.id);
    expect((await Promise.all(calls)).map((result) => result.ok)).toEqual([false, false]);
  });

  it("never approves a request other than the one shown: a withdrawn request's id does not approve its replacement", async () => {
    const { registry, post, get } = await start();
    const run = registry.createRun({ runId: "run-3", permissions: { approval: "destructive" } });
    const abort = new AbortController();
    const shownCall = run.call("write", { path: "notes.txt", content: "ok" }, { signal: abort.signal });
    const [shown] = await waitForPending(get, "run-3", 1);
    abort.abort();
    expect(await shownCall).toMatchObject({ ok: false });
    const otherCall = run.call("write", { path: ".bashrc", content: "evil" });
    const [other] = await waitForPending(get, "run-3", 1);
    expect(other?.id).not.toBe(shown?.id);
    expect((await post("/runs/run-3/approve", { approval_id: shown?.id })).status).toBe(404);
    // Control: the request's own id approves it.
    expect((await post("/runs/run-3/approve", { approval_id: other?.id })).status).toBe(200);
    expect(await otherCall).toMatchObject({ ok: true });
  });
});
