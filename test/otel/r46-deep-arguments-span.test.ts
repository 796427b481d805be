// Red team round 46: a call's arguments nested 20,000 levels deep (a 40 KB JSON string a
// `{ type: "object" }` tool takes) were recorded on the span as "[unserializable]":
// JSON.stringify overflowed the stack. They are written as any other arguments, cut at
// `maxContentLength`; control: shallow arguments as before.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { instrumentRegistry } from "agent-tool-catalog/otel";
import { expect, it } from "vitest";

const deep = (depth: number) => `{"v":${"[".repeat(depth)}${"]".repeat(depth)}}`;

it("records deeply nested arguments on the span as JSON, cut at maxContentLength", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "take",
        description: "Takes any JSON value in v.",
        inputSchema: { type: "object", properties: { v: {} } },
        handler: () => "took",
      }),
    ],
  });
  const stop = instrumentRegistry(registry, { tracer: provider.getTracer("r46"), recordContent: true, maxContentLength: 100 });
  try {
    const run = registry.createRun();
    expect(await run.call("take", deep(20_000))).toMatchObject({ ok: true, output: "took" });
    expect(await run.call("take", deep(2))).toMatchObject({ ok: true, output: "took" });
    const written = exporter.getFinishedSpans().map((span) => span.attributes["gen_ai.tool.call.arguments"]);
    expect(written).toEqual([`${deep(20_000).slice(0, 100)}…`, deep(2)]);
  } finally {
    stop();
    await provider.shutdown();
  }
});
