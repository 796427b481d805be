import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { querySpans } from "./query-arguments.js";
import { SearchIndex } from "./search-index.js";

const values = (query: string) =>
  querySpans(query).flatMap((span) => (span.kind === undefined ? [] : [`${span.kind}:${span.text}`]));

describe("querySpans", () => {
  it("finds URLs, host names, paths and file names, without the sentence's punctuation", () => {
    expect(values("grab https://kubernetes.io/blog/x as markdown")).toEqual(["url:https://kubernetes.io/blog/x"]);
    expect(values("what lives under /blog on acme.io?")).toEqual(["path:/blog", "url:acme.io"]);
    expect(values("open example.com/signup, then www.test.org")).toEqual(["url:example.com/signup", "url:www.test.org"]);
    expect(values("show the last 50 lines of /var/log/app/error.log.")).toEqual(["file:/var/log/app/error.log"]);
    expect(values("check (deploy.sh) and 'tsconfig.build.json'")).toEqual(["file:deploy.sh", "file:tsconfig.build.json"]);
    expect(values("what's in ~/Downloads and docs/ and facebook/react")).toEqual([
      "path:~/Downloads",
      "path:docs/",
      "path:facebook/react",
    ]);
    expect(values("replace .gitignore and .env")).toEqual(["file:.gitignore", "file:.env"]);
  });

  it("leaves ordinary words, numbers and abbreviations alone (positive control above)", () => {
    expect(values("version 2.3 shipped, e.g. today at 48.8584, 2.2945")).toEqual([]);
    expect(values("what does spec.template.spec.tolerations mean")).toEqual([]);
    expect(querySpans("list my open issues")).toEqual([{ text: "list my open issues" }]);
  });

  it("keeps every character: the spans put together are the query", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."ab.c/:~ (),'\t\n-_1@w".split("")), maxLength: 60 }), (query) => {
        const spans = querySpans(query);
        expect(spans.map((span) => span.text).join("")).toBe(query);
        for (const span of spans) if (span.kind !== undefined) expect(span.text).not.toMatch(/\s/);
      }),
      { numRuns: 2000 },
    );
  });

  it("stays linear on hostile queries (no pattern backtracks over the whole query)", () => {
    for (const query of [
      "a.".repeat(50_000),
      "abc.def".repeat(20_000),
      "@.".repeat(50_000),
      `${")".repeat(100_000)}x`,
      "a-b.".repeat(30_000),
    ]) {
      const started = performance.now();
      querySpans(query);
      // A backtracking pattern took 20-50 s on these; linear work takes well under 100 ms.
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });
});

describe("SearchIndex with values in the query", () => {
  function catalog(options: { queryValues?: boolean } = {}): SearchIndex {
    const search = new SearchIndex(options);
    search.set({
      name: "scrape",
      description: "Fetch a web page by its URL and return it as markdown.",
      parameters: [{ name: "url" }],
    });
    for (const name of ["kubectl_get", "kubectl_logs", "kubectl_apply", "kubectl_rollout"])
      search.set({ name, server: "kubernetes", description: `Run kubectl ${name.slice(8)} on a Kubernetes cluster blog.` });
    search.set({
      name: "read_text_file",
      description: "Read a text file; head or tail returns the first or last lines.",
      parameters: [{ name: "path" }],
    });
    return search;
  }

  it("counts a URL's or path's words less than the request's words, and the kind of value as a word", () => {
    const search = catalog();
    expect(search.search("grab https://kubernetes.io/blog/kubernetes-release as markdown")[0]?.name).toBe("scrape");
    expect(search.search("show the last 50 lines of /var/kube/kubectl/logs/error.log")[0]?.name).toBe("read_text_file");
    // Positive control: the same words as plain words still find the kubernetes tools.
    expect(search.search("kubernetes logs")[0]?.name).toBe("kubectl_logs");
  });

  it("reads them as plain words with queryValues false (what the default avoids)", () => {
    const hits = catalog({ queryValues: false }).search("grab https://kubernetes.io/blog/kubernetes-release as markdown");
    expect(hits[0]?.name).toMatch(/^kubectl_/);
  });
});
