import type { CatalogEvents } from "../events/catalog-events.js";
import type { EventBus, EventBusOptions } from "../events/event-bus.js";
import type { ApprovalBroker } from "../policy/approval-broker.js";
import type { CompiledTool } from "../tool/compile-tool.js";
import type { RunStorage } from "../tool/run-storage.js";
import type { SearchHit } from "../tool/tool-context.js";
import type { AnyToolDefinition } from "../tool/tool-definition.js";
import type { CallLifetimes } from "./call-lifetimes.js";
import type { Redactor } from "./redact-result.js";

// What a run needs from the registry that made it. The registry sits above run/ in the layer
// order (docs/architecture.md): it constructs runs, so runs see it only through these types.

/**
 * What a run reads of the registry that made it; `Registry` implements it. It lets `run/` sit
 * below `registry/` in the layer order (docs/architecture.md).
 * @public
 */
export interface RunHost {
  /** Increases on every change of the tool set; runs cache what they derive from it. */
  readonly version: number;
  /** Where runs ask for approval. */
  readonly approvals: ApprovalBroker;
  /** The host's events: every run's events are forwarded here too. */
  readonly events: EventBus<CatalogEvents>;
}

/** One registered tool (internal to the package). */
export interface RegistryEntry {
  compiled: CompiledTool;
  enabled: boolean;
  readonly group: string | undefined;
  readonly runId: string | undefined;
  readonly order: number;
}

/**
 * What runs read of their registry. Kept off the public class (not part of the API) and reached
 * through {@link internalsOf}, which the package index does not export.
 */
/** @internal */
export interface RegistryInternals {
  /** The registry as one run sees it: shared tools plus that run's private tools. */
  view(runId: string): RegistryView;
  /** Options for the event buses of runs, so they report listener errors the same way. */
  readonly eventBusOptions: EventBusOptions;
  /** The calls in flight in every run of the registry: `close()` aborts them. */
  readonly calls: CallLifetimes;
  /**
   * Asks the registry to close a run with itself: a run calls it when it first holds something to
   * dispose of (a monitor's background command, a run's MCP connection), so `registry.close()`
   * ends what its runs started. Returns the release (the run closed first), or `undefined` when
   * the registry is closed already. Runs that hold nothing are not kept by the registry.
   */
  holdRun(close: () => Promise<void>): (() => void) | undefined;
  /** Compiles a definition with the registry's own JSON Schema compiler. */
  compile(definition: AnyToolDefinition): CompiledTool;
  /** The registry's redaction hook, applied by runs to every result. */
  readonly redact: Redactor | undefined;
  /**
   * The shared tools that set something up in each new run's storage ({@link RUN_SETUP}), by
   * name: called when a run is made, for the tools it may use.
   */
  runSetups(): ReadonlyMap<string, (storage: RunStorage) => void>;
}

/**
 * A definition's hook, under this process-wide symbol (every copy of the package reads the same
 * one), called with each new run's storage when the run may use the tool: a tool declares there
 * what must be known of the run before any of its calls (bash and monitor declare the run's
 * resource totals, so a child run's commands are held to them even while the parent's own
 * commands have not run yet). Versioned: a copy that calls it differently uses another.
 * @internal
 */
export const RUN_SETUP = Symbol.for("agent-tool-catalog.run-setup.v1");

/** The {@link RUN_SETUP} hook of a definition, if it has one. @internal */
export function runSetupOf(definition: object): ((storage: RunStorage) => void) | undefined {
  const setup = (definition as { readonly [RUN_SETUP]?: unknown })[RUN_SETUP];
  return typeof setup === "function" ? (setup as (storage: RunStorage) => void) : undefined;
}

/** The registry seen from one run: its private tools of a name come before nothing else. */
export interface RegistryView {
  /** The entry of a tool (the run's private one, else the shared one), enabled or not. */
  entry(name: string): RegistryEntry | undefined;
  /** Names of every enabled tool this run can see, in registration order. */
  enabledNames(): string[];
  /**
   * Enabled entries this run can see that may reach the model without activation: core-tier and
   * built-in tools, plus the tools of `named` (the run's load options), in registration order.
   */
  prominent(named: Iterable<string>): RegistryEntry[];
  /** Registered names close to `name` by shared trigrams (bounded work), most alike first. */
  nearNames(name: string, limit: number): string[];
  /** Search over this run's tools with a candidate filter. */
  searchWhere(query: string, limit: number, accept: (name: string) => boolean): SearchHit[];
  /** The same, hybrid (keyword + embeddings) when the registry has an embedder. */
  searchWhereHybrid(
    query: string,
    limit: number,
    accept: (name: string) => boolean,
    signal: AbortSignal | undefined,
  ): Promise<SearchHit[]>;
}

const runHostInternals = new WeakMap<RunHost, RegistryInternals>();

/** Records the internals of a host; the registry calls it once, in its constructor. @internal */
export function setRunHostInternals(host: RunHost, internals: RegistryInternals): void {
  runHostInternals.set(host, internals);
}

/** The internals of a host (package-internal). @internal */
export function internalsOf(host: RunHost): RegistryInternals {
  return runHostInternals.get(host) as RegistryInternals;
}
