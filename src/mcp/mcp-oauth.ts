import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { ConfigurationError } from "agent-tool-catalog";
import type { McpCredentialStore } from "./mcp-credential-store.js";
import {
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpSseServerConfig,
  type McpTransportKind,
  transportKindOf,
} from "./mcp-server-config.js";

/**
 * Where a server stands with OAuth.
 *
 * @public
 */
export type McpAuthState =
  /** The server is not set up for OAuth (stdio, custom, or HTTP without `auth`). */
  | "none"
  /** No token yet: an authorization is needed (the connect starts one). */
  | "needs_authorization"
  /** A token that has not expired (as far as the client can tell). */
  | "authorized"
  /** The token expired; a refresh token will renew it on the next request. */
  | "refreshable"
  /** The token expired and cannot be refreshed: authorize again. */
  | "expired";

/**
 * One configured server and its auth state, for a host's `mcp` command or settings page.
 *
 * @public
 */
export interface McpServerAuthStatus {
  /** The server's name. */
  readonly name: string;
  /** The transport kind. */
  readonly transport: McpTransportKind;
  /** The URL, for HTTP and SSE servers. */
  readonly url?: string;
  /** The auth state. */
  readonly auth: McpAuthState;
  /** When the token expires, ms since the epoch, when known. */
  readonly expiresAt?: number;
}

/**
 * The auth state of every configured server (connected or not), read from each server's
 * provider and, for expiry, from the credential store the tokens were saved in.
 * @public
 */
export async function mcpAuthStatus(
  configs: readonly McpServerConfig[],
  options: { readonly store?: McpCredentialStore; readonly now?: () => number } = {},
): Promise<McpServerAuthStatus[]> {
  const now = options.now ?? Date.now;
  return Promise.all(
    configs.map(async (config): Promise<McpServerAuthStatus> => {
      const transport = transportKindOf(config);
      if (transport !== "http" && transport !== "sse") return { name: config.name, transport, auth: "none" };
      const remote = config as McpHttpServerConfig | McpSseServerConfig;
      const base = { name: config.name, transport, url: remote.url };
      if (remote.auth === undefined) return { ...base, auth: "none" };
      const tokens = await remote.auth.tokens();
      if (tokens === undefined) return { ...base, auth: "needs_authorization" };
      const saved = (await options.store?.get(remote.url))?.savedAt;
      const expiresAt = saved !== undefined && tokens.expires_in !== undefined ? saved + tokens.expires_in * 1000 : undefined;
      if (expiresAt === undefined || expiresAt > now())
        return { ...base, auth: "authorized", ...(expiresAt === undefined ? {} : { expiresAt }) };
      return { ...base, auth: tokens.refresh_token === undefined ? "expired" : "refreshable", expiresAt };
    }),
  );
}

/**
 * Finishes an authorization: exchanges the code the user came back with (at the provider's
 * `redirectUrl`) for tokens, which the provider saves. Connect the server again afterwards.
 *
 * @throws ConfigurationError when the config has no `auth`; the SDK's OAuth errors as they come.
 * @public
 */
export async function completeMcpOAuth(
  config: McpHttpServerConfig | McpSseServerConfig,
  authorizationCode: string,
): Promise<void> {
  if (config.auth === undefined) {
    throw new ConfigurationError("invalid_mcp_config", `MCP server "${config.name}": auth is not configured.`, {
      data: { field: "auth" },
    });
  }
  const result = await auth(config.auth, { serverUrl: config.url, authorizationCode });
  if (result !== "AUTHORIZED") throw new Error(`MCP server "${config.name}": the authorization did not complete (${result}).`);
}
