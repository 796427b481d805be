import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { type CatalogEvents, jsonAtAnyDepth, type Registry, type ToolCallResult } from "agent-tool-catalog";
import { checkNumberOption } from "../errors/check-number-option.js";

/**
 * What a redaction hook is asked about.
 *
 * @beta
 */
export type RedactionKind = "input" | "output" | "error";

/**
 * Options of {@link instrumentRegistry}.
 *
 * @beta
 */
export interface InstrumentationOptions {
  /**
   * The tracer to use.
   * @defaultValue `trace.getTracer("agent-tool-catalog")` of the global provider
   */
  readonly tracer?: Tracer;
  /**
   * Record call inputs, outputs and error messages on the spans (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`, `error.message`). They may hold secrets, so this is off unless asked,
   * and each value passes `redact` first.
   * @defaultValue `false`
   */
  readonly recordContent?: boolean;
  /**
   * Rewrites what goes to a span when `recordContent` is on (e.g. masks tokens); return
   * `undefined` to leave the value out. Called with the value and what it is.
   * @defaultValue the value as it is
   */
  readonly redact?: (value: unknown, kind: RedactionKind) => unknown;
  /**
   * The most characters of one recorded value: a whole number at least 0, or `Infinity` (no cut).
   * `NaN` recorded every value as an empty string.
   * @defaultValue 4096
   */
  readonly maxContentLength?: number;
}

/**
 * Span and attribute names this module writes (GenAI semantic conventions where they apply).
 *
 * @beta
 */
export const OTEL_NAMES = {
  /** The span of one tool call: `execute_tool {tool}`, as the GenAI conventions name it. */
  executeTool: "execute_tool",
  /** The span of a wait for approval, a child of its call's span. */
  approval: "await_approval",
} as const;

interface OpenCall {
  readonly span: Span;
  readonly context: Context;
  /** The tool called. */
  readonly name: string;
  /**
   * Its waits for approval, by approval id: two calls may share a call id (a model repeating an
   * id, two copies of one run), and one slot per call id lost the first wait's span for good.
   */
  readonly approvals: Map<string, Span>;
}

/**
 * Traces what happens in a registry's runs with OpenTelemetry, from the registry's events: one
 * `execute_tool {name}` span per call (GenAI semantic conventions: `gen_ai.operation.name`,
 * `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type`), a child
 * `await_approval` span while a call waits for approval, `tool.activated` span events on the
 * `find_tool` call that activated tools (searches), and `mcp.server.name` on calls of MCP tools
 * (the `mcp_server:` tag). Inputs and outputs are not recorded unless `recordContent` is on, and
 * pass `redact` first.
 *
 * Import it from `agent-tool-catalog/otel`; `@opentelemetry/api` is an optional peer dependency
 * that only this subpath loads.
 *
 * @returns a function that stops the tracing (open spans are ended)
 *
 * @example
 * ```ts
 * const stop = instrumentRegistry(registry, { tracer: trace.getTracer("my-agent") });
 * await registry.createRun().call("find_tool", { query: "weather" });
 * stop();
 * ```
 * @beta
 */
