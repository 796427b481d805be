/**
 * Red team round 23: the HTTP approval endpoint (examples/approval-http-server.ts) under
 * concurrent and forged decisions. Held: one decision per request, whichever lands first, and the
 * call does what that decision said; a request is decided only through its own run's route.
 */
import type { AddressInfo } from "node:net";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { afterEach, describe, expect } from "vitest";
import { createApprovalServer } from "../../examples/approval-http-server.js";
import { sampleTools } from "../support/sample-tools.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function serve(registry: Registry) {
  const token = "approval-race-token-0123456789";
  const server = createApprovalServer(registry.approvals, { token });
  closers.push(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (route: string, body: unknown) =>
    fetch(`${base}${route}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(body) }).then(
      async (response) => ({ status: response.status, body: (await response.json()) as { decision?: string } }),
    );
}

async function pendingOf(registry: Registry, runId: string) {
  await expect.poll(async () => (await registry.approvals.pending({ runId })).length).toBe(1);
  const [request] = await registry.approvals.pending({ runId });
  return request?.id ?? "";
}

describe("the HTTP approval endpoint under races and forged routes", () => {
  escapeAttempt(
    "approvals",
    "16 concurrent approve and deny posts for one request: one decision, and the call obeys it",
    async () => {
      const registry = createRegistry({ tools: sampleTools() });
      const post = await serve(registry);
      for (let round = 0; round < 2; round++) {
        const run = registry.createRun({ runId: `race-${round}`, permissions: { approval: "destructive" } });
        const call = run.call("write", { path: `f${round}.txt`, content: "x" });
        const id = await pendingOf(registry, run.id);
        const answers = await Promise.all(
          Array.from({ length: 16 }, (_, index) =>
            post(`/runs/${run.id}/${index % 2 === round % 2 ? "approve" : "deny"}`, { approval_id: id }),
          ),
        );
        const won = answers.filter((answer) => answer.status === 200);
        expect(won).toHaveLength(1);
        expect(answers.filter((answer) => answer.status !== 200).every((answer) => answer.status === 404)).toBe(true);
        const result = await call;
        expect(result.ok).toBe(won[0]?.body.decision === "approved");
      }
    },
  );

  escapeAttempt("approvals", "a request decided through another run's route: refused, the request still waits", async () => {
    const registry = createRegistry({ tools: sampleTools() });
    const post = await serve(registry);
    const victim = registry.createRun({ runId: "victim", permissions: { approval: "destructive" } });
    const other = registry.createRun({ runId: "other", permissions: { approval: "destructive" } });
    const victimCall = victim.call("write", { path: "v.txt", content: "x" });
    const otherCall = other.call("write", { path: "o.txt", content: "y" });
    const victimId = await pendingOf(registry, "victim");
    await pendingOf(registry, "other");
    for (const forged of [victimId, victimId.toUpperCase(), ` ${victimId}`, `${victimId}\u0000`]) {
      expect((await post("/runs/other/approve", { approval_id: forged })).status).toBe(404);
    }
    expect((await post("/runs/other/deny", { approval_id: victimId })).status).toBe(404);
    expect((await registry.approvals.pending({ runId: "victim" })).map((request) => request.id)).toEqual([victimId]);
    // Control: its own route approves it; the other run's request is denied through its own.
    expect((await post("/runs/victim/approve", { approval_id: victimId })).status).toBe(200);
    expect(await victimCall).toMatchObject({ ok: true });
    expect((await post("/runs/other/deny", {})).status).toBe(200);
    expect(await otherCall).toMatchObject({ ok: false, error: { code: "approval_denied" } });
  });
});
