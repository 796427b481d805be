import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { HttpWebFetcher, webToolGroup } from "agent-tool-catalog/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure, hostRun, startServer, text } from "../host/support/host-test-kit.js";

// Red team: web_fetch against hostile pages served from 127.0.0.1 (an unrestricted run, so the
// loopback server is reachable on purpose). The page is the attacker's; the host's event loop,
// memory and the model's answer are what it must not take.

const TITLE_BOMB_REPEATS = 40_000; // 240 KB: 7.6 s of CPU on the old code, about an hour at 5 MiB
const NESTING = 20_000;

let server: { url: string; close(): Promise<void> };
const hanging = new Set<ServerResponse>();

beforeAll(async () => {
  server = await startServer((request, response) => {
    const route = request.url ?? "/";
    if (route === "/title-bomb") {
      response.writeHead(200, { "content-type": "text/html" }).end(`<html><title>${"<title".repeat(TITLE_BOMB_REPEATS)}`);
    } else if (route === "/nested") {
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(`<html><title>Deep</title><body>${"<div>".repeat(NESTING)}the deep text${"</div>".repeat(NESTING)}</body></html>`);
    } else if (route === "/gzip-bomb") {
      // 64 MiB of spaces compressed to about 64 KB; the fetcher may read 1 MiB of it.
      response
        .writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
        .end(gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)));
    } else if (route === "/endless") {
      response.writeHead(200, { "content-type": "text/plain" });
      hanging.add(response);
      const timer = setInterval(() => response.write("y".repeat(64 * 1024)), 1);
      response.on("close", () => clearInterval(timer));
    } else if (route === "/to-file") {
      response.writeHead(302, { location: "file:///etc/passwd" }).end();
    } else if (route === "/to-data") {
      response.writeHead(302, { location: "data:text/plain,hello" }).end();
    } else {
      response.writeHead(404).end();
    }
  });
});
afterAll(async () => {
  for (const response of hanging) response.destroy();
  await server.close();
});

function fetchRun(fetcher = new HttpWebFetcher()) {
  return hostRun([webToolGroup({ fetcher })]).run;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

describe("web_fetch against hostile pages", () => {
  it("a page of unclosed <title tags costs milliseconds, not a blocked event loop", async () => {
    const start = process.cpuUsage();
    const result = await fetchRun().call("web_fetch", { url: `${server.url}/title-bomb` });
    // Old code: 7.6 s of CPU at load 2 (the title regex is quadratic); now a few ms.
    expect(cpuMs(start)).toBeLessThan(2000);
    expect(result.ok).toBe(true);
  });

  it("markup nested deeper than the converter recurses still gives the page's text, not fetch_failed", async () => {
    const answer = text(await fetchRun().call("web_fetch", { url: `${server.url}/nested` }));
    expect(answer).toContain("the deep text");
    expect(answer).toContain("Deep");
  });

  // Held before this round (kept as fast checks).
  it("a gzip bomb is read only up to maxBytes of decompressed text", async () => {
    const start = process.cpuUsage();
    const answer = text(
      await fetchRun(new HttpWebFetcher({ maxBytes: 1024 * 1024 })).call("web_fetch", { url: `${server.url}/gzip-bomb` }),
    );
    expect(answer).toContain("cut at the size limit");
    expect(cpuMs(start)).toBeLessThan(5000);
  });

  it("a never-ending body is cut at maxBytes and the connection let go", async () => {
    const answer = text(
      await fetchRun(new HttpWebFetcher({ maxBytes: 256 * 1024 })).call("web_fetch", { url: `${server.url}/endless` }),
    );
    expect(answer).toContain("cut at the size limit");
  });

  it("a redirect to file: or data: is unsupported_url; the fetcher never reads it", async () => {
    for (const route of ["/to-file", "/to-data"]) {
      expect(failure(await fetchRun().call("web_fetch", { url: `${server.url}${route}` })).code, route).toBe("unsupported_url");
    }
  });
});
