/**
 * A hostile (or careless) MCP server whose input schemas carry a regular expression that
 * backtracks exponentially. The catalog validates calls before they reach the server; if it ran
 * the server's pattern over the model's argument, ~25 characters would block the host's event
 * loop (every run of every conversation) for tens of seconds. A real stdio server; each call
 * must come back at once, and the model must still be told about the pattern.
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "servers", "regex-schema-server.mjs");

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

describe("an MCP server whose schemas hold catastrophic regular expressions", () => {
  it("never runs them on the host's thread: calls return at once, the model still sees the pattern", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, { name: "regex", command: process.execPath, args: [SERVER] });
    expect([...handle.status.tools].sort()).toEqual([
      "mcp_regex_hidden_ref",
      "mcp_regex_pattern",
      "mcp_regex_pattern_properties",
    ]);
    const run = registry.createRun({ profile: "full" });
    run.activate(handle.status.tools);
    // 2^23 backtracking steps per match on the old code (about 7 s on this machine); 0 now.
    const evil = `${"a".repeat(23)}!`;
    const calls: [string, Record<string, unknown>][] = [
      ["mcp_regex_pattern", { text: evil }],
      ["mcp_regex_pattern_properties", { [evil]: "x" }],
      ["mcp_regex_hidden_ref", { text: evil }],
    ];
    for (const [name, args] of calls) {
      const started = performance.now();
      const result = await run.call(name, args);
      expect(performance.now() - started).toBeLessThan(1_500);
      // The argument reached the server, which validates its own input.
      expect(result).toMatchObject({ ok: true, output: expect.stringContaining(`${name.slice("mcp_regex_".length)} got`) });
    }
    // Positive control of the schema itself: other fields are still validated by the catalog.
    expect(await run.call("mcp_regex_pattern", { text: 5 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    // What the model is sent still names the pattern.
    const definition = run.definitions().find((tool) => tool.name === "mcp_regex_pattern");
    expect(JSON.stringify(definition?.inputSchema)).toContain("(a+)+$");
  }, 20_000);
});
