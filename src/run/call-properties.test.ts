import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../registry/registry.js";
import { MAX_ISSUE_MESSAGE_LENGTH, MAX_ISSUE_PATH_LENGTH, MAX_VALIDATION_ISSUES } from "../tool/bound-issues.js";
import { defineTool } from "../tool/define-tool.js";
import { formatToolResult, type ToolCallResult } from "../tool/tool-call-result.js";
import { MAX_ERROR_TEXT_LENGTH } from "./describe-failure.js";

/** The secret every hostile input carries: it must never come back in an error. */
const SECRET = "zq-SECRET-7f3a";
const CONDENSE = 2000;
const MAX_INPUT = 64 * 1024;

/**
 * The documented bound on what one failed result costs the model: the message and hint of the
 * longest error (a handler's, cut to MAX_ERROR_TEXT_LENGTH each) or the capped issues, plus the
 * JSON around them.
 */
const FAILURE_BOUND =
  2 * MAX_ERROR_TEXT_LENGTH + (MAX_VALIDATION_ISSUES + 1) * (MAX_ISSUE_PATH_LENGTH + MAX_ISSUE_MESSAGE_LENGTH + 64) * 2 + 1024;
/** A success: the condensed text plus the condensing marker. */
const SUCCESS_BOUND = CONDENSE + 256;

type Behaviour = (input: unknown, signal: AbortSignal) => unknown;

const cyclic = () => {
  const value: Record<string, unknown> = { n: 1n };
  value.self = value;
  return value;
};

/** Hostile handlers: every way a handler can misbehave. */
const behaviours: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.jsonValue().map((value) => () => value),
  fc.anything().map((value) => () => value),
  fc.anything().map((value) => () => {
    throw value;
  }),
  fc.anything().map((value) => () => Promise.reject(value)),
  fc.constant(() => {
    throw Object.create(null);
  }),
  fc.constant(() => {
    throw Object.defineProperty({}, "message", {
      get() {
        throw new Error("getter");
      },
    });
  }),
  // biome-ignore lint/suspicious/noThenProperty: a never-settling thenable is one of the hostile cases.
  fc.constant(() => Object.defineProperty({}, "then", { value: () => undefined })),
  fc.constant(() => new Promise(() => undefined)),
  fc.constant(() => cyclic()),
  fc.constant(() => 12345678901234567890n),
  fc.constant(() => "x".repeat(50_000)),
  fc.constant(() => ({ rows: Array.from({ length: 3000 }, (_, i) => ({ i })) })),
  fc.constant((input: unknown) => input),
  fc.constant(() => ({ [SECRET]: Symbol("s"), f: () => 1 })),
);

/** Hostile inputs: valid and invalid for the schema, with the secret in keys and values. */
const inputs: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ text: fc.string(), count: fc.integer() }),
  fc.constant({ text: SECRET, count: SECRET, [SECRET]: SECRET }),
  fc.constant({ text: "x", count: 1, mode: SECRET }),
  fc.anything(),
  fc.json(),
  fc.string(),
  fc.constant(JSON.stringify({ items: Array.from({ length: 5000 }, () => SECRET) })),
  fc.constant({ text: "a".repeat(MAX_INPUT * 2), count: 1 }),
  fc.constant(JSON.parse(`{"__proto__": {"polluted": "${SECRET}"}, "text": "x", "count": 1}`)),
);

/** Hostile hosts: names that are not strings or not tools, signals that abort at any time. */
const names: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant("hostile"),
  fc.constant("hostile"),
  fc.string(),
  fc.anything(),
  fc.constant("x".repeat(100_000)),
);

function textOf(result: ToolCallResult): string {
  return formatToolResult(result);
}

describe("run.call under hostile handlers, hosts and inputs (property)", () => {
  it("always resolves, within a bounded time after abort, bounded in size, never echoing input", async () => {
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    await fc.assert(
      fc.asyncProperty(
        behaviours,
        inputs,
        names,
        fc.integer({ min: 0, max: 30 }),
        fc.constantFrom("none", "all"),
        async (behaviour, input, name, abortAfter, approval) => {
          const tool = defineTool({
            name: "hostile",
            description: "Misbehaves.",
            inputSchema: z.object({ text: z.string(), count: z.number(), mode: z.enum(["a", "b"]).optional() }).strict(),
            handler: (value, ctx) => behaviour(value, ctx.signal) as never,
          });
          const registry = createRegistry({ tools: [tool] });
          const run = registry.createRun({
            condenseThreshold: CONDENSE,
            maxInputLength: MAX_INPUT,
            approvalTimeoutMs: 5000,
            permissions: { approval: approval as "none" | "all" },
          });
          const controller = new AbortController();
          const pending = run.call(name as string, input, { signal: controller.signal });
          let settled = false;
          void pending.then(() => {
            settled = true;
          });
          await new Promise((resolve) => setTimeout(resolve, abortAfter));
          controller.abort();
          const abortedAt = performance.now();
          const result = await pending;
          expect(settled).toBe(true);
          expect(performance.now() - abortedAt).toBeLessThan(500);
          const text = textOf(result);
          if (result.ok) {
            expect(text.length).toBeLessThanOrEqual(SUCCESS_BOUND);
          } else {
            expect(text.length).toBeLessThanOrEqual(FAILURE_BOUND);
            // A failure never quotes what the model sent (a handler's own message may, by design).
            if (result.error.code !== "tool_failed") expect(text).not.toContain(SECRET);
          }
          expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          await registry.close();
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});
