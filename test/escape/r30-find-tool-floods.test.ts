/**
 * Red team round 30: `find_tool` as a model floods it. Its input allows 8 queries of 2,000
 * characters each, and `select:` takes every name in a query (commas, spaces, semicolons), so one
 * call can name some 120 names of 127 characters or 350 real tool names. Attempts:
 *
 * - resources: 2,000 deferred tools whose names share a long prefix (one MCP server's tools look
 *   like this), and a call naming 120 near-misses of them, each sharing every trigram of the
 *   prefix: every unknown name is looked up for "did you mean" suggestions, synchronously, on the
 *   host's event loop. Bounded: the call answers `unknown_tool` within a few seconds of this
 *   thread's own time (test/support/thread-time.ts; 0.6 s measured at load ~25). Control: one
 *   near-miss gets its suggestion.
 * - tool-lists: one call selects all 2,000 names (8 calls of 8 queries) under a run whose
 *   `allowedTools` allows three of them and whose `disabledTools` turns one of those off: exactly
 *   the two are activated, the others are refused (`not_allowed`, `turned_off`) and stay
 *   uncallable. Control: the same calls in a run without the lists activate every name.
 */
import { createRegistry, defineTool, type Registry, type Run } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { z } from "zod";
import { threadTimes } from "../support/thread-time.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const PREFIX = "mcp_enterprise_knowledge_base_connector_";
const COUNT = 2000;
const QUERY_LENGTH = 2000;
const QUERIES = 8;

let registry: Registry;

const toolName = (index: number) => `${PREFIX}${index}`;

/** A 127-character name that shares every trigram of the prefix and is no tool's name. */
function nearMiss(index: number): string {
  const suffix = `zz${index}`;
  return (PREFIX.repeat(4).slice(0, 127 - suffix.length) + suffix).slice(0, 127);
}

/** `select:` queries of at most 2,000 characters holding `names`, in as few queries as fit. */
function selectQueries(names: readonly string[]): string[] {
  const queries: string[] = [];
  let current = "select:";
  for (const name of names) {
    if (current.length + name.length + 1 > QUERY_LENGTH) {
      queries.push(current);
      current = "select:";
    }
    current += `${name},`;
  }
  if (current !== "select:") queries.push(current);
  return queries;
}

/** Calls find_tool with `queries`, 8 at a time; the names activated. */
async function selectAll(run: Run, queries: readonly string[]): Promise<{ activated: string[]; refused: string[] }> {
  const activated: string[] = [];
  const refused: string[] = [];
  for (let at = 0; at < queries.length; at += QUERIES) {
    const result = await run.call("find_tool", { queries: queries.slice(at, at + QUERIES) });
    if (result.ok) {
      const output = result.output as { activated: { name: string }[]; not_found: { name: string; reason?: string }[] };
      activated.push(...output.activated.map((tool) => tool.name));
      refused.push(...output.not_found.map((entry) => `${entry.reason}`));
    } else {
      const notFound = (result.error as { data?: { not_found?: { reason?: string }[] } }).data?.not_found ?? [];
      refused.push(...notFound.map((entry) => `${entry.reason}`));
    }
  }
  return { activated, refused };
}

describe("escape attempts: round 30, find_tool floods", () => {
  beforeAll(() => {
    registry = createRegistry({
      tools: Array.from({ length: COUNT }, (_, index) =>
        defineTool({
          name: toolName(index),
          description: `Reads page ${index} of the knowledge base.`,
          tier: "deferred",
          inputSchema: z.object({}),
          handler: () => `page ${index}`,
        }),
      ),
    });
  });
  afterAll(() => registry.close());

  escapeAttempt("resources", "find_tool: 8 queries of 2,000 characters naming 120 near-misses of 2,000 alike tools", async () => {
    const run = registry.createRun();
    const names = Array.from({ length: 1000 }, (_, index) => nearMiss(index));
    const queries = selectQueries(names).slice(0, QUERIES);
    expect(queries.every((query) => query.length <= QUERY_LENGTH)).toBe(true);
    const started = threadTimes().ranMs;
    const result = await run.call("find_tool", { queries });
    const ranMs = threadTimes().ranMs - started;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("unknown_tool");
    // 0.6 s measured; an unbounded lookup (every name against every tool) took far longer.
    expect(ranMs, `${ranMs.toFixed(0)} ms of this thread`).toBeLessThan(5_000);
    // Control: a single near-miss gets its suggestion (the lookup is not simply skipped).
    const one = await run.call("find_tool", { query: `select:${PREFIX}12x` });
    expect(JSON.stringify(one)).toContain(`${PREFIX}12`);
  });

  escapeAttempt("tool-lists", "find_tool: 2,000 names selected under allowedTools of three (one of them disabled)", async () => {
    const everyName = Array.from({ length: COUNT }, (_, index) => toolName(index));
    const queries = selectQueries(everyName);
    const narrowed = registry.createRun({
      allowedTools: ["find_tool", toolName(7), toolName(1500), toolName(1999)],
      disabledTools: [toolName(1500)],
    });
    const denied = await selectAll(narrowed, queries);
    expect(denied.activated.sort()).toEqual([toolName(1999), toolName(7)]);
    // The refusals say why (the answers do not list every refused name: only the reasons are checked).
    expect(denied.refused.length).toBeGreaterThan(0);
    for (const reason of denied.refused) expect(["not_allowed", "turned_off"]).toContain(reason);
    for (let index = 0; index < COUNT; index += 97) {
      if (index === 7) continue;
      expect(await narrowed.call(toolName(index), {}), toolName(index)).toMatchObject({ ok: false });
    }
    expect((await narrowed.call(toolName(1500), {})).ok).toBe(false);
    expect(await narrowed.call(toolName(1999), {})).toMatchObject({ ok: true, output: "page 1999" });
    // Control: without the lists the same calls activate every name.
    const open = registry.createRun();
    const control = await selectAll(open, queries);
    expect(new Set(control.activated).size).toBe(COUNT);
    expect(await open.call(toolName(8), {})).toMatchObject({ ok: true, output: "page 8" });
  });
});
