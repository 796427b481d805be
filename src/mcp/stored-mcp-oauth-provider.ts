import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpCredentialStore, McpCredentials } from "./mcp-credential-store.js";

/**
 * Options of {@link createStoredMcpOAuthProvider}.
 *
 * @public
 */
export interface StoredMcpOAuthProviderOptions {
  /** The server's URL; the key of its credentials in the store. */
  readonly serverUrl: string;
  /** Where credentials are kept. */
  readonly store: McpCredentialStore;
  /** Where the authorization server sends the user back (the host's callback URL). */
  readonly redirectUrl: string;
  /** How the client registers itself. @defaultValue a public client named "agent-tool-catalog" */
  readonly clientMetadata?: OAuthClientMetadata;
  /** A client registered beforehand (no dynamic registration then). */
  readonly clientInformation?: OAuthClientInformationMixed;
  /**
   * Shows the user the authorization URL (opens a browser, prints a link). The connect then fails
   * with `mcp_connect_failed`; once the user is back with a code, call `completeMcpOAuth`.
   */
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
}

/**
 * The MCP SDK's `OAuthClientProvider`, with everything it must remember in a
 * {@link McpCredentialStore}: registration, tokens (the SDK refreshes them with the refresh token
 * when the server answers 401), and the PKCE verifier between the redirect and the code.
 * @public
 */
export function createStoredMcpOAuthProvider(options: StoredMcpOAuthProviderOptions): OAuthClientProvider {
  const { store, serverUrl } = options;
  const read = async (): Promise<McpCredentials> => (await store.get(serverUrl)) ?? {};
  const write = async (change: Partial<McpCredentials>) => store.set(serverUrl, { ...(await read()), ...change });
  const metadata: OAuthClientMetadata = options.clientMetadata ?? {
    client_name: "agent-tool-catalog",
    redirect_uris: [options.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    clientInformation: async () => (await read()).clientInformation ?? options.clientInformation,
    saveClientInformation: (clientInformation: OAuthClientInformationMixed) => write({ clientInformation }),
    tokens: async () => (await read()).tokens,
    saveTokens: (tokens: OAuthTokens) => write({ tokens, savedAt: Date.now() }),
    redirectToAuthorization: (url: URL) => options.onAuthorizationUrl(url),
    saveCodeVerifier: (codeVerifier: string) => write({ codeVerifier }),
    codeVerifier: async () => {
      const verifier = (await read()).codeVerifier;
      if (verifier === undefined) throw new Error("No authorization is in progress for this server.");
      return verifier;
    },
    invalidateCredentials: async (scope) => {
      const current = await read();
      if (scope === "all") return store.delete(serverUrl);
      if (scope === "tokens") return store.set(serverUrl, { ...current, tokens: undefined, savedAt: undefined });
      if (scope === "client") return store.set(serverUrl, { ...current, clientInformation: undefined });
      if (scope === "verifier") return store.set(serverUrl, { ...current, codeVerifier: undefined });
    },
  };
}
