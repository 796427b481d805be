import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// What a new process loads when it imports an entry of the build (every host process, and the
// test suite's child processes, test/support/child-entry.ts, pay it at start). The host entry
// loads its parsers at first use (src/tool/load-on-demand.ts, as the root entry does): yaml alone is 72 files and
// about 0.1 s of CPU, html-to-text with its HTML parser about 0.05 s. A child process registers a
// loader hook that logs every ES module it loads, adds the CommonJS module cache, and reports the
// files by package; both builds, since a static import would come back in either.
const dist = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "dist");
const work = mkdtempSync(join(tmpdir(), "atc-eager-load-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Packages no entry below loads at import: each is needed only by some calls. */
const ON_DEMAND = ["yaml", "html-to-text", "htmlparser2", "croner", "smol-toml", "ajv", "zod-to-json-schema"];

/**
 * Module files (the package's own chunks and its dependencies', node's built-ins not counted) each
 * entry may load at import: what it loads now (host 26 on 2026-12-07, all the package's own chunks,
 * 21 when this was first counted: the core chunks it shares with the root entry have split as the
 * core grew; zod's 95 load when a host tool is
 * first created, src/host/shared/lazy-zod.ts; it was 116 before; git 12 (13 CommonJS), 17 when it imported
 * the root entry; tools 123,
 * zod and minimatch; mcp 143, the MCP SDK's types and transports without its client, which brings
 * Ajv and zod-to-json-schema at the first connection, src/mcp/load-mcp-client.ts) and a few files to spare. A dependency added to an entry's eager graph
 * overshoots it (html-to-text's is 32 files, yaml's 72), and so does a deferred one coming back.
 */
const BUDGET: Record<string, number> = { "host/index": 28, "git/index": 15, "tools/index": 130, "mcp/index": 152 };

interface Loaded {
  /** Module files loaded, by package (`(own)` for the package's own dist files). */
  readonly packages: Record<string, number>;
  /** All module files loaded. */
  readonly total: number;
  /** The package's own dist files loaded, as absolute paths. */
  readonly own: readonly string[];
}

let probes = 0;

/** What a new process has loaded after importing `entry` in `format` and running `use` (with `api` the entry). */
function loadedBy(entry: string, format: "esm" | "cjs", use = ""): Loaded {
  const file = join(dist, `${entry}.${format === "esm" ? "js" : "cjs"}`);
  const log = join(work, `loaded-${probes}.txt`);
  const script = join(work, `probe-${probes++}.mjs`);
  const hook = `import { appendFileSync } from "node:fs";
    export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context); }`;
  const load = format === "esm" ? `await import(${JSON.stringify(file)})` : `require(${JSON.stringify(file)})`;
  writeFileSync(log, "");
  writeFileSync(
    script,
    `import { readFileSync } from "node:fs";
    import { createRequire, register } from "node:module";
    register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));
    const require = createRequire(import.meta.url);
    const api = ${load};
    ${use}
    const esm = readFileSync(${JSON.stringify(log)}, "utf8").split("\\n").filter((url) => url.startsWith("file:"));
    const files = new Set([...esm.map((url) => new URL(url).pathname), ...Object.keys(require.cache)]);
    files.delete(new URL(import.meta.url).pathname);
    const packages = {};
    for (const file of files) {
      const inside = file.split("/node_modules/");
      const name = inside.length === 1 ? "(own)" : inside.at(-1).split("/").slice(0, inside.at(-1).startsWith("@") ? 2 : 1).join("/");
      packages[name] = (packages[name] ?? 0) + 1;
    }
    const own = [...files].filter((file) => !file.includes("/node_modules/"));
    console.log(JSON.stringify({ packages, total: files.size, own }));`,
  );
  return JSON.parse(execFileSync(process.execPath, [script], { encoding: "utf8", cwd: dist })) as Loaded;
}

const onDemandIn = (loaded: Loaded) => ON_DEMAND.filter((name) => loaded.packages[name] !== undefined);

// Each parser the host defers, used once: a recipe and a skill (yaml), an agent profile
// (smol-toml), a cron schedule (croner), and an HTML page fetched from a local server (html-to-text).
const USE_HOST_PARSERS = `
  if (api.todoToolGroup().tools()[0].name !== "todo") throw new Error("todo");
  const recipe = api.parseRecipe("description: d\\nsteps:\\n  - tool: read\\n", "r");
  if (recipe.steps.length !== 1) throw new Error("recipe");
  api.parseSkillDocument(api.formatSkillDocument({ name: "s", description: "d", body: "b" }), "s");
  if (!api.parseAgentProfile('description = "d"\\n', "p").ok) throw new Error("profile");
  if (api.parseCronSchedule("0 9 * * 1").nextAfter(0) === undefined) throw new Error("cron");
  const http = await import("node:http");
  const server = http.createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<html><head><title>T</title></head><body><p>Hello page</p></body></html>");
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  try {
    const page = await new api.HttpWebFetcher({ allowPrivateNetwork: true }).fetch({
      url: "http://127.0.0.1:" + server.address().port + "/", signal: new AbortController().signal });
    if (!page.text.includes("Hello page") || page.title !== "T") throw new Error("page " + JSON.stringify(page));
  } finally {
    server.close();
  }`;

/**
 * Each test starts node processes that load a built entry: at load 45 on 2 cores one took past
 * vitest's 20 s default. A hang bound only; the claims are the module counts and sizes.
 */
const NEW_PROCESS_TIMEOUT_MS = 120_000;

describe.each(["esm", "cjs"] as const)(
  "the built host entry in a new process (%s)",
  { timeout: NEW_PROCESS_TIMEOUT_MS },
  (format) => {
    it("loads none of its parsers at import, nor zod, within its module budget", () => {
      expect(existsSync(join(dist, "host", "index.js")), "run `npm run build` first").toBe(true);
      const loaded = loadedBy("host/index", format);
      expect(onDemandIn(loaded)).toEqual([]);
      // The host tools' input schemas are built with zod when a tool is first created, not at import.
      expect(loaded.packages.zod).toBeUndefined();
      expect(loaded.total).toBeLessThanOrEqual(BUDGET["host/index"] as number);
    });

    it("loads each when a call needs it (the probe sees them)", () => {
      const loaded = loadedBy("host/index", format, USE_HOST_PARSERS);
      expect(onDemandIn(loaded)).toEqual(["yaml", "html-to-text", "htmlparser2", "croner", "smol-toml"]);
      expect(loaded.packages.zod, "zod is loaded once a host tool is created").toBeGreaterThan(0);
      // The budget counts what the parsers bring: they overshoot it.
      expect(loaded.total).toBeGreaterThan(BUDGET["host/index"] as number);
    });
  },
);

describe.each(["esm", "cjs"] as const)(
  "the built git, tools and mcp entries in a new process (%s)",
  { timeout: NEW_PROCESS_TIMEOUT_MS },
  (format) => {
    it.each(["git/index", "tools/index", "mcp/index"])(
      "%s loads no on-demand package at import, within its module budget",
      (entry) => {
        const loaded = loadedBy(entry, format);
        expect(onDemandIn(loaded)).toEqual([]);
        expect(loaded.total).toBeLessThanOrEqual(BUDGET[entry] as number);
      },
    );
  },
);

// The root entry is what every host process imports, for `createRegistry` at least (a process
// that asks one git tool question imports it beside the git entry). What it costs to import is
// almost all V8 parsing its code (about 0.034 ms of CPU per KB of the package's own files, whitespace
// and comments barely count: minifying a 93 KB chunk to 57 KB did not change it) plus about 0.6 ms
// per module file node's loader resolves, reads and links (2026-12-06, load 13-29 on 2 CPUs:
// 17 files, 363 KB, about 27 ms of CPU alone, 18 the CommonJS build, 12.6-15.2 beside the git
// entry, whose chunks it shares; bench/results/git-entry-import-s52.json, git-new-process-s52.json). It loads no dependency at import: Ajv,
// zod-to-json-schema and smol-toml come with the first call that needs them
// (root-import-lazy.test.ts); zod comes with the host's own schemas. The budget is what it loads
// now (ESM 17 files, 371,662 bytes; CommonJS 18, 378,943) and room for the core to grow by about
// a tenth: the git handlers' shared code (162 KB), a parser or a second copy of the search index
// (93 KB) overshoots it.
const ROOT_FILES = 20;
const ROOT_BYTES = 416 * 1024;

describe.each(["esm", "cjs"] as const)(
  "the built root entry in a new process (%s)",
  { timeout: NEW_PROCESS_TIMEOUT_MS },
  (format) => {
    const ownBytes = (loaded: Loaded) => loaded.own.reduce((sum, file) => sum + statSync(file).size, 0);

    it("loads only the package's own files, within its file and byte budget", () => {
      const loaded = loadedBy("index", format);
      expect(Object.keys(loaded.packages)).toEqual(["(own)"]);
      expect(loaded.total).toBeLessThanOrEqual(ROOT_FILES);
      expect(ownBytes(loaded)).toBeLessThanOrEqual(ROOT_BYTES);
    });

    it("sees a dependency and more files when a call loads one (positive control)", () => {
      // A plain JSON Schema tool's first call loads Ajv (and its files push the count over the budget).
      const loaded = loadedBy(
        "index",
        format,
        `const registry = api.createRegistry({ tools: [api.defineTool({ name: "plain", description: "A plain JSON Schema tool.", inputSchema: { type: "object" }, handler: () => "ok" })] });
      const result = await registry.createRun().call("plain", {});
      if (!result.ok) throw new Error(JSON.stringify(result));`,
      );
      expect(loaded.packages.ajv).toBeGreaterThan(0);
      expect(loaded.total).toBeGreaterThan(ROOT_FILES);
    });
  },
);

// The git entry imports the core's classes and `defineTool` from their modules, not from the root
// entry by name: a host that imports only the git tools (to hand their definitions to a registry
// in another entry's process, or to list their names) no longer loads the root's 325 KB and the
// chunks behind it (about 28 ms of CPU to import the git entry before, 14 after; load 29 on 2 CPUs,
// bench/results/git-import-s51.json). The shared code lands in chunks both entries load, so a
// process that imports both still holds one copy of each class (one file defines `ToolError`).
const GIT_ENTRY_BYTES = 128 * 1024;

describe.each(["esm", "cjs"] as const)(
  "the built git entry in a new process (%s)",
  { timeout: NEW_PROCESS_TIMEOUT_MS },
  (format) => {
    const rootFile = join(dist, format === "esm" ? "index.js" : "index.cjs");
    const ownBytes = (loaded: Loaded) => loaded.own.reduce((sum, file) => sum + statSync(file).size, 0);

    it("loads neither the root entry nor more than its byte budget of the package's own files", () => {
      const loaded = loadedBy("git/index", format);
      expect(loaded.own).not.toContain(rootFile);
      expect(ownBytes(loaded)).toBeLessThanOrEqual(GIT_ENTRY_BYTES);
    });

    it("sees the root entry and its size where it is loaded (positive control)", () => {
      const loaded = loadedBy("index", format);
      expect(loaded.own).toContain(rootFile);
      expect(ownBytes(loaded)).toBeGreaterThan(GIT_ENTRY_BYTES);
    });

    it("shares one copy of the core's classes with the root entry", () => {
      const loaded = loadedBy(
        "git/index",
        format,
        `const root = ${format === "esm" ? `await import(${JSON.stringify(join(dist, "index.js"))})` : `require(${JSON.stringify(join(dist, "index.cjs"))})`};
      const tools = api.createGitTools();
      if (tools.length !== 5) throw new Error("tools");
      const registry = root.createRegistry({ tools });
      if (registry === undefined) throw new Error("registry");`,
      );
      expect(loaded.own).toContain(rootFile);
      // esbuild writes a class as `var ToolError = class extends CatalogError {`.
      for (const name of ["CatalogError", "ToolError"]) {
        const definition = new RegExp(`\\b${name} = class\\b|\\bclass ${name}\\b`);
        const defining = loaded.own.filter((file) => definition.test(readFileSync(file, "utf8")));
        expect(defining, name).toHaveLength(1);
      }
    });
  },
);