export function instrumentRegistry(registry: Registry, options: InstrumentationOptions = {}): () => void {
  checkNumberOption(
    options.maxContentLength,
    "maxContentLength",
    { min: 0, integer: true, infinite: true },
    "instrumentRegistry",
  );
  const tracer = options.tracer ?? trace.getTracer("agent-tool-catalog");
  const calls = new Map<string, OpenCall>();
  const key = (runId: string, callId: string) => `${runId}\u0000${callId}`;
  const content = contentRecorder(options);

  const open = (runId: string, callId: string, name: string, startTime?: number): OpenCall => {
    const existing = calls.get(key(runId, callId));
    if (existing !== undefined) return existing;
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.id": callId,
      "gen_ai.tool.type": "function",
      "agent_tool_catalog.run.id": runId,
    };
    const descriptor = registry.get(name);
    if (descriptor !== undefined) {
      attributes["agent_tool_catalog.tool.tier"] = descriptor.tier;
      attributes["agent_tool_catalog.tool.mutating"] = descriptor.mutating;
      if (descriptor.description !== "") attributes["gen_ai.tool.description"] = descriptor.description.split("\n")[0] ?? "";
      const server = descriptor.tags.find((tag) => tag.startsWith("mcp_server:"));
      if (server !== undefined) attributes["mcp.server.name"] = server.slice("mcp_server:".length);
    }
    const span = tracer.startSpan(`${OTEL_NAMES.executeTool} ${name}`, {
      kind: SpanKind.INTERNAL,
      attributes,
      ...(startTime === undefined ? {} : { startTime }),
    });
    const call: OpenCall = { span, context: trace.setSpan(context.active(), span), name, approvals: new Map() };
    calls.set(key(runId, callId), call);
    return call;
  };

  const handlers: { [Type in keyof CatalogEvents]?: (payload: CatalogEvents[Type]) => void } = {
    "approval.requested": (request) => {
      const call = open(request.runId, request.callId, request.toolName);
      if (content.enabled) content.set(call.span, "gen_ai.tool.call.arguments", request.input, "input");
      const approval = tracer.startSpan(
        OTEL_NAMES.approval,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            "agent_tool_catalog.approval.id": request.id,
            "agent_tool_catalog.approval.policy": request.policy,
            "gen_ai.tool.name": request.toolName,
            "gen_ai.tool.call.id": request.callId,
          },
        },
        call.context,
      );
      call.approvals.get(request.id)?.end();
      call.approvals.set(request.id, approval);
    },
    "approval.resolved": (resolution) => {
      const call = calls.get(key(resolution.request.runId, resolution.request.callId));
      const span = call?.approvals.get(resolution.request.id);
      if (call === undefined || span === undefined) return;
      span.setAttributes({
        "agent_tool_catalog.approval.decision": resolution.decision,
        "agent_tool_catalog.approval.resolved_by": resolution.resolvedBy,
      });
      span.end();
      call.approvals.delete(resolution.request.id);
    },
    "tool.called": (event) => {
      const call = open(event.runId, event.callId, event.name);
      if (content.enabled) content.set(call.span, "gen_ai.tool.call.arguments", event.input, "input");
    },
    "tool.activated": (event) => {
      // The activation belongs to the call that made it (`callId`), not to other calls of the run
      // running beside it in the same step (two find_tool calls), nor to any call when the host
      // activated (no `callId`).
      if (event.callId === undefined) return;
      calls
        .get(key(event.runId, event.callId))
        ?.span.addEvent("tool.activated", { "gen_ai.tool.name": event.name, via: event.via });
    },
    "tool.result": (event) => {
      const call = open(event.runId, event.callId, event.name, Date.now() - event.durationMs);
      calls.delete(key(event.runId, event.callId));
      finish(call, event.result, content);
    },
  };
  const offs = Object.entries(handlers).map(([type, handler]) =>
    registry.events.on(type as keyof CatalogEvents, handler as (payload: unknown) => void),
  );
  return () => {
    for (const off of offs) off();
    for (const call of calls.values()) endCall(call);
    calls.clear();
  };
}

/** Ends a call's span and the waits for approval still open under it. */
function endCall(call: OpenCall): void {
  for (const approval of call.approvals.values()) approval.end();
  call.approvals.clear();
  call.span.end();
}

function finish(call: OpenCall, result: ToolCallResult, content: ContentRecorder): void {
  if (result.ok) {
    if (content.enabled) content.set(call.span, "gen_ai.tool.call.result", result.output, "output");
    call.span.setStatus({ code: SpanStatusCode.OK });
  } else {
    call.span.setAttribute("error.type", result.error.code);
    const message = content.enabled ? content.text(result.error.message, "error") : undefined;
    call.span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
  }
  endCall(call);
}

interface ContentRecorder {
  readonly enabled: boolean;
  set(span: Span, attribute: string, value: unknown, kind: RedactionKind): void;
  text(value: unknown, kind: RedactionKind): string | undefined;
}

function contentRecorder(options: InstrumentationOptions): ContentRecorder {
  const max = options.maxContentLength ?? 4096;
  const text = (value: unknown, kind: RedactionKind): string | undefined => {
    let redacted: unknown;
    try {
      redacted = options.redact === undefined ? value : options.redact(value, kind);
    } catch {
      return "[redaction failed]";
    }
    if (redacted === undefined) return undefined;
    let written: string;
    try {
      written =
        typeof redacted === "string"
          ? redacted
          : (JSON.stringify(redacted, (_key, item) => (typeof item === "bigint" ? item.toString() : item)) ?? "");
    } catch (error) {
      written = deepText(redacted, error) ?? "[unserializable]";
    }
    return written.length > max ? `${written.slice(0, max)}…` : written;
  };
  return {
    enabled: options.recordContent === true,
    text,
    set(span, attribute, value, kind) {
      const written = text(value, kind);
      if (written !== undefined) span.setAttribute(attribute, written);
    },
  };
}

/**
 * The JSON of a value nested deeper than `JSON.stringify` walks (arguments parsed from a model's
 * string nest to any depth), written without recursion; `undefined` when `error` is not that
 * stack overflow or the value cannot be written. Such arguments were recorded as
 * "[unserializable]" (round 46).
 */
function deepText(value: unknown, error: unknown): string | undefined {
  if (!(error instanceof RangeError)) return undefined;
  try {
    return jsonAtAnyDepth(value);
  } catch {
    return undefined;
  }
}
