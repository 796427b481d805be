import type { ServerResponse } from "node:http";
import { sourcegraphToolGroup } from "agent-tool-catalog/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failure, hostRun, startServer, text } from "../host/support/host-test-kit.js";

// Red team: the Sourcegraph endpoint answers 200 with something that is not its GraphQL JSON (a
// proxy's login page), sends its headers and then stalls the body, or sends a body without end.
// The response was parsed after the timeout's try block with no size limit: the model got
// tool_failed ("Unexpected token '<'", "This operation was aborted") instead of an error it can
// act on, and a never-ending body was buffered whole.

let server: { url: string; close(): Promise<void> };
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = await startServer((_request, response, body) => {
    const { variables } = JSON.parse(body) as { variables: { query: string } };
    const query = variables.query;
    if (query.startsWith("html")) response.writeHead(200, { "content-type": "text/html" }).end("<html>Sign in</html>");
    else if (query.startsWith("stall")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"data":');
      open.add(response);
    } else if (query.startsWith("endless")) {
      response.writeHead(200, { "content-type": "application/json" });
      open.add(response);
      const timer = setInterval(() => response.write(`"${"x".repeat(64 * 1024)}",`), 2);
      response.on("close", () => clearInterval(timer));
    } else {
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ data: { search: { results: { matchCount: 0, limitHit: false, results: [] } } } }));
    }
  });
});
afterAll(async () => {
  for (const response of open) response.destroy();
  await server.close();
});

const sourcegraphRun = (timeoutMs = 20_000) => hostRun([sourcegraphToolGroup({ endpoint: server.url, timeoutMs })]).run;

describe("sourcegraph against a hostile endpoint", () => {
  it("an answer that is not JSON is sourcegraph_error saying so", async () => {
    const error = failure(await sourcegraphRun().call("sourcegraph", { query: "html page" }));
    expect(error.code).toBe("sourcegraph_error");
    expect(error.message).toContain("not JSON");
  });

  it("a body that stalls after the headers is timeout", async () => {
    const error = failure(await sourcegraphRun(500).call("sourcegraph", { query: "stall please" }));
    expect(error.code).toBe("timeout");
  });

  it("a body without end is cut at the size limit: sourcegraph_error, not the heap", async () => {
    const error = failure(await sourcegraphRun(8000).call("sourcegraph", { query: "endless stream" }));
    expect(error.code).toBe("sourcegraph_error");
    expect(error.message).toContain("larger than");
  });

  it("control: a well-formed empty answer reads as no matches", async () => {
    expect(text(await sourcegraphRun().call("sourcegraph", { query: "nothing here" }))).toContain("No matches");
  });
});
