import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The root entry loads Ajv, zod-to-json-schema and smol-toml only when a call needs them
// (src/tool/load-on-demand.ts). A child process imports the built entry and reports which of
// them sit in the module cache; every one of them is CommonJS-loaded, so the cache sees it.
const dist = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "dist");
const ON_DEMAND = ["ajv", "zod-to-json-schema", "smol-toml"];

function loadedAfter(format: "esm" | "cjs", use: string): string[] {
  const entry = join(dist, format === "esm" ? "index.js" : "index.cjs");
  const report = `
    const seen = Object.keys(cache).map((file) => file.split("/node_modules/").at(-1).split("/")[0]);
    console.log(JSON.stringify([...new Set(seen)].filter((name) => ${JSON.stringify(ON_DEMAND)}.includes(name)).sort()));`;
  const script =
    format === "esm"
      ? `import { createRequire } from "node:module";
         const cache = createRequire(import.meta.url).cache;
         const api = await import(${JSON.stringify(entry)});
         await (async () => { ${use} })();
         ${report}`
      : `const cache = require.cache;
         const api = require(${JSON.stringify(entry)});
         (async () => { ${use} })().then(() => { ${report} });`;
  const args = format === "esm" ? ["--input-type=module", "-e", script] : ["-e", script];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", cwd: dist })) as string[];
}

// Defining a plain JSON Schema tool checks its structure only; the call validates, with Ajv.
const DEFINE = `
  const registry = api.createRegistry({ tools: [api.defineTool({ name: "plain", description: "A plain JSON Schema tool.", inputSchema: { type: "object" }, handler: () => "ok" })] });`;
const USE_ALL = `${DEFINE}
  const result = await registry.createRun().call("plain", {});
  if (!result.ok) throw new Error(JSON.stringify(result));
  api.parseToolConfig("[tools]\\nprofile = \\"core\\"\\n");`;

describe.each(["esm", "cjs"] as const)("the built root entry (%s)", (format) => {
  it("loads no on-demand dependency when imported", () => {
    expect(existsSync(join(dist, "index.js")), "run `npm run build` first").toBe(true);
    expect(loadedAfter(format, "")).toEqual([]);
  });

  it("defining a plain JSON Schema tool loads no Ajv (its structure is checked without it)", () => {
    expect(loadedAfter(format, DEFINE)).toEqual([]);
  });

  it("loads them when a call needs them (the probe sees a loaded one)", () => {
    expect(loadedAfter(format, USE_ALL)).toEqual(["ajv", "smol-toml"]);
  });
});

// zod is most of a new process's import cost (about 0.1 s of CPU), so neither the root nor the git
// entry loads it: their own tools use src/tool/object-schema.ts, and a zod 4 schema converts
// itself. zod's core module leaves its registry on globalThis, which an ESM import (invisible to
// the require cache) sets too.
function zodLoadedAfter(format: "esm" | "cjs", entries: readonly string[], use = ""): boolean {
  const load = (entry: string) =>
    format === "esm" ? `await import(${JSON.stringify(entry)})` : `require(${JSON.stringify(entry)})`;
  const body = `const api = [${entries.map(load).join(", ")}];\n${use}\nconsole.log(JSON.stringify(globalThis.__zod_globalRegistry !== undefined));`;
  const script = format === "esm" ? body : `(async () => {\n${body}\n})();`;
  const args = format === "esm" ? ["--input-type=module", "-e", script] : ["-e", script];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", cwd: dist })) as boolean;
}

describe.each(["esm", "cjs"] as const)("zod in a new process (%s)", (format) => {
  const extension = format === "esm" ? "js" : "cjs";

  it("is not loaded by the root and git entries, nor by a git tool's call and its argument check", () => {
    const use = `
      const [{ createRegistry }, { createGitTools }] = api;
      const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: ${JSON.stringify(dist)} } });
      run.activate(["git_log_search"]);
      const result = await run.call("git_log_search", { query: "" });
      if (result.ok || result.error.code !== "invalid_input") throw new Error(JSON.stringify(result));`;
    expect(zodLoadedAfter(format, [join(dist, `index.${extension}`), join(dist, "git", `index.${extension}`)], use)).toBe(false);
  });

  it("is seen by the probe when an entry that uses it is imported", () => {
    expect(zodLoadedAfter(format, [join(dist, "tools", `index.${extension}`)])).toBe(true);
  });
});

