/**
 * A hostile (or careless) MCP server whose input schemas carry a regular expression that
 * backtracks exponentially. The catalog validates calls before they reach the server; if it ran
 * the server's pattern over the model's argument, ~25 characters would block the host's event
 * loop (every run of every conversation) for tens of seconds. A real stdio server; each call
 * must come back at once, and the model must still be told about the pattern. The same server
 * lists a 300,000-value enum, which the validator's meta-schema check (quadratic) would chew on
 * for half an hour at connect.
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { cpuMsSince } from "../support/cpu-time.js";
import { threadTimes } from "../support/thread-time.js";

const SERVER = path.join(import.meta.dirname, "servers", "regex-schema-server.mjs");

let registry: Registry;

afterEach(async () => {
  await registry.close();
});

describe("an MCP server whose schemas hold catastrophic regular expressions and a giant enum", () => {
  it("never runs them on the host's thread: calls return at once, the model still sees the pattern", async () => {
    registry = createRegistry();
    const connecting = process.cpuUsage();
    const handle = await connectMcpServer(registry, { name: "regex", command: process.execPath, args: [SERVER] });
    // The 300,000-value enum is refused at once (reported, not silently dropped). Bounded by this
    // process's CPU (every thread: the schema check thread too), not wall time, which at load
    // 10-20 on 2 cores measures the machine: see the figures below.
    const connectCpuMs = cpuMsSince(connecting);
    if (process.env.ATC_HOSTILE_SCHEMAS_CPU) console.log(`connect: ${Math.round(connectCpuMs)} ms CPU`);
    expect(connectCpuMs).toBeLessThan(5_000);
    expect(handle.status.rejected).toMatchObject([{ mcpName: "giant_enum", reason: "invalid_input_schema" }]);
    expect([...handle.status.tools].sort()).toEqual([
      "mcp_regex_fails",
      "mcp_regex_hidden_ref",
      "mcp_regex_pattern",
      "mcp_regex_pattern_properties",
    ]);
    const run = registry.createRun({ profile: "full" });
    run.activate(handle.status.tools);
    // Positive control of the schema itself: other fields are still validated by the catalog. Made
    // first, as the first check of an MCP schema also waits for the schema check thread to start
    // (seconds at high load when tests run the TypeScript source), which the bound below is not about.
    expect(await run.call("mcp_regex_pattern", { text: 5 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    // 2^23 backtracking steps per match on the old code (about 7 s on this machine); 0 now.
    const evil = `${"a".repeat(23)}!`;
    const calls: [string, Record<string, unknown>][] = [
      ["mcp_regex_pattern", { text: evil }],
      ["mcp_regex_pattern_properties", { [evil]: "x" }],
      ["mcp_regex_hidden_ref", { text: evil }],
    ];
    for (const [name, args] of calls) {
      // The host thread's own run time (a backtracking match runs there, whatever the load), not wall time.
      const started = threadTimes();
      const result = await run.call(name, args);
      const ranMs = threadTimes().ranMs - started.ranMs;
      if (process.env.ATC_HOSTILE_SCHEMAS_CPU) console.log(`${name}: ${Math.round(ranMs)} ms on the host thread`);
      expect(ranMs, `${name} ran ${Math.round(ranMs)} ms on the host thread`).toBeLessThan(1_500);
      // The argument reached the server, which validates its own input.
      expect(result).toMatchObject({ ok: true, output: expect.stringContaining(`${name.slice("mcp_regex_".length)} got`) });
    }
    // What the model is sent still names the pattern.
    const definition = run.definitions().find((tool) => tool.name === "mcp_regex_pattern");
    expect(JSON.stringify(definition?.inputSchema)).toContain("(a+)+$");
  }, 60_000);

  it("reports a server's own -32000 / -32001 errors as mcp_server_error, not a closed connection or a timeout", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, { name: "regex", command: process.execPath, args: [SERVER] });
    const run = registry.createRun({ profile: "full" });
    run.activate(["mcp_regex_fails"]);
    for (const code of [-32000, -32001, -32050]) {
      const result = await run.call("mcp_regex_fails", { code });
      expect(result).toMatchObject({ ok: false, error: { code: "mcp_server_error" } });
      expect(result.ok ? "" : result.error.message).toContain(`the server's own failure ${code}`);
    }
    // A real loss of the connection is still mcp_server_closed: test/mcp/stdio-lifecycle.test.ts.
    expect(handle.status.rejected).toHaveLength(1);
  }, 20_000);
});
