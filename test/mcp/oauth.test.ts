import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import {
  completeMcpOAuth,
  connectMcpServer,
  createStoredMcpOAuthProvider,
  JsonFileMcpCredentialStore,
  type McpHttpServerConfig,
  mcpAuthStatus,
} from "agent-tool-catalog/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type OAuthFixture, startOAuthFixture } from "./support/oauth-fixture.js";

let oauth: OAuthFixture;
let registry: Registry;

beforeAll(async () => {
  // Access tokens live 2 s, so the test sees one expire and get refreshed.
  oauth = await startOAuthFixture(2);
});

afterAll(async () => {
  await oauth.close();
});

afterEach(async () => {
  await registry?.close();
});

describe("OAuth for remote MCP servers (a real authorization server on 127.0.0.1, built with the SDK's auth helpers)", () => {
  it("authorizes with PKCE, keeps credentials in a 0600 file, reports status, and refreshes an expired token", async () => {
    registry = createRegistry();
    const file = join(mkdtempSync(join(tmpdir(), "mcp-oauth-")), "credentials.json");
    const store = new JsonFileMcpCredentialStore(file);
    const links: URL[] = [];
    const config: McpHttpServerConfig = {
      name: "secure",
      url: oauth.url,
      auth: createStoredMcpOAuthProvider({
        serverUrl: oauth.url,
        store,
        redirectUrl: "http://127.0.0.1:1/callback",
        onAuthorizationUrl: (url) => {
          links.push(url);
        },
      }),
    };
    const plain = { name: "local", command: "true" };
    expect(await mcpAuthStatus([config, plain], { store })).toEqual([
      { name: "secure", transport: "http", url: oauth.url, auth: "needs_authorization" },
      { name: "local", transport: "stdio", auth: "none" },
    ]);

    // No token: the connect fails and the provider got the authorization URL to show the user.
    await expect(connectMcpServer(registry, config)).rejects.toMatchObject({ code: "mcp_connect_failed" });
    expect(links).toHaveLength(1);
    expect(links[0]?.searchParams.get("code_challenge_method")).toBe("S256");

    // The user approves; the browser is sent back to the redirect URL with a code.
    const approval = await fetch(links[0] as URL, { redirect: "manual" });
    const back = new URL(approval.headers.get("location") ?? "");
    const code = back.searchParams.get("code") ?? "";
    expect(code).not.toBe("");
    await completeMcpOAuth(config, code);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await mcpAuthStatus([config], { store }))[0]?.auth).toBe("authorized");

    const handle = await connectMcpServer(registry, config);
    const run = registry.createRun();
    run.activate(["mcp_secure_echo"]);
    expect(await run.call("mcp_secure_echo", { text: "in" })).toMatchObject({ ok: true, output: "in" });
    const first = (await store.get(oauth.url))?.tokens?.access_token;

    // The token expires; the next call gets a 401, the SDK refreshes, and the call goes through.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    expect((await mcpAuthStatus([config], { store }))[0]?.auth).toBe("refreshable");
    expect(await run.call("mcp_secure_echo", { text: "again" })).toMatchObject({ ok: true, output: "again" });
    expect(oauth.refreshes()).toBeGreaterThanOrEqual(1);
    expect((await store.get(oauth.url))?.tokens?.access_token).not.toBe(first);
    expect((await mcpAuthStatus([config], { store }))[0]?.auth).toBe("authorized");
    expect(handle.status.state).toBe("connected");
  }, 30_000);

  it("refuses a request without a token at the server (the check is real)", async () => {
    registry = createRegistry();
    const response = await fetch(oauth.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("resource_metadata");
  });
});
