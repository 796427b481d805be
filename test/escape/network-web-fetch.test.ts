/**
 * Escape attempts at the network through the host's `web_fetch` and `agentic_fetch` tools: a run
 * sandboxed `workspace` or `local` must not reach loopback, private or link-local (cloud metadata)
 * addresses through them, as it cannot through bash or `download`; neither through a name that
 * resolves there nor through a redirect. Controls: the same fetch under `unrestricted`, or with the
 * host's `allowPrivateNetwork`, reaches the server.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { HttpWebFetcher, type HttpWebFetcherOptions, webToolGroup } from "../../src/host/index.js";
import { ScriptedRunner } from "../host/support/host-test-kit.js";
import { escapeAttempt } from "./support/escape-attempt.js";

describe("escape attempts: network through web_fetch", () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "web-fetch-escape-")));
  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits++;
      response.writeHead(200, { "content-type": "text/plain" }).end("host-only-answer");
    });
    await new Promise<void>((resolve) => server.listen(0, "::", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  /** Fetches `url` with `tool` in a run of `sandbox`; says the outcome and whether the server was hit. */
  async function fetchFrom(
    sandbox: SandboxScope,
    url: string,
    fetcherOptions: HttpWebFetcherOptions = {},
    tool: "web_fetch" | "agentic_fetch" = "web_fetch",
  ) {
    const runner = new ScriptedRunner((request) => ({ output: `saw: ${request.prompt.includes("host-only-answer")}` }));
    const registry = createRegistry({
      groups: [webToolGroup({ fetcher: new HttpWebFetcher(fetcherOptions), agentRunner: runner })],
    });
    const run = registry.createRun({ profile: "full", permissions: { sandbox, approval: "none", workspace } });
    run.activate([tool]);
    const before = hits;
    const args = tool === "web_fetch" ? { url } : { url, prompt: "What does it say?" };
    const result = await run.call(tool, args);
    await registry.close();
    const text = result.ok ? String(result.output) : `error:${result.error.code}`;
    return { text, hit: hits > before };
  }

  for (const [title, host] of [
    ["127.0.0.1", "127.0.0.1"],
    ["localhost (a name that resolves to loopback)", "localhost"],
    ["[::1]", "[::1]"],
    ["[::ffff:127.0.0.1] (IPv4-mapped)", "[::ffff:127.0.0.1]"],
  ] as const) {
    escapeAttempt("network", `web_fetch from ${title} (workspace)`, async () => {
      const denied = await fetchFrom("workspace", `http://${host}:${port}/`);
      expect(denied).toEqual({ text: "error:address_not_allowed", hit: false });
      const allowed = await fetchFrom("workspace", `http://${host}:${port}/`, { allowPrivateNetwork: true });
      expect(allowed.hit).toBe(true);
      expect(allowed.text).toContain("host-only-answer");
    });
  }

  escapeAttempt("network", "web_fetch and agentic_fetch from 127.0.0.1 under scope local; unrestricted reaches it", async () => {
    expect(await fetchFrom("local", `http://127.0.0.1:${port}/`)).toEqual({ text: "error:address_not_allowed", hit: false });
    expect(await fetchFrom("local", `http://127.0.0.1:${port}/`, {}, "agentic_fetch")).toEqual({
      text: "error:address_not_allowed",
      hit: false,
    });
    expect((await fetchFrom("unrestricted", `http://127.0.0.1:${port}/`)).hit).toBe(true);
    expect((await fetchFrom("unrestricted", `http://127.0.0.1:${port}/`, {}, "agentic_fetch")).hit).toBe(true);
  });

  escapeAttempt("network", "web_fetch the cloud metadata address 169.254.169.254 (workspace)", async () => {
    expect((await fetchFrom("workspace", "http://169.254.169.254/latest/meta-data/")).text).toBe("error:address_not_allowed");
    // Control: allowed, the request is really attempted (and fails or times out here).
    const allowed = await fetchFrom("workspace", "http://169.254.169.254/latest/meta-data/", {
      allowPrivateNetwork: true,
      timeoutMs: 300,
    });
    expect(allowed.text).not.toBe("error:address_not_allowed");
  });

  escapeAttempt("network", "web_fetch a public URL that redirects to 127.0.0.1 (workspace, injected fetch)", async () => {
    // No public server is reachable offline: an injected fetch plays one (a literal public address
    // answering 302 to the host server); every later hop goes to the real server.
    const fetchWithPublicHop: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      if (url.hostname === "93.184.215.14") {
        return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${port}/file` } });
      }
      return fetch(input, init);
    };
    const publicUrl = "http://93.184.215.14/start";
    expect(await fetchFrom("workspace", publicUrl, { fetch: fetchWithPublicHop })).toEqual({
      text: "error:address_not_allowed",
      hit: false,
    });
    expect((await fetchFrom("unrestricted", publicUrl, { fetch: fetchWithPublicHop })).hit).toBe(true);
  });
});
