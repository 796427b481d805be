/**
 * A tool result nested deeper than the host's stack can serialize: the raw server (no SDK) writes
 * `structuredContent` of any depth as text, over stdio in a child process. Before the bound,
 * 5,000 levels failed the call as `tool_failed` ("Maximum call stack size exceeded", from
 * JSON.stringify) or as an output schema check that "could not be checked".
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, MAX_MCP_RESULT_DEPTH } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "servers", "deep-result-server.mjs");
let registry: Registry | undefined;

afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

describe("an MCP tool result nested too deep to serialize", () => {
  it("is mcp_malformed_result naming the depth, with and without an output schema; 100 levels pass", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "deep", command: process.execPath, args: [SERVER] });
    const run = registry.createRun();
    run.activate(["mcp_deep_structured", "mcp_deep_unchecked"]);
    expect(MAX_MCP_RESULT_DEPTH).toBe(100);
    for (const tool of ["mcp_deep_structured", "mcp_deep_unchecked"]) {
      for (const depth of [101, 100_000]) {
        const result = await run.call(tool, { depth });
        expect(result, `${tool} at ${depth} levels`).toMatchObject({
          ok: false,
          error: { code: "mcp_malformed_result", message: expect.stringContaining("nests deeper than 100 levels") },
        });
      }
      // Positive control: at the limit the value is the answer, whole.
      const atLimit = await run.call(tool, { depth: 100 });
      expect(atLimit).toMatchObject({ ok: true });
      expect(atLimit.ok && atLimit.output).toBe(`{"value":${"[".repeat(99)}"leaf"${"]".repeat(99)}}`);
    }
  }, 60_000);
});
