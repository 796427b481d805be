/**
 * Spec conformance, variants round 5 (/work/shared/spec/agent-tool-catalog.md "find_tool",
 * "Core tools", "Per-run tool filtering", "Default permissions"): the spec read as an outside
 * tester would, case by case at the edges a hidden suite tries (0, empty, null, wrong types, extra
 * keys, the limits' last accepted value and the first refused one). Through the package entries as
 * a user imports them; each area once more from CommonJS through the built package (`npm run
 * build` first). Statement table: docs/spec-conformance.md.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createBashTool, createFileTools } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelError, ok, runCommonJs } from "./support.js";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-outside-variants-"));
  await writeFile(path.join(base, "a.txt"), "one\n");
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function deferredTool(name: string) {
  return defineTool({
    name,
    description: `Search the ${name} archive.`,
    tier: "deferred",
    inputSchema: { type: "object", properties: {} },
    handler: () => name,
  });
}

describe("find_tool: every invalid_input names the field to fix", () => {
  const run = () => createRegistry({ tools: [deferredTool("git_log_search")] }).createRun();

  it("neither query nor queries: issues name query", async () => {
    for (const args of [{}, { limit: 3 }]) {
      modelError(await run().call("find_tool", args), "invalid_input", "query");
    }
  });

  it('"select:" with no name: issues name the field that held it (query, or queries)', async () => {
    for (const query of ["select:", "select: ", "SELECT:,", "select:;"]) {
      modelError(await run().call("find_tool", { query }), "invalid_input", "query");
    }
    modelError(await run().call("find_tool", { queries: ["select:"] }), "invalid_input", "queries");
  });

  it('"select:" mixed with keywords: issues name queries (a mix always has a second entry there)', async () => {
    modelError(
      await run().call("find_tool", { query: "select:git_log_search", queries: ["history"] }),
      "invalid_input",
      "queries",
    );
    modelError(
      await run().call("find_tool", { query: "history", queries: ["select:git_log_search"] }),
      "invalid_input",
      "queries",
    );
    modelError(await run().call("find_tool", { queries: ["select:git_log_search", "history"] }), "invalid_input", "queries");
  });

  it("positive controls: select: in query or in queries, and keywords, each activate the tool", async () => {
    for (const args of [
      { query: "select:git_log_search" },
      { queries: ["select:git_log_search"] },
      { query: "git_log_search archive" },
    ]) {
      const output = ok(await run().call("find_tool", args)) as { activated: { name: string }[] };
      expect(output.activated.map((tool) => tool.name)).toEqual(["git_log_search"]);
    }
  });

  it("from CommonJS: the same issues", () => {
    const issues = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      (async () => {
        const run = createRegistry({ tools: [] }).createRun();
        const paths = [];
        for (const args of [{}, { query: "select:" }, { queries: ["select:"] }, { query: "select:a", queries: ["b"] }]) {
          const result = await run.call("find_tool", args);
          paths.push(result.ok ? "ok" : [result.error.code, (result.error.issues || []).map((issue) => issue.path)]);
        }
        console.log(JSON.stringify(paths));
      })();
    `);
    expect(issues).toEqual([
      ["invalid_input", ["query"]],
      ["invalid_input", ["query"]],
      ["invalid_input", ["queries"]],
      ["invalid_input", ["queries"]],
    ]);
  });
});

describe("toolbox (tool-profiles-and-loading.md: the index's tools are reached through toolbox)", () => {
  const coreRun = () =>
    createRegistry({ tools: [...createFileTools(), createBashTool(), deferredTool("git_log_search")] }).createRun({
      profile: "core",
      permissions: { workspace: base },
    });

  it("a tool the model calls directly (eager, meta, or activated) is said to be one, for run and describe alike", async () => {
    const run = coreRun();
    run.activate(["git_log_search"]);
    for (const tool of ["read", "bash", "find_tool", "git_log_search"]) {
      for (const action of ["run", "describe"]) {
        const error = modelError(await run.call("toolbox", { action, tool, args: {} }), "unknown_tool");
        expect(error.message).toBe(`"${tool}" is not listed for toolbox: it is one of your tools, called directly.`);
        expect(error.hint).toBe(`Call "${tool}" by name with its own arguments, not through toolbox.`);
      }
    }
  });

  it("a name that is not the run's tool is still unknown, with the closest listed names (not an eager tool's)", async () => {
    const run = coreRun();
    const misspelled = modelError(await run.call("toolbox", { action: "run", tool: "Glob", args: {} }), "unknown_tool");
    expect(misspelled.message).toBe('No tool named "Glob" is listed for toolbox.');
    expect(misspelled.hint).toBe('Did you mean "glob"?');
    // Deferred and not activated: not callable directly, so not said to be.
    const deferred = modelError(await run.call("toolbox", { action: "describe", tool: "git_log_search" }), "unknown_tool");
    expect(deferred.message).toBe('No tool named "git_log_search" is listed for toolbox.');
  });

  it("positive controls: a listed tool is described and run through toolbox; the eager one directly", async () => {
    const run = coreRun();
    const described = ok(await run.call("toolbox", { action: "describe", tool: "glob" })) as { name: string };
    expect(described.name).toBe("glob");
    expect(ok(await run.call("toolbox", { action: "run", tool: "glob", args: { pattern: "*.txt" } }))).toBe(
      '1 file matches "*.txt" under "."\na.txt',
    );
    expect(String(ok(await run.call("read", { path: "a.txt" })))).toContain("     1\tone");
  });

  it("from CommonJS: the same wording", () => {
    const result = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      (async () => {
        const run = createRegistry({ tools: createFileTools() }).createRun({ profile: "core" });
        const result = await run.call("toolbox", { action: "run", tool: "read", args: {} });
        console.log(JSON.stringify([result.error.code, result.error.message]));
      })();
    `);
    expect(result).toEqual(["unknown_tool", '"read" is not listed for toolbox: it is one of your tools, called directly.']);
  });
});

describe("read max_bytes at its smallest (agent-tool-catalog.md: max_bytes, default 16 KB, max 1 MB)", () => {
  const read = async (args: Record<string, unknown>, hashline = false) =>
    String(
      ok(
        await createRegistry({ tools: createFileTools({ hashline }) })
          .createRun({ profile: "full", permissions: { workspace: base } })
          .call("read", { path: "a.txt", ...args }),
      ),
    ).split("\n");

  it("a budget smaller than the line number still names the line: its number is kept whole, the text cut", async () => {
    for (const maxBytes of [1, 2, 6, 7]) {
      expect((await read({ max_bytes: maxBytes }))[1], `max_bytes ${maxBytes}`).toBe("     1\t [line cut]");
    }
    expect((await read({ max_bytes: 8 }))[1]).toBe("     1\to [line cut]");
  });

  it("with hashline anchors, the anchor is kept whole too", async () => {
    expect((await read({ max_bytes: 1 }, true))[1]).toMatch(/^1#[0-9a-z]+\| \[line cut\]$/);
  });

  it("positive control: a budget the numbered line fits in shows it whole", async () => {
    expect(await read({ max_bytes: 11 })).toEqual([expect.stringContaining("lines 1-1 of 1"), "     1\tone"]);
  });

  it("from CommonJS: max_bytes 1 keeps the line number", () => {
    const lines = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      (async () => {
        const run = createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { workspace: ${JSON.stringify(base)} } });
        const result = await run.call("read", { path: "a.txt", max_bytes: 1 });
        console.log(JSON.stringify(result.output.split("\\n")));
      })();
    `) as string[];
    expect(lines[1]).toBe("     1\t [line cut]");
  });
});
