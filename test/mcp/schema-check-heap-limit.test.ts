// An untrusted MCP input schema whose check allocates without end (an anyOf whose failing branches
// keep 2^depth error objects) is stopped by its check thread's heap limit (170 MB), well before the
// schema's time limit. Before: the call failed as `tool_failed`, "has an unusable input schema",
// although the tool takes other arguments; now it fails with `input_schema_too_slow` saying the
// check ran out of memory and to send smaller arguments. Either way the host goes on: other tools
// check and run meanwhile and afterwards, and the next check starts a new thread.
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "servers", "heap-schema-server.mjs");
/**
 * Far above the CPU time the flood takes to fill 170 MB (the limit counts the check thread's CPU
 * time; 5-15 s of wall time at load 8-20): only the heap limit can end it.
 */
const SCHEMA_TIMEOUT_MS = 120_000;

let registry: Registry;

beforeAll(async () => {
  registry = createRegistry();
  await connectMcpServer(registry, {
    name: "heap",
    command: process.execPath,
    args: [SERVER],
    schemaTimeoutMs: SCHEMA_TIMEOUT_MS,
    timeoutMs: 20_000,
  });
});

afterAll(async () => {
  await registry.close();
});

/** `{ tree: { child: { ... } } }` nested `depth` deep, each level holding `never` when `valid`. */
function nested(depth: number, valid: boolean): Record<string, unknown> {
  let node: Record<string, unknown> = valid ? { never: 1 } : {};
  for (let level = 0; level < depth; level++) node = valid ? { child: node, never: 1 } : { child: node };
  return { tree: node };
}

describe("an untrusted schema whose check allocates without end", () => {
  it("is stopped at its thread's heap limit: that call fails with input_schema_too_slow, other tools and the pool go on", async () => {
    const run = registry.createRun();
    run.activate(["mcp_heap_error_flood", "mcp_heap_plain"]);
    // Positive controls: the schema compiles; deep valid arguments check in linear time; a shallow
    // failing argument gets its issues.
    expect(await run.call("mcp_heap_error_flood", nested(40, true))).toMatchObject({ ok: true, output: "error_flood ran" });
    expect(await run.call("mcp_heap_error_flood", nested(2, false))).toMatchObject({
      ok: false,
      error: {
        code: "invalid_input",
        issues: expect.arrayContaining([{ path: "tree.child.child.never", message: "required property is missing" }]),
      },
    });

    const flood = run.call("mcp_heap_error_flood", nested(40, false));
    // Another tool checks (on another thread) and runs while the flood fills its thread's heap.
    expect(await run.call("mcp_heap_plain", { text: "meanwhile" })).toMatchObject({ ok: true, output: "plain ran" });
    const result = await flood;
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "input_schema_too_slow",
        message: expect.stringMatching(
          /"mcp_heap_error_flood": Checking these arguments against this tool's input schema needed more than the 170 MB of memory it may use/,
        ),
        hint: expect.stringMatching(/less deeply nested arguments/),
      },
    });
    // The heap limit ended it, not the time limit: the message above names memory (a time limit's
    // says "took longer than"). A wall-clock bound here (60 s) was missed at load 35, where the
    // flood's thread waits for a CPU most of the time.

    // The pool recovers: a new thread checks the other tool, and this tool's valid and shallow
    // arguments (the schema compiles again there), as before.
    expect(await run.call("mcp_heap_plain", { text: "after" })).toMatchObject({ ok: true, output: "plain ran" });
    expect(await run.call("mcp_heap_plain", { text: 5 })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", issues: [{ path: "text", message: "must be string" }] },
    });
    expect(await run.call("mcp_heap_error_flood", nested(40, true))).toMatchObject({ ok: true, output: "error_flood ran" });
    expect(await run.call("mcp_heap_error_flood", nested(2, false))).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  }, 600_000);
});
