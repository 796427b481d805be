import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { closeServer } from "../../support/close-server.js";
import { createFixtureServer } from "./fixture-server.js";

// express (the SDK's own dependency) ships no types here; this is the little the fixture uses.
type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse & { status(code: number): { end(): void } };
interface App {
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
  all(path: string, ...handlers: unknown[]): void;
  listen(port: number, host: string, ready: () => void): Server;
}
interface Express {
  (): App;
  json(): unknown;
}
const EXPRESS: string = "express";

/** A running OAuth-protected MCP server on 127.0.0.1. */
export interface OAuthFixture {
  /** The MCP endpoint (requires a bearer token). */
  readonly url: string;
  /** How many refresh-token exchanges happened. */
  readonly refreshes: () => number;
  close(): Promise<void>;
}

/**
 * An authorization server and a protected MCP resource server in one, built with the MCP SDK's
 * server-side auth helpers (`mcpAuthRouter`: metadata, dynamic registration, authorize, token;
 * `requireBearerAuth`). Authorization is approved at once (no login page); access tokens live
 * `ttlSeconds`, refresh tokens are single-use.
 */
export async function startOAuthFixture(ttlSeconds: number): Promise<OAuthFixture> {
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; challenge: string }>();
  const access = new Map<string, { clientId: string; expiresAt: number }>();
  const refresh = new Map<string, string>();
  let refreshes = 0;
  const issue = (clientId: string): OAuthTokens => {
    const token = randomUUID();
    const refreshToken = randomUUID();
    access.set(token, { clientId, expiresAt: Date.now() + ttlSeconds * 1000 });
    refresh.set(refreshToken, clientId);
    return { access_token: token, token_type: "bearer", expires_in: ttlSeconds, refresh_token: refreshToken };
  };
  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (client) => {
        const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
        clients.set(full.client_id, full);
        return full;
      },
    },
    authorize: async (client, params, res) => {
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge });
      const target = new URL(params.redirectUri);
      target.searchParams.set("code", code);
      if (params.state !== undefined) target.searchParams.set("state", params.state);
      res.redirect(target.href);
    },
    challengeForAuthorizationCode: async (_client, code) => codes.get(code)?.challenge ?? "",
    exchangeAuthorizationCode: async (client, code) => {
      const entry = codes.get(code);
      if (entry === undefined || entry.clientId !== client.client_id) throw new Error("bad code");
      codes.delete(code);
      return issue(client.client_id);
    },
    exchangeRefreshToken: async (client, token) => {
      if (refresh.get(token) !== client.client_id) throw new Error("bad refresh token");
      refresh.delete(token);
      refreshes++;
      return issue(client.client_id);
    },
    verifyAccessToken: async (token) => {
      const entry = access.get(token);
      if (entry === undefined || entry.expiresAt <= Date.now()) throw new InvalidTokenError("expired or unknown token");
      return { token, clientId: entry.clientId, scopes: [], expiresAt: Math.floor(entry.expiresAt / 1000) };
    },
  };
  const { default: express } = (await import(EXPRESS)) as { default: Express };
  const app = express();
  const http: Server = await new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post("/mcp", express.json(), bearer, async (req: Request, res: Response) => {
    // Stateless: a fresh server per request.
    const transport = new StreamableHTTPServerTransport({});
    const server = createFixtureServer();
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all("/mcp", bearer, (_req: Request, res: Response) => {
    res.status(405).end();
  });
  return {
    url: mcpUrl.href,
    refreshes: () => refreshes,
    close: async () => {
      await closeServer(http);
    },
  };
}
