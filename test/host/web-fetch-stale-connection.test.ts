import type { Socket } from "node:net";
import { HttpWebFetcher, webToolGroup } from "agent-tool-catalog/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure, hostRun, startServer, text } from "./support/host-test-kit.js";

// A server closes an idle keep-alive connection when it likes (Node's default after 5 s); a request
// the client sends on that connection just then is reset before any answer. Browsers send such a
// request again on a new connection; web_fetch (GET only, nothing answered) does the same, once.
// Here the server resets every second request on a connection, which makes the race certain.

const requestsOn = new WeakMap<Socket, number>();
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  server = await startServer((request, response) => {
    const socket = request.socket;
    const count = (requestsOn.get(socket) ?? 0) + 1;
    requestsOn.set(socket, count);
    if (request.url === "/always-reset" || count > 1) {
      socket.destroy();
      return;
    }
    response.writeHead(200, { "content-type": "text/plain", connection: "keep-alive" }).end(`page ${request.url}`);
  });
});
afterAll(() => server.close());

const fetchRun = () => hostRun([webToolGroup({ fetcher: new HttpWebFetcher() })]).run;

describe("web_fetch on a keep-alive connection the server has closed", () => {
  it("sends the request once more on a new connection and answers", async () => {
    const run = fetchRun();
    expect(text(await run.call("web_fetch", { url: `${server.url}/first` }))).toContain("page /first");
    // The pooled connection is reused and reset: the old code answered fetch_failed here.
    expect(text(await run.call("web_fetch", { url: `${server.url}/second` }))).toContain("page /second");
    expect(text(await run.call("web_fetch", { url: `${server.url}/third` }))).toContain("page /third");
  });

  it("control: a server that resets every request still fails, once retried, and says why", async () => {
    const result = failure(await fetchRun().call("web_fetch", { url: `${server.url}/always-reset` }));
    expect(result.code).toBe("fetch_failed");
    expect(result.message).toMatch(/fetch failed \((other side closed|.*ECONNRESET|.*socket)/i);
  });
});
