import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Each git tool's handler is a chunk of its own (src/git/load-git-handlers.ts): a process that
// asks one question compiles that tool's code and what the tools share, not the other four
// tools' (the diff renderer, blame's line mapping, the contributor tally). A child process
// imports the built entries, makes one call and reports every file of dist/ it loaded: CommonJS
// from require's cache, ESM from a resolve hook that appends each resolved URL to a file.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = join(root, "dist");
const scratch = mkdtempSync(join(tmpdir(), "atc-handler-chunks-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const HANDLER_CHUNKS = ["log-search", "file-history", "blame", "diff-range", "contributor"];

/** The handler chunks (by tool name stem) a new process loaded for one call of `tool`. */
function handlerChunksLoadedBy(format: "esm" | "cjs", tool: string, args: object): string[] {
  const extension = format === "esm" ? "js" : "cjs";
  const log = join(scratch, `${format}-${tool}.log`);
  writeFileSync(log, "");
  const entries = [join(dist, `index.${extension}`), join(dist, "git", `index.${extension}`)];
  const load = (entry: string) =>
    format === "esm" ? `await import(${JSON.stringify(entry)})` : `require(${JSON.stringify(entry)})`;
  const call = `const [{ createRegistry }, { createGitTools, GIT_TOOL_NAMES }] = [${entries.map(load).join(", ")}];
    const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: ${JSON.stringify(root)} } });
    run.activate([...GIT_TOOL_NAMES]);
    const result = await run.call(${JSON.stringify(tool)}, ${JSON.stringify(args)});
    if (!result.ok) throw new Error(JSON.stringify(result.error));`;
  let file: string;
  if (format === "esm") {
    const hook = join(scratch, "record-hook.mjs");
    writeFileSync(
      hook,
      `import { appendFileSync } from "node:fs";
       export async function resolve(specifier, context, next) {
         const result = await next(specifier, context);
         appendFileSync(${JSON.stringify(log)}, result.url + "\\n");
         return result;
       }`,
    );
    file = join(scratch, `${tool}.mjs`);
    writeFileSync(
      file,
      `import { register } from "node:module";
       import { pathToFileURL } from "node:url";
       register(pathToFileURL(${JSON.stringify(hook)}));
       ${call}`,
    );
  } else {
    file = join(scratch, `${tool}.cjs`);
    writeFileSync(
      file,
      `(async () => {
         ${call}
         require("node:fs").writeFileSync(${JSON.stringify(log)}, Object.keys(require.cache).join("\\n"));
       })();`,
    );
  }
  execFileSync(process.execPath, [file], { encoding: "utf8", cwd: dist });
  const loaded = readFileSync(log, "utf8")
    .split("\n")
    .map((line) => basename(line));
  return HANDLER_CHUNKS.filter((stem) => loaded.some((name) => new RegExp(`^${stem}-[A-Z0-9]+\\.${extension}$`).test(name)));
}

describe.each(["esm", "cjs"] as const)("the git tools' handler chunks in a new process (%s)", (format) => {
  it("a call loads its own tool's handler chunk and no other tool's", () => {
    expect(handlerChunksLoadedBy(format, "git_log_search", { query: "x", mode: "message", max_results: 1 })).toEqual([
      "log-search",
    ]);
    expect(handlerChunksLoadedBy(format, "git_diff_range", { from: "HEAD", to: "HEAD" })).toEqual(["diff-range"]);
  });
});
