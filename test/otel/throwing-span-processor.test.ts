// Stop 37: a host observer that throws. An OpenTelemetry span processor whose onStart or onEnd
// throws (a buggy exporter, a processor meant for another SDK version) ran inside the registry's
// event listeners; the bus's default rethrew the error on a later tick, so one bad processor
// became an uncaught exception that ended the host. Now the default reports it once as a process
// warning (ATC_LISTENER_ERROR) and every call still answers what it did.
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
import { collectUncaught } from "../support/collect-uncaught.js";

class ThrowingProcessor implements SpanProcessor {
  calls = 0;
  constructor(private readonly on: "start" | "end") {}
  onStart(_span: Span, _context: Context): void {
    if (this.on === "start") this.fail();
  }
  onEnd(_span: ReadableSpan): void {
    if (this.on === "end") this.fail();
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
  private fail(): never {
    this.calls++;
    throw new Error("exporter misconfigured");
  }
}

const echo = defineTool({
  name: "echo",
  description: "Echo a word.",
  inputSchema: z.object({ word: z.string() }),
  handler: ({ word }) => `echo ${word}`,
});

/** Collects this process's warnings of one code while `body` runs. */
async function warningsDuring(code: string, body: () => Promise<void>): Promise<Error[]> {
  const seen: Error[] = [];
  const listen = (warning: Error) => {
    if ((warning as Error & { code?: string }).code === code) seen.push(warning);
  };
  process.on("warning", listen);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off("warning", listen);
  }
  return seen;
}

const providers: BasicTracerProvider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.shutdown();
});

describe("an OpenTelemetry span processor that throws", () => {
  for (const on of ["start", "end"] as const) {
    it(`on ${on}: no uncaught exception, every call answers, one warning; the other processor still exports`, async () => {
      const exporter = new InMemorySpanExporter();
      const throwing = new ThrowingProcessor(on);
      // The exporter first: the SDK stops at the first processor that throws.
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), throwing] });
      providers.push(provider);
      const registry = createRegistry({ tools: [echo] });
      const stop = instrumentRegistry(registry, { tracer: provider.getTracer("test") });
      const run = registry.createRun();
      const results: unknown[] = [];
      let caught: unknown[] = [];
      const warnings = await warningsDuring("ATC_LISTENER_ERROR", async () => {
        caught = await collectUncaught(async () => {
          for (const word of ["a", "b", "c"]) results.push(await run.call("echo", { word }));
        });
      });
      expect(caught).toEqual([]);
      expect(results).toEqual(["a", "b", "c"].map((word) => expect.objectContaining({ ok: true, output: `echo ${word}` })));
      // The fault was met on every call, and told once per event type (not once per call): onStart
      // runs in the tool.called and the tool.result listener, onEnd in tool.result only.
      expect(throwing.calls).toBeGreaterThanOrEqual(3);
      const types = warnings.map((warning) => /listener of "([^"]+)"/.exec(warning.message)?.[1]);
      expect(types).toEqual(on === "start" ? ["tool.called", "tool.result"] : ["tool.result"]);
      expect(warnings[0]?.message).toContain("exporter misconfigured");
      expect(warnings[0]?.name).toBe("AgentToolCatalogWarning");
      if (on === "end")
        expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
          "execute_tool echo",
          "execute_tool echo",
          "execute_tool echo",
        ]);
      stop();
      await registry.close();
    });
  }

  it("control: a host's onListenerError gets each error and no warning is emitted", async () => {
    const provider = new BasicTracerProvider({ spanProcessors: [new ThrowingProcessor("end")] });
    providers.push(provider);
    const seen: string[] = [];
    const registry = createRegistry({ tools: [echo], onListenerError: (_error, type) => seen.push(type) });
    const stop = instrumentRegistry(registry, { tracer: provider.getTracer("test") });
    const run = registry.createRun();
    const warnings = await warningsDuring("ATC_LISTENER_ERROR", async () => {
      for (const word of ["a", "b"]) expect((await run.call("echo", { word })).ok).toBe(true);
    });
    expect(seen).toEqual(["tool.result", "tool.result"]);
    expect(warnings).toEqual([]);
    stop();
    await registry.close();
  });

  it("control: a healthy processor exports every span and nothing is warned", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    providers.push(provider);
    const registry = createRegistry({ tools: [echo] });
    const stop = instrumentRegistry(registry, { tracer: provider.getTracer("test") });
    const warnings = await warningsDuring("ATC_LISTENER_ERROR", async () => {
      expect((await registry.createRun().call("echo", { word: "a" })).ok).toBe(true);
    });
    expect(warnings).toEqual([]);
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    stop();
    await registry.close();
  });
});
