import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createRegistry } from "../../src/index.js";
import { mcpSetProblems } from "./dataset-integrity.js";
import { blindHeldOutDatasets, mcpBlindHeldOut2Dataset } from "./datasets.js";

const data = resolve(dirname(fileURLToPath(import.meta.url)), "../data");
const scratch = mkdtempSync(join(tmpdir(), "atc-dataset-integrity-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("MCP retrieval sets", () => {
  it.each(["mcp-heldout", "mcp-heldout-2", "mcp-heldout-3", "mcp-heldout-4"])(
    "%s: every gold id names a tool, ids are unique, every package has a licence entry",
    (folder) => {
      expect(mcpSetProblems(join(data, folder))).toEqual([]);
    },
  );

  it("blind held-out 2: 240 tools of 12 servers and 250 queries, every tool registered", () => {
    const set = mcpBlindHeldOut2Dataset();
    expect(set.role).toBe("evaluation");
    expect(blindHeldOutDatasets().map((dataset) => dataset.name)).toEqual([set.name]);
    expect(set.tools).toHaveLength(240);
    expect(new Set(set.tools.map((tool) => tool.id.split(".")[0])).size).toBe(12);
    expect(set.queries).toHaveLength(250);
    const registry = createRegistry({ tools: set.tools.map((tool) => tool.definition) });
    const registered = new Set(registry.list().map((descriptor) => descriptor.name));
    expect(set.tools.filter((tool) => !registered.has(tool.definition.name))).toEqual([]);
    const ids = new Set(set.tools.map((tool) => tool.id));
    expect(set.queries.every((query) => query.gold.length > 0 && query.gold.every((id) => ids.has(id)))).toBe(true);
  });

  it("reports a broken copy: unknown gold, duplicate tool, missing licence row and file", () => {
    const copy = join(scratch, "broken");
    cpSync(join(data, "mcp-heldout-2"), copy, { recursive: true });
    const tools = readFileSync(join(copy, "tools.jsonl"), "utf8");
    writeFileSync(join(copy, "tools.jsonl"), `${tools}${tools.split("\n")[0]}\n`);
    const queries = readFileSync(join(copy, "queries.jsonl"), "utf8");
    writeFileSync(
      join(copy, "queries.jsonl"),
      `${queries}${JSON.stringify({ id: "b1", query: "made up", gold_tool_ids: ["asana.no_such_tool"] })}\n`,
    );
    const notes = readFileSync(join(copy, "LICENSE-NOTES.md"), "utf8");
    writeFileSync(
      join(copy, "LICENSE-NOTES.md"),
      notes
        .split("\n")
        .filter((line) => !line.startsWith("| asana |"))
        .join("\n"),
    );
    rmSync(join(copy, "LICENSE.upstream-Apache-2.0"));
    expect(mcpSetProblems(copy).sort()).toEqual(
      [
        "duplicate tool id chrome-devtools.click",
        "tool chrome-devtools.click registers under a name already taken: mcp_chrome_devtools_click",
        "duplicate query id b1",
        "query b1: gold asana.no_such_tool is not a tool of the set",
        "no licence row for server asana",
        "no licence entry names @roychri/mcp-server-asana@1.8.0",
        "an Apache-2.0 package but no LICENSE.upstream-Apache-2.0",
      ].sort(),
    );
  });
});
