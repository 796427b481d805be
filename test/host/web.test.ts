import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpWebFetcher, type WebSearcher, webToolGroup } from "../../src/host/index.js";
import { failure, hostRun, ScriptedRunner, startServer, text, toolNames } from "./support/host-test-kit.js";

let server: { url: string; close(): Promise<void> };

const PAGE = `<!doctype html><html><head><title>Release &amp; notes</title><style>body{color:red}</style>
<script>window.secret = "do-not-show";</script></head>
<body><h1>Version 2</h1><p>See <a href="/docs/intro">the introduction</a> for details.</p><img src="x.png" alt="logo"></body></html>`;

beforeAll(async () => {
  server = await startServer((request, response) => {
    const route = request.url ?? "/";
    if (route === "/page") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    } else if (route === "/latin1") {
      response.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (route === "/redirect") {
      response.writeHead(302, { location: "/page" }).end();
    } else if (route.startsWith("/loop")) {
      response.writeHead(301, { location: `/loop${route.length}` }).end();
    } else if (route === "/big") {
      response.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(50_000));
    } else if (route === "/image") {
      response.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]));
    } else if (route === "/slow") {
      setTimeout(() => response.writeHead(200, { "content-type": "text/plain" }).end("late"), 2_000);
    } else if (route === "/untyped") {
      response.end("<html><body><p>sniffed html</p></body></html>");
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("nope");
    }
  });
});
afterAll(() => server.close());

const searcher: WebSearcher = {
  search: async ({ query, limit }) =>
    Array.from({ length: 60 }, (_, index) => ({
      title: `${query} ${index + 1}`,
      url: `https://example.com/${index + 1}`,
      snippet: "a  snippet\n",
    })).slice(0, limit + 3),
};

function webRun(fetcher = new HttpWebFetcher(), context: Record<string, unknown> = {}) {
  const runner = new ScriptedRunner((request) => ({
    output: `answer from depth ${request.depth}: ${request.prompt.includes("Version 2")}`,
  }));
  const { run } = hostRun([webToolGroup({ fetcher, searcher, agentRunner: runner })], { context });
  return { run, runner };
}

