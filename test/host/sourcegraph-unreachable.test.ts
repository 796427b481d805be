import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourcegraphToolGroup } from "../../src/host/index.js";
import { freePort } from "../support/redis-server.js";
import { failure, hostRun, startServer, text } from "./support/host-test-kit.js";

// A failed network call must say why, as web_fetch's does: "fetch failed" alone does not tell the
// model whether trying again can help (nothing listening: no; a connection reset: perhaps).

let server: { url: string; close(): Promise<void> };
let refusingPort: number;

beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.url?.startsWith("/reset/") === true) {
      request.socket.destroy();
      return;
    }
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ data: { search: { results: { matchCount: 0, limitHit: false, results: [] } } } }));
  });
  // A port that was just free and is closed again: connecting to it is refused.
  refusingPort = await freePort();
});
afterAll(() => server.close());

const call = (endpoint: string) => hostRun([sourcegraphToolGroup({ endpoint })]).run.call("sourcegraph", { query: "NewServer" });

describe("sourcegraph when the network call fails", () => {
  it("names a refused connection", async () => {
    const result = failure(await call(`http://127.0.0.1:${refusingPort}`));
    expect(result.code).toBe("sourcegraph_unreachable");
    expect(result.message).toContain("ECONNREFUSED");
    expect(result.message).toContain(`127.0.0.1:${refusingPort}`);
  });

  it("names a connection the server closed without answering", async () => {
    const result = failure(await call(`${server.url}/reset`));
    expect(result.code).toBe("sourcegraph_unreachable");
    expect(result.message).toMatch(/fetch failed \((other side closed|.*ECONNRESET|.*socket)/i);
  });

  it("control: the same server answers on another path", async () => {
    expect(text(await call(server.url))).toBe('No matches for "NewServer".');
  });
});
