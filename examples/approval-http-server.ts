/**
 * Approvals over HTTP: a run with `approval: "destructive"` waits on the registry's broker, and a
 * UI or a person answers through `POST /runs/:id/approve` and `POST /runs/:id/deny`.
 *   GET  /runs/:id/approvals                          -> pending requests of the run
 *   POST /runs/:id/approve  {"approval_id": string}   -> approves that request (the id is required)
 *   POST /runs/:id/deny     {"approval_id"?: string, "reason"?: string} -> denies (the only pending one if no id)
 * Approving needs the id of the request the person saw: a request withdrawn meanwhile (its call
 * aborted or timed out) and replaced by another call must not be approved in its place. Denying
 * without an id stays allowed, since denying the wrong request only refuses a call.
 * Every request must carry `Authorization: Bearer <token>` (any local process can connect to
 * 127.0.0.1), name the server's own loopback address in `Host` (a web page whose name was rebound
 * to 127.0.0.1 sends its own) and come from no other site (`Origin`, `Sec-Fetch-Site`): a page the
 * user has open must not list or decide approvals.
 * Run the demo (one call approved, one denied, over HTTP):
 *   npx tsx examples/approval-http-server.ts
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { type ApprovalBroker, createRegistry, defineTool } from "agent-tool-catalog";
import { z } from "zod";

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

/**
 * Picks the request a call means: the given id (which must belong to the run), or for a denial
 * the run's only pending one. An approval always names its request.
 */
async function pickRequest(
  broker: ApprovalBroker,
  runId: string,
  id: unknown,
  action: "approve" | "deny",
): Promise<{ id: string } | { error: string; status: number }> {
  if (id === undefined && action === "approve")
    return { status: 400, error: "approval_id is required: approve the request that was shown, by its id" };
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

/** Options of {@link createApprovalServer}. */
export interface ApprovalServerOptions {
  /** The secret every request must carry as `Authorization: Bearer <token>`; at least 16 characters. */
  readonly token: string;
  /** A request not received whole within this many ms is answered 408 and dropped (slowloris). @defaultValue 10000 */
  readonly requestTimeoutMs?: number;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The loopback spellings of the server's own address, the only `Host` values served. */
function ownHosts(server: Server): Set<string> {
  const port = (server.address() as AddressInfo | null)?.port;
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/**
 * Why a request is refused before its route is looked at, or `undefined` to serve it: a foreign
 * `Host` (DNS rebinding), another site's `Origin` or `Sec-Fetch-Site` (a page's cross-site POST),
 * no or a wrong token (any other local process).
 */
function refusal(
  server: Server,
  tokenDigest: Buffer,
  request: IncomingMessage,
): { status: number; code: string; message: string } | undefined {
  const hosts = ownHosts(server);
  if (!hosts.has(request.headers.host ?? ""))
    return { status: 403, code: "host_not_allowed", message: "the Host header must name this server's loopback address" };
  const origin = request.headers.origin;
  const site = request.headers["sec-fetch-site"];
  const sameOrigin = origin === undefined || (origin.startsWith("http://") && hosts.has(origin.slice("http://".length)));
  if (!sameOrigin || (site !== undefined && site !== "same-origin" && site !== "none"))
    return { status: 403, code: "origin_not_allowed", message: "requests from another site are refused" };
  const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (given === undefined || !timingSafeEqual(digest(given), tokenDigest))
    return { status: 401, code: "unauthorized", message: "send Authorization: Bearer <token>" };
  return undefined;
}

function decodeRunId(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

async function handle(broker: ApprovalBroker, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const match = ROUTE.exec(new URL(request.url ?? "/", "http://localhost").pathname);
  if (match === null) return send(response, 404, { error: { code: "not_found", message: "unknown route" } });
  const runId = decodeRunId(match[1] as string);
  if (runId === undefined)
    return send(response, 400, { error: { code: "invalid_path", message: "the run id is not valid percent-encoding" } });
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
  const picked = await pickRequest(broker, runId, body.approval_id, action);
  if ("error" in picked) {
    const code = picked.status === 400 ? "invalid_body" : "no_such_approval";
    return send(response, picked.status, { error: { code, message: picked.error } });
  }
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

/**
 * An HTTP server that answers approval requests of `broker` (usually `registry.approvals`) for
 * clients holding `options.token`; listen on a loopback address.
 */
export function createApprovalServer(broker: ApprovalBroker, options: ApprovalServerOptions): Server {
  if (options.token.length < 16) throw new TypeError("createApprovalServer: the token must be at least 16 characters");
  const tokenDigest = digest(options.token);
  const requestTimeout = options.requestTimeoutMs ?? 10_000;
  const server: Server = createServer(
    // Node checks the request timeout every connectionsCheckingInterval: keep it well inside it.
    { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(1000, requestTimeout / 2) },
    (request, response) => {
      const refused = refusal(server, tokenDigest, request);
      if (refused !== undefined) {
        // Unread bodies are not waited for: the connection closes after the answer.
        response.setHeader("connection", "close");
        return send(response, refused.status, { error: { code: refused.code, message: refused.message } });
      }
      handle(broker, request, response).catch((error: unknown) =>
        send(response, 500, { error: { code: "internal", message: String(error) } }),
      );
    },
  );
  return server;
}

/**
 * The demo: a run with `approval: "destructive"` calls a mutating tool; the call waits while a
 * client lists the pending approval over HTTP and approves it; a second call is denied with a
 * reason. Prints each step.
 */
export async function main(log: (line: string) => void = console.log): Promise<{ outputs: string[] }> {
  const deleted: string[] = [];
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "delete_note",
        description: "Delete a note permanently.",
        mutating: true,
        inputSchema: z.object({ title: z.string() }),
        handler: ({ title }) => {
          deleted.push(title);
          return `deleted ${title}`;
        },
      }),
    ],
  });
  const run = registry.createRun({ permissions: { approval: "destructive" } });
  const token = randomBytes(24).toString("base64url");
  const server = createApprovalServer(registry.approvals, { token });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const authorization = { authorization: `Bearer ${token}` };
  const base = `http://127.0.0.1:${port}/runs/${encodeURIComponent(run.id)}`;
  log(`approval server on http://127.0.0.1:${port}`);
  const outputs: string[] = [];
  try {
    for (const [title, decision] of [
      ["groceries", "approve"],
      ["taxes", "deny"],
    ] as const) {
      const waiting = new Promise<void>((resolve) => {
        const off = registry.events.on("approval.requested", () => {
          off();
          resolve();
        });
      });
      const call = run.call("delete_note", { title });
      await waiting;
      const pending = (await (await fetch(`${base}/approvals`, { headers: authorization })).json()) as {
        approvals: { id: string; toolName: string }[];
      };
      log(`GET  /approvals -> ${pending.approvals.map((request) => request.toolName).join(", ")} waiting`);
      const shown = pending.approvals[0]?.id;
      const body = decision === "deny" ? { reason: "keep my taxes" } : { approval_id: shown };
      const answer = await fetch(`${base}/${decision}`, { method: "POST", headers: authorization, body: JSON.stringify(body) });
      log(`POST /${decision} -> ${answer.status} ${JSON.stringify(await answer.json())}`);
      const result = await call;
      const output = result.ok ? String(result.output) : `${result.error.code}: ${result.error.message}`;
      log(`delete_note(${title}) -> ${output}`);
      outputs.push(output);
    }
    log(`notes deleted: ${JSON.stringify(deleted)}`);
    return { outputs };
  } finally {
    server.close();
    await run.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
}