describe("web tool group", () => {
  it("is absent without a fetcher or when a switch is off, and has web_search only with a searcher", () => {
    const fetcher = new HttpWebFetcher();
    expect(toolNames(hostRun([webToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([webToolGroup({ fetcher, enableWebOps: false })]).registry)).toEqual([]);
    expect(toolNames(hostRun([webToolGroup({ fetcher, enableAgent: false })]).registry)).toEqual([]);
    expect(toolNames(hostRun([webToolGroup({ fetcher })]).registry)).toEqual(["web_fetch"]);
    const all = hostRun([webToolGroup({ fetcher, searcher, agentRunner: new ScriptedRunner(() => ({ output: "" })) })]);
    expect(toolNames(all.registry)).toEqual(["web_search", "web_fetch", "agentic_fetch"]);
    expect(all.registry.get("web_fetch")?.tags).toContain("builtin");
  });
});

describe("web_fetch with the default fetcher", () => {
  it("converts HTML to text: title, absolute links, no scripts, styles or images", async () => {
    const page = text(await webRun().run.call("web_fetch", { url: `${server.url}/page` }));
    expect(page).toContain(`URL: ${server.url}/page`);
    expect(page).toContain("HTTP 200 · text/html");
    expect(page).toContain("Title: Release & notes");
    expect(page).toContain("Version 2");
    expect(page).toContain(`the introduction [${server.url}/docs/intro]`);
    expect(page).not.toMatch(/do-not-show|color:red|logo/);
  });

  it("follows redirects, decodes the charset, sniffs untyped HTML and reads long pages in windows", async () => {
    const { run } = webRun();
    expect(text(await run.call("web_fetch", { url: `${server.url}/redirect` }))).toContain(`URL: ${server.url}/page`);
    expect(text(await run.call("web_fetch", { url: `${server.url}/latin1` }))).toMatch(/café$/);
    expect(text(await run.call("web_fetch", { url: `${server.url}/untyped` }))).toContain("sniffed html");
    const first = text(await run.call("web_fetch", { url: `${server.url}/big`, max_chars: 20_000 }));
    expect(first).toContain("characters 0-20000 of 50000");
    expect(first).toMatch(/\[more: continue with offset=20000\]$/);
    const last = text(await run.call("web_fetch", { url: `${server.url}/big`, offset: 40_000, max_chars: 20_000 }));
    expect(last).toContain("characters 40000-50000 of 50000");
    expect(last).not.toContain("[more:");
  });

  it("caps the body size and bounds redirects", async () => {
    const capped = text(await webRun(new HttpWebFetcher({ maxBytes: 1000 })).run.call("web_fetch", { url: `${server.url}/big` }));
    expect(capped).toContain("1000 bytes (cut at the size limit)");
    const looping = failure(
      await webRun(new HttpWebFetcher({ maxRedirects: 3 })).run.call("web_fetch", { url: `${server.url}/loop` }),
    );
    expect(looping.code).toBe("too_many_redirects");
    expect(looping.message).toContain("more than 3 times");
  });

  it("reports bad input and failures as errors the model can read", async () => {
    const { run } = webRun(new HttpWebFetcher({ timeoutMs: 300 }));
    expect(failure(await run.call("web_fetch", { url: "not a url" })).code).toBe("invalid_url");
    expect(failure(await run.call("web_fetch", { url: "file:///etc/passwd" })).code).toBe("unsupported_url");
    expect(failure(await run.call("web_fetch", { url: `${server.url}/missing` }))).toMatchObject({
      code: "http_error",
      message: expect.stringContaining("404"),
    });
    expect(failure(await run.call("web_fetch", { url: `${server.url}/image` }))).toMatchObject({
      code: "unsupported_content_type",
      hint: expect.stringContaining("download"),
    });
    expect(failure(await run.call("web_fetch", { url: `${server.url}/slow` })).code).toBe("timeout");
    expect(failure(await run.call("web_fetch", { url: "http://127.0.0.1:1/" })).code).toBe("fetch_failed");
  });

  it("asks allowUrl before every hop, redirects included", async () => {
    const seen: string[] = [];
    const fetcher = new HttpWebFetcher({
      allowUrl: (url) => {
        seen.push(url.pathname);
        return url.pathname !== "/page";
      },
    });
    const refused = failure(await webRun(fetcher).run.call("web_fetch", { url: `${server.url}/redirect` }));
    expect(refused.code).toBe("url_not_allowed");
    expect(seen).toEqual(["/redirect", "/page"]);
  });
});

describe("web_search", () => {
  it("returns 5 results by default and up to 50, and refuses more", async () => {
    const { run } = webRun();
    const five = text(await run.call("web_search", { query: "vitest" }));
    expect(five).toMatch(/^5 results for "vitest":\n1\. vitest 1\n {3}https:\/\/example\.com\/1\n {3}a snippet/);
    expect(five).not.toContain("6. ");
    expect(text(await run.call("web_search", { query: "vitest", max_results: 50 }))).toContain("50. vitest 50");
    expect(failure(await run.call("web_search", { query: "vitest", max_results: 51 })).code).toBe("invalid_input");
    expect(failure(await run.call("web_search", { query: "  " })).code).toBe("invalid_input");
  });
});

describe("agentic_fetch", () => {
  it("hands the fetched page to a child agent and returns its answer", async () => {
    const { run, runner } = webRun();
    const answer = text(await run.call("agentic_fetch", { url: `${server.url}/page`, prompt: "Which version?" }));
    expect(answer).toBe(`Source: ${server.url}/page\n\nanswer from depth 1: true`);
    expect(runner.requests[0]?.prompt).toContain("Request: Which version?");
    expect(runner.requests[0]?.parentRunId).toBe(run.id);
  });

  it("refuses past the fork depth limit", async () => {
    const { run, runner } = webRun(new HttpWebFetcher(), { agentDepth: 5 });
    expect(failure(await run.call("agentic_fetch", { url: `${server.url}/page`, prompt: "x" })).code).toBe(
      "max_fork_depth_exceeded",
    );
    expect(runner.requests).toHaveLength(0);
  });
});
