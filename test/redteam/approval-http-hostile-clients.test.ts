import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { createRegistry } from "agent-tool-catalog";
import { afterEach, describe, expect, it } from "vitest";
import { createApprovalServer } from "../../examples/approval-http-server.js";
import { sampleTools } from "../support/sample-tools.js";

// Red team: the HTTP approval example against hostile clients on 127.0.0.1. A web page the user
// has open can reach a loopback server: by DNS rebinding (its own name resolving to 127.0.0.1,
// so the request carries the page's Host and the page reads the answers) or by a cross-site
// "simple" POST (no preflight for text/plain). Any local process can connect too. None of them
// may list or decide approvals; only a client holding the server's token can.

const TOKEN = "test-token-0123456789abcdef";
const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

interface Answer {
  readonly status: number;
  readonly body: { error?: { code: string }; approvals?: { id: string }[]; decision?: string };
}

async function start(options: { requestTimeoutMs?: number } = {}) {
  const registry = createRegistry({ tools: sampleTools() });
  const server = createApprovalServer(registry.approvals, { token: TOKEN, ...options });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  /** A raw request, so Host, Origin and Authorization are exactly what an attacker sends. */
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port, method, path, headers }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Answer["body"] }));
      });
      request.on("error", reject);
      request.end(body);
    });
  const own = { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` };
  const waitForPending = async (runId: string) => {
    for (let attempt = 0; attempt < 400; attempt++) {
      const answer = await send("GET", `/runs/${runId}/approvals`, own);
      if ((answer.body.approvals ?? []).length > 0) return answer.body.approvals ?? [];
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("no pending approval");
  };
  return { registry, port, send, own, waitForPending };
}

describe("approvals over HTTP, hostile clients", () => {
  it("refuses a request without the token (any local process), and one with a wrong token; the token's holder decides", async () => {
    const { registry, send, own, waitForPending } = await start();
    const run = registry.createRun({ runId: "r1", permissions: { approval: "destructive" } });
    const call = run.call("write", { path: "a.txt", content: "x" });
    const [pending] = await waitForPending("r1");
    const body = JSON.stringify({ approval_id: pending?.id });
    const host = own.host;
    expect(await send("GET", "/runs/r1/approvals", { host })).toMatchObject({
      status: 401,
      body: { error: { code: "unauthorized" } },
    });
    expect(await send("POST", "/runs/r1/approve", { host }, body)).toMatchObject({ status: 401 });
    expect(await send("POST", "/runs/r1/deny", { host, authorization: "Bearer nope" })).toMatchObject({ status: 401 });
    expect(await send("POST", "/runs/r1/approve", { host, authorization: `Basic ${TOKEN}` }, body)).toMatchObject({
      status: 401,
    });
    expect(await registry.approvals.pending({ runId: "r1" })).toHaveLength(1);
    // Control: the token approves.
    expect(await send("POST", "/runs/r1/approve", own, body)).toMatchObject({ status: 200, body: { decision: "approved" } });
    expect(await call).toMatchObject({ ok: true });
  });

  it("refuses a rebound name (Host not loopback) even with the token: nothing listed, nothing decided", async () => {
    const { registry, port, send, own, waitForPending } = await start();
    const run = registry.createRun({ runId: "r2", permissions: { approval: "destructive" } });
    const call = run.call("write", { path: "a.txt", content: "x" });
    const [pending] = await waitForPending("r2");
    for (const host of [
      `attacker.example:${port}`,
      "attacker.example",
      `127.0.0.1:${port + 1}`,
      `127.0.0.1.attacker.example:${port}`,
    ]) {
      const listed = await send("GET", "/runs/r2/approvals", { ...own, host });
      expect(listed, host).toMatchObject({ status: 403, body: { error: { code: "host_not_allowed" } } });
      expect(listed.body.approvals).toBeUndefined();
      expect((await send("POST", "/runs/r2/deny", { ...own, host })).status, host).toBe(403);
    }
    expect(await registry.approvals.pending({ runId: "r2" })).toHaveLength(1);
    // Controls: every loopback spelling of the server's own address is served.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await send("GET", "/runs/r2/approvals", { ...own, host })).status, host).toBe(200);
    }
    expect(await send("POST", "/runs/r2/approve", own, JSON.stringify({ approval_id: pending?.id }))).toMatchObject({
      status: 200,
    });
    expect(await call).toMatchObject({ ok: true });
  });

  it("refuses a cross-site request (Origin or Sec-Fetch-Site of another site), even with the token", async () => {
    const { registry, port, send, own, waitForPending } = await start();
    const run = registry.createRun({ runId: "r3", permissions: { approval: "destructive" } });
    const call = run.call("write", { path: "a.txt", content: "x" });
    await waitForPending("r3");
    const crossSite = [
      { origin: "https://attacker.example" },
      { origin: "null" },
      { origin: `http://127.0.0.1:${port + 1}` },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of crossSite) {
      const answer = await send("POST", "/runs/r3/deny", { ...own, ...headers, "content-type": "text/plain" });
      expect(answer, JSON.stringify(headers)).toMatchObject({ status: 403, body: { error: { code: "origin_not_allowed" } } });
    }
    expect(await registry.approvals.pending({ runId: "r3" })).toHaveLength(1);
    // Control: the server's own origin (a UI it serves) may deny.
    const own_origin = await send("POST", "/runs/r3/deny", {
      ...own,
      origin: `http://127.0.0.1:${port}`,
      "sec-fetch-site": "same-origin",
    });
    expect(own_origin).toMatchObject({ status: 200, body: { decision: "denied" } });
    expect(await call).toMatchObject({ ok: false, error: { code: "approval_denied" } });
  });

  it("answers a malformed run id in the path with 400, not 500", async () => {
    const { send, own } = await start();
    expect(await send("GET", "/runs/%E0%A4%A/approvals", own)).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_path" } },
    });
    // Control: an encoded run id that decodes is looked up.
    expect(await send("GET", "/runs/a%20b/approvals", own)).toMatchObject({ status: 200, body: { approvals: [] } });
  });

  it("drops a client that sends headers and then never finishes its body (slowloris), within its request timeout", async () => {
    const { port, own, send } = await start({ requestTimeoutMs: 500 });
    const started = performance.now();
    const closed = await new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `POST /runs/r4/deny HTTP/1.1\r\nHost: ${own.host}\r\nAuthorization: ${own.authorization}\r\nContent-Length: 100\r\n\r\n{"re`,
        );
      });
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("close", () => resolve(text));
      socket.on("error", () => undefined);
      // The old server kept such a connection for Node's default 300 s.
      setTimeout(() => {
        resolve(`still open after 5 s: ${text}`);
        socket.destroy();
      }, 5000).unref();
    });
    expect(closed).toMatch(/^HTTP\/1\.1 408/);
    expect(performance.now() - started).toBeLessThan(5000);
    // Control: a prompt client is answered.
    expect((await send("GET", "/runs/r4/approvals", own)).status).toBe(200);
  });

  it("refuses a body over 64 KiB with invalid_body and decides nothing (held before this round)", async () => {
    const { registry, send, own, waitForPending } = await start();
    const run = registry.createRun({ runId: "r5", permissions: { approval: "destructive" } });
    const call = run.call("write", { path: "a.txt", content: "x" });
    const [pending] = await waitForPending("r5");
    const huge = JSON.stringify({ approval_id: pending?.id, pad: "x".repeat(70 * 1024) });
    expect(await send("POST", "/runs/r5/approve", own, huge)).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_body" } },
    });
    expect(await registry.approvals.pending({ runId: "r5" })).toHaveLength(1);
    // A replayed approval is already_resolved, never a second decision.
    const body = JSON.stringify({ approval_id: pending?.id });
    expect((await send("POST", "/runs/r5/approve", own, body)).status).toBe(200);
    expect((await send("POST", "/runs/r5/approve", own, body)).status).toBe(404);
    expect(await call).toMatchObject({ ok: true });
  });
});
