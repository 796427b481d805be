import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourcegraphToolGroup } from "../../src/host/index.js";
import { failure, hostRun, startServer, text, toolNames } from "./support/host-test-kit.js";

let server: { url: string; close(): Promise<void> };
const received: { authorization: string | undefined; path: string | undefined; query: string }[] = [];

const RESULTS = {
  data: {
    search: {
      results: {
        matchCount: 3,
        limitHit: true,
        results: [
          {
            __typename: "FileMatch",
            repository: { name: "github.com/acme/api" },
            file: { path: "server/main.go", url: "/github.com/acme/api/-/blob/server/main.go" },
            lineMatches: [
              { preview: "func NewServer() *Server {", lineNumber: 41 },
              { preview: "  return NewServer()", lineNumber: 99 },
            ],
          },
          { __typename: "Repository", name: "github.com/acme/server-kit", url: "/github.com/acme/server-kit" },
        ],
      },
    },
  },
};

beforeAll(async () => {
  server = await startServer((request, response, body) => {
    const { variables } = JSON.parse(body) as { variables: { query: string } };
    received.push({ authorization: request.headers.authorization, path: request.url, query: variables.query });
    const reply = (status: number, payload: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
    if (variables.query.startsWith("denied")) reply(401, { error: "no" });
    else if (variables.query.startsWith("bad(")) reply(200, { errors: [{ message: "unbalanced parenthesis" }] });
    else if (variables.query.startsWith("nothing"))
      reply(200, { data: { search: { results: { matchCount: 0, limitHit: false, results: [] } } } });
    else reply(200, RESULTS);
  });
});
afterAll(() => server.close());

describe("sourcegraph", () => {
  it("is present only when an endpoint is configured", () => {
    expect(toolNames(hostRun([sourcegraphToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([sourcegraphToolGroup({ endpoint: "" })]).registry)).toEqual([]);
    expect(toolNames(hostRun([sourcegraphToolGroup({ endpoint: server.url })]).registry)).toEqual(["sourcegraph"]);
  });

  it("searches over GraphQL with the token and a count, and flattens matches to lines", async () => {
    const { run } = hostRun([sourcegraphToolGroup({ endpoint: `${server.url}/`, token: "sgp_test" })]);
    const output = text(await run.call("sourcegraph", { query: "lang:go NewServer", max_results: 10 }));
    expect(received.at(-1)).toEqual({
      authorization: "token sgp_test",
      path: "/.api/graphql",
      query: "lang:go NewServer count:10",
    });
    expect(output).toBe(
      [
        "3 of 3 matches (more exist; narrow the query):",
        "github.com/acme/api server/main.go:42: func NewServer() *Server {",
        "github.com/acme/api server/main.go:100: return NewServer()",
        "github.com/acme/server-kit",
      ].join("\n"),
    );
    text(await run.call("sourcegraph", { query: "count:3 NewServer" }));
    expect(received.at(-1)?.query).toBe("count:3 NewServer");
  });

  it("reports query errors, refused tokens and empty results", async () => {
    const { run } = hostRun([sourcegraphToolGroup({ endpoint: server.url })]);
    expect(failure(await run.call("sourcegraph", { query: "bad(" }))).toMatchObject({
      code: "sourcegraph_error",
      message: expect.stringContaining("unbalanced"),
    });
    expect(failure(await run.call("sourcegraph", { query: "denied" }))).toMatchObject({
      code: "http_error",
      hint: expect.stringContaining("token"),
    });
    expect(text(await run.call("sourcegraph", { query: "nothing here" }))).toBe('No matches for "nothing here".');
    expect(failure(await run.call("sourcegraph", { query: "x", max_results: 101 })).code).toBe("invalid_input");
    const unreachable = hostRun([sourcegraphToolGroup({ endpoint: "http://127.0.0.1:1" })]).run;
    expect(failure(await unreachable.call("sourcegraph", { query: "x" })).code).toBe("sourcegraph_unreachable");
  });
});
