/**
 * Escape attempts at the network: bash reaching a real HTTP server on the host, and the
 * `download` tool fetching loopback, private and link-local addresses. Controls: the same request
 * under `unrestricted`, or with the host option `allowPrivateNetwork`, reaches the server.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: network"), () => {
  let ground: Playground;
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    ground = await playground();
    server = createServer((_request, response) => {
      hits++;
      response.end("host-only-answer");
    });
    // Dual stack: reachable on 127.0.0.1, ::1, ::ffff:127.0.0.1 and the host's own addresses.
    await new Promise<void>((resolve) => server.listen(0, "::", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.close();
    await ground.dispose();
  });

  const tcp = (host: string) => `exec 3<>/dev/tcp/${host}/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

  escapeAttempt("network", "bash opens TCP to 127.0.0.1 (workspace)", async () => {
    expect((await sh(attackRun(ground.workspace, "workspace"), tcp("127.0.0.1"))).stdout).not.toContain("host-only-answer");
    expect((await sh(attackRun(ground.workspace, "unrestricted"), tcp("127.0.0.1"))).stdout).toContain("host-only-answer");
  });

  escapeAttempt("network", "bash opens TCP to 127.0.0.1 (local scope has no network either)", async () => {
    expect((await sh(attackRun(ground.workspace, "local"), tcp("127.0.0.1"))).stdout).not.toContain("host-only-answer");
    expect((await sh(attackRun(ground.workspace, "unrestricted"), tcp("127.0.0.1"))).stdout).toContain("host-only-answer");
  });

  escapeAttempt("network", "bash opens TCP to ::1", async () => {
    expect((await sh(attackRun(ground.workspace, "workspace"), tcp("::1"))).stdout).not.toContain("host-only-answer");
    expect((await sh(attackRun(ground.workspace, "unrestricted"), tcp("::1"))).stdout).toContain("host-only-answer");
  });

  escapeAttempt("network", "bash reaches the host through its own non-loopback address", async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry !== undefined && !entry.internal && entry.family === "IPv4")?.address;
    if (address === undefined) return;
    expect((await sh(attackRun(ground.workspace, "workspace"), tcp(address))).stdout).not.toContain("host-only-answer");
    expect((await sh(attackRun(ground.workspace, "unrestricted"), tcp(address))).stdout).toContain("host-only-answer");
  });

  escapeAttempt("network", "curl to the host server", async () => {
    const command = `curl -s --max-time 3 http://127.0.0.1:${port}/`;
    expect((await sh(attackRun(ground.workspace, "workspace"), command)).stdout).not.toContain("host-only-answer");
    expect((await sh(attackRun(ground.workspace, "unrestricted"), command)).stdout).toContain("host-only-answer");
  });

  /** download `url` in `scope`; says the result and whether the server was hit. */
  async function download(scope: "workspace" | "local" | "unrestricted", url: string, allow = false) {
    const before = hits;
    const run = attackRun(ground.workspace, scope, { download: { allowPrivateNetwork: allow } });
    const file = `dl-${Math.random().toString(36).slice(2)}.txt`;
    const text = outcome(await run.call("download", { url, file_path: file, timeout_seconds: 2 }));
    return { text, hit: hits > before, saved: existsSync(path.join(ground.workspace, file)) };
  }

  for (const [title, host] of [
    ["127.0.0.1", "127.0.0.1"],
    ["localhost (a name that resolves to loopback)", "localhost"],
    ["[::1]", "[::1]"],
    ["[::ffff:127.0.0.1] (IPv4-mapped)", "[::ffff:127.0.0.1]"],
    ["2130706433 (127.0.0.1 in decimal)", "2130706433"],
    ["0.0.0.0", "0.0.0.0"],
  ] as const) {
    escapeAttempt("network", `download from ${title} (workspace)`, async () => {
      const denied = await download("workspace", `http://${host}:${port}/`);
      expect(denied.text).toBe("error:address_not_allowed");
      expect(denied.hit).toBe(false);
      const control = await download("workspace", `http://${host}:${port}/`, true);
      expect(control.saved).toBe(true);
      expect(control.hit).toBe(true);
    });
  }

  escapeAttempt("network", "download from 127.0.0.1 under scope local", async () => {
    const denied = await download("local", `http://127.0.0.1:${port}/`);
    expect(denied.text).toBe("error:address_not_allowed");
    expect(denied.hit).toBe(false);
    expect((await download("unrestricted", `http://127.0.0.1:${port}/`)).hit).toBe(true);
  });

  escapeAttempt("network", "download the cloud metadata address 169.254.169.254", async () => {
    expect((await download("workspace", "http://169.254.169.254/latest/meta-data/")).text).toBe("error:address_not_allowed");
    // Control: allowed, the request is really attempted (and fails or times out here).
    expect((await download("workspace", "http://169.254.169.254/latest/meta-data/", true)).text).not.toBe(
      "error:address_not_allowed",
    );
  });

  escapeAttempt("network", "download a public URL that redirects to 127.0.0.1", async () => {
    // No public server is reachable offline: a host-injected fetch plays one (a literal public
    // address answering 302 to the host server); every later hop goes to the real server.
    const publicUrl = "http://93.184.215.14/start";
    const fetchWithPublicHop: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      if (url.hostname === "93.184.215.14") {
        return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${port}/file` } });
      }
      return fetch(input, init);
    };
    const run = (allow: boolean) =>
      attackRun(ground.workspace, "workspace", { download: { fetch: fetchWithPublicHop, allowPrivateNetwork: allow } });
    const before = hits;
    expect(outcome(await run(false).call("download", { url: publicUrl, file_path: "r1.txt" }))).toBe("error:address_not_allowed");
    expect(hits).toBe(before);
    expect(outcome(await run(true).call("download", { url: publicUrl, file_path: "r2.txt" }))).toContain("Saved");
    expect(hits).toBe(before + 1);
  });
});
