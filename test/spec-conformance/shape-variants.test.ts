/**
 * Spec conformance, variants round 4 (/work/shared/spec/agent-tool-catalog.md "Core tools",
 * "find_tool", "Git and code intelligence"; tool-profiles-and-loading.md "Tool output over the
 * condense threshold is summarized"): the exact shape of the results, field by field and word by
 * word, at the counts where wording changes (one and two), and find_tool's select: syntax as
 * models write it. Through the package entries as a user imports them; each area once more from
 * CommonJS through the built package (`npm run build` first). Statement table:
 * docs/spec-conformance.md.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { createGitTools, GIT_TOOL_NAMES } from "agent-tool-catalog/git";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelError, ok, okText, runCommonJs } from "./support.js";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-shape-variants-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

let counter = 0;
async function workspace(files: Record<string, string> = {}): Promise<string> {
  const root = path.join(base, `w${++counter}`);
  await mkdir(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
  return root;
}

function fileRun(root: string, options: { condenseThreshold?: number } = {}): Run {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { workspace: root },
    ...options,
  });
}

describe("counts in results: one is singular, two plural, never (s)", () => {
  it("glob: 1 file matches, 2 files match", async () => {
    const root = await workspace({ "a.txt": "a\n", "b.txt": "b\n", "c.md": "c\n" });
    const run = fileRun(root);
    expect(okText(await run.call("glob", { pattern: "*.md" }))).toBe('1 file matches "*.md" under "."\nc.md');
    expect(okText(await run.call("glob", { pattern: "*.txt" }))).toBe('2 files match "*.txt" under "."\na.txt\nb.txt');
  });

  it("apply_patch: Applied to 1 file; a missing line was not found, two lines were not", async () => {
    const root = await workspace({ "a.txt": "one\ntwo\n" });
    const run = fileRun(root);
    const applied = okText(
      await run.call("apply_patch", { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n" }),
    );
    expect(applied.split("\n").slice(0, 2)).toEqual(["Applied to 1 file, +1 -1:", "M a.txt (+1 -1)"]);
    const one = modelError(
      await run.call("apply_patch", { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+x\n" }),
      "context_not_found",
    );
    expect(one.message.split("\n")[0]).toBe("Hunk 1: 1 line was not found in a.txt:");
    const two = modelError(
      await run.call("apply_patch", { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n nope\n-never\n+x\n" }),
      "context_not_found",
    );
    expect(two.message.split("\n")[0]).toBe("Hunk 1: 2 lines were not found in a.txt:");
  });

  it("read past the end of a one-line file: has 1 line", async () => {
    const root = await workspace({ "one.txt": "only\n", "two.txt": "a\nb\n" });
    const run = fileRun(root);
    expect(modelError(await run.call("read", { path: "one.txt", offset: 3 }), "offset_out_of_range").message).toBe(
      '"one.txt" has 1 line; offset 3 is past the end.',
    );
    expect(modelError(await run.call("read", { path: "two.txt", offset: 3 }), "offset_out_of_range").message).toBe(
      '"two.txt" has 2 lines; offset 3 is past the end.',
    );
  });

  it("file_inspect: preview (first 1 line)", async () => {
    const root = await workspace({ "one.txt": "only\n" });
    const text = okText(await fileRun(root).call("file_inspect", { path: "one.txt" }));
    expect(text).toContain("\npreview (first 1 line):\n     1\tonly");
    expect(text).not.toMatch(/\b1 lines\b/);
  });

  it("grep cut at max_results 1: stopped at 1 result", async () => {
    const root = await workspace({ "a.txt": "x\nx\n" });
    const text = okText(await fileRun(root).call("grep", { pattern: "x", max_results: 1 }));
    expect(text).toContain("\n[stopped at 1 result; narrow the search or raise max_results]");
  });

  it("the condense marker: (1 line) omitted", async () => {
    const text = `${"a".repeat(60)}\n${"b".repeat(10)}\n${"c".repeat(60)}`;
    const echo = defineTool({
      name: "echo_text",
      description: "Echo a fixed text.",
      inputSchema: { type: "object", properties: {} },
      handler: async () => text,
    });
    const run = createRegistry({ tools: [echo] }).createRun({ profile: "full", condenseThreshold: 100 });
    expect(okText(await run.call("echo_text", {}))).toContain("[... 31 characters (1 line) omitted; showing the first 61");
  });

  it("blame past the end of a one-line file: has 1 line", async () => {
    const repo = await workspace({ "one.txt": "only\n" });
    const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
    git("init", "-q", "-b", "main");
    git("-c", "user.email=a@example.com", "-c", "user.name=A", "add", ".");
    git("-c", "user.email=a@example.com", "-c", "user.name=A", "commit", "-qm", "c1");
    const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: repo } });
    run.activate([...GIT_TOOL_NAMES]);
    const error = modelError(await run.call("git_blame_context", { path: "one.txt", line: 2 }), "line_out_of_range");
    expect(error.message).toMatch(/^one\.txt has 1 line at HEAD; line 2 does not exist\.$/);
  });

  it("find_tool: Activated 1 tool; call it ... / Activated 2 tools; call them ...", async () => {
    const run = createRegistry({ tools: createGitTools() }).createRun({});
    const one = ok(await run.call("find_tool", { query: "select:git_log_search" })) as { message: string };
    expect(one.message).toBe("Activated 1 tool; call it directly by name.");
    const two = ok(await run.call("find_tool", { query: "select:git_blame_context,git_diff_range" })) as { message: string };
    expect(two.message).toBe("Activated 2 tools; call them directly by name.");
    const again = ok(await run.call("find_tool", { query: "select:git_log_search" })) as { message: string };
    expect(again.message).toBe("This tool is already available; call it directly by name.");
    const both = ok(await run.call("find_tool", { query: "select:git_log_search,git_diff_range" })) as { message: string };
    expect(both.message).toBe("These tools are already available; call them directly by name.");
  });

  it("from CommonJS: glob and find_tool say one in the singular", async () => {
    const root = await workspace({ "c.md": "c\n" });
    const out = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      const { createGitTools } = require("agent-tool-catalog/git");
      const run = createRegistry({ tools: [...createFileTools(), ...createGitTools()] }).createRun({ profile: "full", permissions: { workspace: ${JSON.stringify(root)} } });
      Promise.all([run.call("glob", { pattern: "*.md" }), run.call("find_tool", { query: "select:git_log_search" })])
        .then(([glob, found]) => console.log(JSON.stringify([glob.output, found.output.message])));`);
    expect(out).toEqual(['1 file matches "*.md" under "."\nc.md', "Activated 1 tool; call it directly by name."]);
  });
});

describe("find_tool select: as models write it", () => {
  const weather = defineTool({
    name: "weather-report",
    description: "Report the weather.",
    tier: "deferred",
    inputSchema: { type: "object", properties: {} },
    handler: async () => "sunny",
  });
  const newRun = () => createRegistry({ tools: [...createGitTools(), weather] }).createRun({});
  type Found = { activated: { name: string }[]; not_found: { name: string; suggestions: string[] }[] };
  const activated = (found: unknown) => (found as Found).activated.map((tool) => tool.name);

  it.each([
    ["spaces", "select:git_log_search git_blame_context"],
    ["commas and spaces", "select: git_log_search ,  git_blame_context "],
    ["one per line", "select:git_log_search\ngit_blame_context"],
    ["select: repeated", "select:git_log_search select:git_blame_context"],
    ["semicolons", "select:git_log_search;git_blame_context"],
    ["quotes and backticks", 'select:"git_log_search", `git_blame_context`'],
  ])("%s separate names: both activated", async (_kind, query) => {
    const run = newRun();
    expect(activated(ok(await run.call("find_tool", { query })))).toEqual(["git_log_search", "git_blame_context"]);
    expect(run.isVisible("git_log_search") && run.isVisible("git_blame_context")).toBe(true);
    expect(run.isVisible("git_diff_range")).toBe(false);
  });

  it("a hyphen is part of a name; duplicates activate once; an unknown name beside a known one is reported", async () => {
    const run = newRun();
    const events: string[] = [];
    run.events.on("tool.activated", (event) => events.push(event.name));
    const found = ok(
      await run.call("find_tool", { query: "select:weather-report, weather-report git_diff_range nope" }),
    ) as Found;
    expect(activated(found)).toEqual(["weather-report", "git_diff_range"]);
    expect(found.not_found).toEqual([{ name: "nope", suggestions: [] }]);
    expect(events).toEqual(["weather-report", "git_diff_range"]);
  });

  it("names are exact: another case is unknown_tool with the name as it is; nothing after select: is invalid_input", async () => {
    const run = newRun();
    const error = modelError(await run.call("find_tool", { query: "select:GIT_LOG_SEARCH" }), "unknown_tool");
    expect(error.message).toContain('did you mean "git_log_search"?');
    expect(run.isVisible("git_log_search")).toBe(false);
    modelError(await run.call("find_tool", { query: "select: ; \n ``" }), "invalid_input");
  });

  it("a tool the run keeps from the model is said to be so, as a direct call says it; an unknown name is not", async () => {
    const run = createRegistry({ tools: [...createGitTools(), weather] }).createRun({
      allowedTools: ["git_log_search", "weather-report"],
      loadModes: { "weather-report": "off" },
    });
    const denied = modelError(await run.call("find_tool", { query: "select:git_blame_context" }), "unknown_tool");
    expect(denied.message).toBe(
      'No tool named "git_blame_context" can be activated. "git_blame_context": not allowed in this run.',
    );
    expect(modelError(await run.call("git_blame_context", { path: "a", line: 1 }), "tool_not_allowed").message).toBe(
      'The tool "git_blame_context" is not allowed in this run.',
    );
    const off = modelError(await run.call("find_tool", { query: "select:weather-report" }), "unknown_tool");
    expect(off.message).toContain('"weather-report": turned off in this run.');
    const mixed = ok(await run.call("find_tool", { query: "select:git_log_search git_diff_range nope" })) as Found;
    expect(activated(mixed)).toEqual(["git_log_search"]);
    expect(mixed.not_found).toEqual([
      { name: "git_diff_range", suggestions: [], reason: "not_allowed" },
      { name: "nope", suggestions: [] },
    ]);
    // Control: a name that exists nowhere still gets the closest names this run can use.
    const unknown = modelError(await run.call("find_tool", { query: "select:git_log_serch" }), "unknown_tool");
    expect(unknown.message).toContain('"git_log_serch": did you mean "git_log_search"?');
  });

  it("from CommonJS: select:a b activates both", async () => {
    const out = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createGitTools } = require("agent-tool-catalog/git");
      const run = createRegistry({ tools: createGitTools() }).createRun({});
      run.call("find_tool", { query: "select:git_log_search git_blame_context" })
        .then((result) => console.log(JSON.stringify(result.ok ? result.output.activated.map((tool) => tool.name) : result.error.code)));`);
    expect(out).toEqual(["git_log_search", "git_blame_context"]);
  });
});
