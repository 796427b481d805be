/**
 * Red team round 32: what thousands of activations cost the host afterwards. Round 30 measured
 * one `find_tool` call's lookup; here the model selects every one of 2,000 deferred tools (each
 * with a schema of 12 described fields: 6 calls of 8 `select:` queries), then selects all of them
 * again 10 times. What the host pays from then on is the tool list each adapter builds for every
 * request (Anthropic, OpenAI chat, OpenAI Responses) and the run's saved state. Held when: the
 * repeats add nothing to the saved state (byte for byte), and a request's tool list costs the
 * host no more than for a run where the host itself made all 2,000 tools essential (the most the
 * host already agreed to send): at most 3x its thread CPU time, and the same bytes. Controls:
 * before the selection the lists hold only the always-available tools (the activations are what
 * put the 2,000 there), and an activated tool runs.
 */

import { createRegistry, defineTool, type Registry, type Run } from "agent-tool-catalog";
import { anthropicTools } from "agent-tool-catalog/anthropic";
import { openAIChatTools, openAIResponsesTools } from "agent-tool-catalog/openai";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { z } from "zod";
import { threadTimes } from "../support/thread-time.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const COUNT = 2000;
const QUERY_LENGTH = 2000;
const QUERIES = 8;
const toolName = (index: number) => `kb_connector_page_reader_${index}`;

/** `select:` queries of at most 2,000 characters naming `names`. */
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

/** Selects through `find_tool`, 8 queries a call, as a model can; how many tools it added. */
async function selectAll(run: Run, queries: readonly string[]): Promise<number> {
  const before = available(run);
  for (let at = 0; at < queries.length; at += QUERIES) {
    const result = await run.call("find_tool", { queries: queries.slice(at, at + QUERIES) });
    expect(result.ok).toBe(true);
  }
  return available(run) - before;
}

/** How many of the knowledge-base tools a request sends (Anthropic's list). */
const available = (run: Run) => anthropicTools(run).filter((tool) => tool.name.startsWith("kb_")).length;

/** Every adapter's tool list for `run`, `times` times: thread CPU time and the bytes of one round. */
function requestCost(run: Run, times: number): { ms: number; bytes: number } {
  const started = threadTimes().ranMs;
  let bytes = 0;
  for (let round = 0; round < times; round++) {
    const lists = [anthropicTools(run), openAIChatTools(run), openAIResponsesTools(run)];
    bytes = JSON.stringify(lists).length;
  }
  return { ms: threadTimes().ranMs - started, bytes };
}

const FIELDS = Object.fromEntries(
  Array.from({ length: 12 }, (_, field) => [`field_${field}`, z.string().describe(`Field ${field} of the page query.`)]),
);

let registry: Registry;

describe("escape attempts: round 32, thousands of find_tool activations", () => {
  beforeAll(() => {
    registry = createRegistry({
      tools: Array.from({ length: COUNT }, (_, index) =>
        defineTool({
          name: toolName(index),
          description: `Reads page ${index} of the knowledge base.`,
          tier: "deferred",
          inputSchema: z.object(FIELDS).partial(),
          handler: () => `page ${index}`,
        }),
      ),
    });
  });
  afterAll(() => registry.close());

  escapeAttempt(
    "resources",
    "find_tool activates all of 2,000 tools, then 10 times more: saved state and each request's tool list cost",
    async () => {
      const names = Array.from({ length: COUNT }, (_, index) => toolName(index));
      const queries = selectQueries(names);
      const run = registry.createRun();
      // Control: before the selection no request carries the deferred tools.
      const before = requestCost(run, 1);
      expect(anthropicTools(run).filter((tool) => tool.name.startsWith("kb_"))).toEqual([]);
      expect(await selectAll(run, queries)).toBe(COUNT);
      const once = JSON.stringify(run.toJSON());
      for (let repeat = 0; repeat < 10; repeat++) expect(await selectAll(run, queries)).toBe(0);
      // The repeats changed nothing the run keeps.
      expect(JSON.stringify(run.toJSON())).toBe(once);
      expect(run.activatedBy(toolName(5))).toHaveLength(1);
      // The host's own ceiling: a run where it made every tool essential.
      const hostRun = registry.createRun({ loadModes: Object.fromEntries(names.map((name) => [name, "essential" as const])) });
      requestCost(run, 1);
      requestCost(hostRun, 1);
      const model = requestCost(run, 5);
      const host = requestCost(hostRun, 5);
      expect(model.bytes).toBe(host.bytes);
      expect(model.bytes).toBeGreaterThan(before.bytes * 100);
      expect(model.ms, `model-activated ${model.ms.toFixed(0)} ms, host-essential ${host.ms.toFixed(0)} ms`).toBeLessThan(
        Math.max(host.ms * 3, 50),
      );
      // Control: an activated tool runs.
      expect(await run.call(toolName(1234), {})).toMatchObject({ ok: true, output: "page 1234" });
    },
    120_000,
  );
});
