// Spans of calls, approvals, activations and MCP tools, read back from the SDK's in-memory exporter.

import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { instrumentRegistry } from "agent-tool-catalog/otel";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { deleteNoteTool } from "../support/note-tools.js";

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
const stops: (() => void)[] = [];

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await provider.shutdown();
});

function registry(): Registry {
  return createRegistry({
    tools: [
      defineTool({
        name: "read_note",
        description: "Read a note.\nMore detail.",
        inputSchema: z.object({ title: z.string() }),
        handler: ({ title }) => `note ${title} (token sk-secret-123)`,
      }),
      defineTool({
        name: "weather_forecast",
        description: "Get the weather forecast for a city.",
        tier: "deferred",
        inputSchema: z.object({ city: z.string() }),
        handler: ({ city }) => ({ city, sky: "sunny" }),
      }),
      deleteNoteTool({ answer: () => "deleted" }),
      defineTool({
        name: "search_issues",
        description: "Search the issues of a GitHub repository.",
        tags: ["mcp", "mcp_server:github"],
        inputSchema: z.object({}),
        handler: () => {
          throw new Error("boom: token sk-secret-456");
        },
      }),
    ],
  });
}

function instrument(target: Registry, options: Parameters<typeof instrumentRegistry>[1] = {}): void {
  stops.push(instrumentRegistry(target, { tracer: provider.getTracer("test"), ...options }));
}

const byName = (name: string): ReadableSpan => {
  const span = exporter.getFinishedSpans().find((candidate) => candidate.name === name);
  if (span === undefined)
    throw new Error(
      `no span ${name}: ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(", ")}`,
    );
  return span;
};

describe("instrumentRegistry", () => {
  it("writes one execute_tool span per call with the GenAI attributes, and no content by default", async () => {
    const target = registry();
    instrument(target);
    const run = target.createRun();
    await run.call("read_note", { title: "trip" }, { callId: "call_1" });
    const span = byName("execute_tool read_note");
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "read_note",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.description": "Read a note.",
      "agent_tool_catalog.run.id": run.id,
    });
    expect(span.status.code).toBe(SpanStatusCode.OK);
    expect(span.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(span.attributes["gen_ai.tool.call.result"]).toBeUndefined();
  });

  it("marks failures with error.type, names the MCP server, and redacts recorded content", async () => {
    const target = registry();
    instrument(target, {
      recordContent: true,
      redact: (value) => (typeof value === "string" ? value.replace(/sk-[a-z0-9-]+/g, "[redacted]") : value),
    });
    const run = target.createRun();
    await run.call("read_note", { title: "trip" });
    await run.call("search_issues", {});
    await run.call("no_such_tool", {});
    const ok = byName("execute_tool read_note");
    expect(ok.attributes["gen_ai.tool.call.arguments"]).toBe('{"title":"trip"}');
    expect(ok.attributes["gen_ai.tool.call.result"]).toBe("note trip (token [redacted])");
    const failed = byName("execute_tool search_issues");
    expect(failed.attributes).toMatchObject({ "error.type": "tool_failed", "mcp.server.name": "github" });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify([failed.attributes, failed.status, failed.events])).not.toContain("sk-secret");
    expect(byName("execute_tool no_such_tool").attributes["error.type"]).toBe("unknown_tool");
  });

  it("records find_tool's activations as span events on its call", async () => {
    const target = registry();
    instrument(target);
    const run = target.createRun();
    await run.call("find_tool", { query: "weather forecast" });
    const span = byName("execute_tool find_tool");
    expect(span.events.map((event) => [event.name, event.attributes?.["gen_ai.tool.name"], event.attributes?.via])).toEqual([
      ["tool.activated", "weather_forecast", "find_tool"],
    ]);
  });

  it("writes an await_approval child span with the decision", async () => {
    const target = registry();
    instrument(target);
    target.events.on("approval.requested", (request) => target.approvals.deny(request.id, "no"));
    const run = target.createRun({ permissions: { approval: "destructive" } });
    await run.call("delete_note", { title: "x" });
    const call = byName("execute_tool delete_note");
    const approval = byName("await_approval");
    expect(approval.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(approval.attributes).toMatchObject({
      "agent_tool_catalog.approval.decision": "denied",
      "agent_tool_catalog.approval.resolved_by": "host",
      "gen_ai.tool.name": "delete_note",
    });
    expect(call.attributes["error.type"]).toBe("approval_denied");
  });

  it("stops tracing when asked", async () => {
    const target = registry();
    const stop = instrumentRegistry(target, { tracer: provider.getTracer("test") });
    stop();
    await target.createRun().call("read_note", { title: "trip" });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
