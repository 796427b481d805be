/**
 * Red team round 12b, OpenTelemetry: two calls in flight under one call id (a model that repeats a
 * `tool_use` id, or two copies of one run continuing a conversation in one process, whose ids both
 * count from `runId:1`). Each wait for approval must end its own span with its own decision, and
 * no span may stay open. And an activation's span event belongs to the find_tool call that made
 * it, not to a call running beside it in the same step.
 */
import type { Context } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { instrumentRegistry } from "agent-tool-catalog/otel";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

/** Counts the spans started and not yet ended (the in-memory exporter only sees ended ones). */
class OpenSpans implements SpanProcessor {
  readonly open = new Set<string>();
  onStart(span: Span, _context: Context): void {
    this.open.add(span.spanContext().spanId);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span.spanContext().spanId);
  }
  forceFlush = async () => {};
  shutdown = async () => {};
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function traced() {
  const exporter = new InMemorySpanExporter();
  const open = new OpenSpans();
  const provider = new BasicTracerProvider({ spanProcessors: [open, new SimpleSpanProcessor(exporter)] });
  cleanups.push(() => provider.shutdown());
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "act",
        description: "Acts.",
        mutating: true,
        inputSchema: z.object({ n: z.number() }),
        handler: ({ n }) => `did ${n}`,
      }),
    ],
  });
  cleanups.push(() => registry.close());
  const stop = instrumentRegistry(registry, { tracer: provider.getTracer("test") });
  cleanups.push(stop);
  const approvals = () => exporter.getFinishedSpans().filter((span) => span.name === "await_approval");
  return { registry, open, approvals, stop, exporter: () => exporter.getFinishedSpans() };
}

async function pendingTwo(registry: ReturnType<typeof traced>["registry"]) {
  for (let wait = 0; wait < 200 && (await registry.approvals.pending()).length < 2; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const pending = await registry.approvals.pending();
  expect(pending).toHaveLength(2);
  return pending;
}

describe("OpenTelemetry spans of calls sharing a call id", () => {
  it("two waits for approval under one call id each end with their own decision, and nothing stays open", async () => {
    const { registry, open, approvals } = traced();
    const run = registry.createRun({ permissions: { approval: "all" } });
    const first = run.call("act", { n: 1 }, { callId: "same" });
    const second = run.call("act", { n: 2 }, { callId: "same" });
    const [approved, denied] = await pendingTwo(registry);
    expect(await registry.approvals.approve(approved?.id ?? "")).toBe(true);
    expect(await registry.approvals.deny(denied?.id ?? "", "no")).toBe(true);
    expect(await first).toMatchObject({ ok: true, output: "did 1" });
    expect(await second).toMatchObject({ ok: false, error: { code: "approval_denied" } });

    const decisions = approvals().map((span) => [
      span.attributes["agent_tool_catalog.approval.id"],
      span.attributes["agent_tool_catalog.approval.decision"],
    ]);
    expect(decisions.sort()).toEqual(
      [
        [approved?.id, "approved"],
        [denied?.id, "denied"],
      ].sort(),
    );
    // Every span that started has ended, before anyone calls stop().
    expect(open.open.size).toBe(0);
  });

  it("two copies of one run (both numbering calls from runId:1) waiting at once leave no span open", async () => {
    const { registry, open, approvals } = traced();
    const original = registry.createRun({ runId: "conversation", permissions: { approval: "all" } });
    const copy = registry.createRun({ state: original.toJSON(), permissions: { approval: "all" } });
    const calls = [original.call("act", { n: 1 }), copy.call("act", { n: 2 })];
    const pending = await pendingTwo(registry);
    expect(new Set(pending.map((request) => request.callId))).toEqual(new Set(["conversation:1"]));
    for (const request of pending) await registry.approvals.deny(request.id, "not now");
    for (const result of await Promise.all(calls))
      expect(result).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    expect(approvals()).toHaveLength(2);
    expect(open.open.size).toBe(0);
  });

  it("control: one call waiting for approval gets one wait span, a child of its call's span", async () => {
    const { registry, open, approvals, exporter } = traced();
    const run = registry.createRun({ permissions: { approval: "all" } });
    const call = run.call("act", { n: 3 }, { callId: "only" });
    for (let wait = 0; wait < 200 && (await registry.approvals.pending()).length < 1; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [request] = await registry.approvals.pending();
    expect(await registry.approvals.approve(request?.id ?? "")).toBe(true);
    expect(await call).toMatchObject({ ok: true, output: "did 3" });
    const [wait] = approvals();
    expect(approvals()).toHaveLength(1);
    expect(wait?.attributes["agent_tool_catalog.approval.decision"]).toBe("approved");
    const parent = exporter().find((span) => span.name === "execute_tool act");
    expect(wait?.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
    expect(open.open.size).toBe(0);
  });
});

describe("OpenTelemetry tool.activated span events", () => {
  it("go on the find_tool call that activated, not on a call running beside it, nor anywhere for the host's activation", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    cleanups.push(() => provider.shutdown());
    let release: () => void = () => {};
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "slow_read",
          description: "Reads slowly.",
          inputSchema: z.object({}),
          handler: () => new Promise<string>((resolve) => (release = () => resolve("read"))),
        }),
        defineTool({
          name: "weather_forecast",
          description: "Get the weather forecast for a city.",
          tier: "deferred",
          inputSchema: z.object({}),
          handler: () => "sunny",
        }),
        defineTool({
          name: "stock_quote",
          description: "Get a stock quote.",
          tier: "deferred",
          inputSchema: z.object({}),
          handler: () => "up",
        }),
      ],
    });
    cleanups.push(() => registry.close());
    cleanups.push(instrumentRegistry(registry, { tracer: provider.getTracer("test") }));
    const run = registry.createRun();
    // One step: a slow read and a find_tool beside it; the host activates another tool meanwhile.
    const reading = run.call("slow_read", {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await run.call("find_tool", { query: "select:weather_forecast" })).toMatchObject({ ok: true });
    expect(run.activate(["stock_quote"]).activated).toEqual(["stock_quote"]);
    release();
    expect(await reading).toMatchObject({ ok: true });

    const events = (name: string) =>
      exporter
        .getFinishedSpans()
        .find((span) => span.name === `execute_tool ${name}`)
        ?.events.map((event) => [event.name, event.attributes?.["gen_ai.tool.name"]]);
    expect(events("find_tool")).toEqual([["tool.activated", "weather_forecast"]]);
    expect(events("slow_read")).toEqual([]);
  });
});