// The git entry holds the tool definitions only; what the tools run (object readers over node's
// zlib and fs, history walks, diffs) is loaded by the first git tool call (src/git/load-git-handlers.ts),
// so a host that imports the entry and registers the tools pays for their definitions alone.
// node:zlib stands for that code: only the pack and loose-object readers use it.
function zlibLoadedAfter(format: "esm" | "cjs", use: string): boolean {
  const extension = format === "esm" ? "js" : "cjs";
  const load = (entry: string) =>
    format === "esm" ? `await import(${JSON.stringify(entry)})` : `require(${JSON.stringify(entry)})`;
  const entries = [join(dist, `index.${extension}`), join(dist, "git", `index.${extension}`)];
  const body = `const api = [${entries.map(load).join(", ")}];
    const [{ createRegistry }, { createGitTools }] = api;
    const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: ${JSON.stringify(resolve(dist, ".."))} } });
    run.activate(["git_log_search"]);
    ${use}
    console.log(JSON.stringify(process.moduleLoadList.includes("NativeModule zlib")));`;
  const script = format === "esm" ? body : `(async () => {\n${body}\n})();`;
  const args = format === "esm" ? ["--input-type=module", "-e", script] : ["-e", script];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", cwd: dist })) as boolean;
}

describe.each(["esm", "cjs"] as const)("the built git entry (%s)", (format) => {
  it("loads the tools' handlers only when a git tool runs", () => {
    expect(zlibLoadedAfter(format, "")).toBe(false);
  });

  it("loads them for a call (the probe sees them loaded)", () => {
    const call = `
      const result = await run.call("git_log_search", { query: "x", mode: "message", max_results: 1 });
      if (!result.ok) throw new Error(JSON.stringify(result.error));`;
    expect(zlibLoadedAfter(format, call)).toBe(true);
  });
});

// node:crypto costs a new process about 3 ms of CPU to load (stop 39): a run's id comes from the
// kernel's random device where there is one, and the git tools load it only for a repository with
// replace refs or grafts (their fingerprint). A git tool call in a new process loads it otherwise not.
function cryptoLoadedAfterGitCall(format: "esm" | "cjs", repository: string): boolean {
  const extension = format === "esm" ? "js" : "cjs";
  const load = (entry: string) =>
    format === "esm" ? `await import(${JSON.stringify(entry)})` : `require(${JSON.stringify(entry)})`;
  const entries = [join(dist, `index.${extension}`), join(dist, "git", `index.${extension}`)];
  const body = `const api = [${entries.map(load).join(", ")}];
    const [{ createRegistry }, { createGitTools }] = api;
    const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: ${JSON.stringify(repository)} } });
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(run.id)) throw new Error("run id " + run.id);
    run.activate(["git_log_search"]);
    const result = await run.call("git_log_search", { query: "first", mode: "message", max_results: 1 });
    if (!result.ok || result.output.commits.length !== 1) throw new Error(JSON.stringify(result));
    console.log(JSON.stringify(process.moduleLoadList.includes("NativeModule crypto")));`;
  const script = format === "esm" ? body : `(async () => {\n${body}\n})();`;
  // From a file: `node -e` in CommonJS mode has loaded node:crypto before the script runs.
  const file = join(repository, "..", `${basename(repository)}-probe.${format === "esm" ? "mjs" : "cjs"}`);
  writeFileSync(file, script);
  try {
    return JSON.parse(execFileSync(process.execPath, [file], { encoding: "utf8", cwd: dist })) as boolean;
  } finally {
    rmSync(file, { force: true });
  }
}

describe.each(["esm", "cjs"] as const)("node:crypto in a new process (%s)", (format) => {
  const repository = mkdtempSync(join(tmpdir(), "atc-crypto-probe-"));
  const git = (...args: string[]) => execFileSync("git", ["-C", repository, ...args], { encoding: "utf8" }).trim();
  git("init", "-q");
  writeFileSync(join(repository, "a.txt"), "a\n");
  git("add", "a.txt");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first");
  afterAll(() => rmSync(repository, { recursive: true, force: true }));

  it("is not loaded by creating a run and a git tool's call", () => {
    expect(cryptoLoadedAfterGitCall(format, repository)).toBe(false);
  });

  it("is loaded for a repository with grafts (the probe sees it loaded)", () => {
    const graftsFile = join(repository, ".git", "info", "grafts");
    mkdirSync(dirname(graftsFile), { recursive: true });
    writeFileSync(graftsFile, `${git("rev-parse", "HEAD")}\n`);
    try {
      expect(cryptoLoadedAfterGitCall(format, repository)).toBe(true);
    } finally {
      rmSync(graftsFile);
    }
  });
});
