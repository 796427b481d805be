/**
 * Approvals over HTTP: a run with `approval: "destructive"` waits on the registry's broker, and a
 * UI or a person answers through `POST /runs/:id/approve` and `POST /runs/:id/deny`.
 *   GET  /runs/:id/approvals                          -> pending requests of the run
 *   POST /runs/:id/approve  {"approval_id"?: string}  -> approves (the only pending one if no id)
 *   POST /runs/:id/deny     {"approval_id"?: string, "reason"?: string}
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ApprovalBroker } from "agent-tool-catalog";

const ROUTE = /^\/runs\/([^/]+)\/(approvals|approve|deny)$/;
const MAX_BODY_BYTES = 64 * 1024;

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("body must be a JSON object");
  return value as Record<string, unknown>;
}

/** Picks the request a call means: the given id (which must belong to the run), or the run's only pending one. */
async function pickRequest(
  broker: ApprovalBroker,
  runId: string,
  id: unknown,
): Promise<{ id: string } | { error: string; status: number }> {
  const pending = await broker.pending({ runId });
  if (id !== undefined) {
    if (typeof id !== "string") return { status: 400, error: "approval_id must be a string" };
    return pending.some((request) => request.id === id)
      ? { id }
      : { status: 404, error: `no pending approval ${id} in run ${runId}` };
  }
  if (pending.length === 1 && pending[0] !== undefined) return { id: pending[0].id };
  return {
    status: pending.length === 0 ? 404 : 409,
    error: `run ${runId} has ${pending.length} pending approvals; pass approval_id`,
  };
}

async function handle(broker: ApprovalBroker, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const match = ROUTE.exec(new URL(request.url ?? "/", "http://localhost").pathname);
  if (match === null) return send(response, 404, { error: { code: "not_found", message: "unknown route" } });
  const runId = decodeURIComponent(match[1] as string);
  const action = match[2] as "approvals" | "approve" | "deny";
  if (action === "approvals") {
    if (request.method !== "GET") return send(response, 405, { error: { code: "method_not_allowed", message: "use GET" } });
    return send(response, 200, { approvals: await broker.pending({ runId }) });
  }
  if (request.method !== "POST") return send(response, 405, { error: { code: "method_not_allowed", message: "use POST" } });
  let body: Record<string, unknown>;
  try {
    body = await readJson(request);
  } catch (error) {
    return send(response, 400, { error: { code: "invalid_body", message: (error as Error).message } });
  }
  const picked = await pickRequest(broker, runId, body.approval_id);
  if ("error" in picked) return send(response, picked.status, { error: { code: "no_such_approval", message: picked.error } });
  if (body.reason !== undefined && typeof body.reason !== "string") {
    return send(response, 400, { error: { code: "invalid_body", message: "reason must be a string" } });
  }
  const done = await (action === "approve"
    ? broker.approve(picked.id)
    : broker.deny(picked.id, body.reason as string | undefined));
  if (!done)
    return send(response, 409, { error: { code: "already_resolved", message: `approval ${picked.id} was already decided` } });
  return send(response, 200, { id: picked.id, decision: action === "approve" ? "approved" : "denied" });
}

/** An HTTP server that answers approval requests of `broker` (usually `registry.approvals`). */
export function createApprovalServer(broker: ApprovalBroker): Server {
  return createServer((request, response) => {
    handle(broker, request, response).catch((error: unknown) =>
      send(response, 500, { error: { code: "internal", message: String(error) } }),
    );
  });
}
