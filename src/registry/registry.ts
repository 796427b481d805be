import { CatalogError } from "../errors/catalog-error.js";
import { checkNumberOption } from "../errors/check-number-option.js";
import { countOf } from "../errors/count-of.js";
import { ToolDefinitionError } from "../errors/tool-definition-error.js";
import type { CatalogEvents } from "../events/catalog-events.js";
import { EventBus, type EventBusOptions } from "../events/event-bus.js";
import { createFindTool } from "../meta/find-tool.js";
import { createToolboxTool } from "../meta/toolbox.js";
import type { ApprovalBroker } from "../policy/approval-broker.js";
import { InMemoryApprovalBroker } from "../policy/in-memory-approval-broker.js";
import { BUILTIN_TAG } from "../profiles/tool-profile.js";
import { CallLifetimes } from "../run/call-lifetimes.js";
import type { Redactor } from "../run/redact-result.js";
import { type CreateRunOptions, Run } from "../run/run.js";
import { type RegistryEntry, type RegistryView, runSetupOf, setRunHostInternals } from "../run/run-host.js";
import { HybridSearch, type HybridSearchOptions } from "../search/hybrid-search.js";
import { compileTool } from "../tool/compile-tool.js";
import { deepFreeze } from "../tool/frozen-copy.js";
import { JsonSchemaCompiler } from "../tool/json-schema-validator.js";
import type { RunStorage } from "../tool/run-storage.js";
import type { SearchHit, SearchOptions } from "../tool/tool-context.js";
import type { AnyToolDefinition, ToolTier } from "../tool/tool-definition.js";
import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import { NameIndex } from "./name-index.js";
import { searchDocumentOf } from "./search-document.js";
import { resolveToolGroup, type ToolGroup } from "./tool-group.js";

/**
 * Options of {@link createRegistry}.
 *
 * @public
 */
export interface RegistryOptions {
  /** Tools to register. */
  readonly tools?: readonly AnyToolDefinition[];
  /** Tool groups to register; a group whose condition is false is skipped silently. */
  readonly groups?: readonly ToolGroup[];
  /** Tuning of the `find_tool` search; with an `embedder`, find_tool ranks by the hybrid score. */
  readonly search?: HybridSearchOptions;
  /**
   * What to do when an event listener throws (see {@link EventBusOptions.onListenerError}).
   * @defaultValue the first error of each event type is told once as a process warning (code
   * `ATC_LISTENER_ERROR`); never an uncaught exception
   */
  readonly onListenerError?: EventBusOptions["onListenerError"];
  /**
   * Where runs ask for approval (`approval: "destructive" | "all"`). Its events are also
   * emitted on `registry.events`.
   * @defaultValue a new `InMemoryApprovalBroker` (requests time out, denied, after five minutes)
   */
  readonly approvals?: ApprovalBroker;
  /**
   * Rewrites every text that goes to the model in a result (string outputs, the strings and keys
   * in object outputs, text parts, error messages, hints and issue messages), e.g. to mask secrets
   * a handler's exception carried word for word. Events carry the redacted result too; a hook
   * that throws replaces the text with a marker (fail closed).
   */
  readonly redact?: Redactor;
  /**
   * Build the `find_tool` search index in the background: registrations only queue their index
   * changes, and once this many are queued (`true`: 2,000) the queue is applied in slices of a few
   * milliseconds each on the event loop (`setImmediate`, so I/O and timers run between slices) until
   * it is empty. A search applies whatever is still queued first, synchronously, so results are
   * always exact; it just waits less the longer the host has been idle since registering. Below the
   * threshold the first search does the work (tens of milliseconds), so a registry that is never
   * searched never tokenizes its catalog. `false` leaves the whole queue to the first search (or
   * {@link Registry.prepareSearch}): nothing runs between turns of the event loop. A number is the
   * threshold (0 or 1: every change is indexed in the background; `Infinity`: as `false`); `NaN`
   * or a negative number is `ConfigurationError` `invalid_option`.
   * @defaultValue true
   */
  readonly indexInBackground?: boolean | number;
}

/**
 * Options of {@link Registry.register}.
 *
 * @public
 */
export interface RegisterOptions {
  /** The group the tool belongs to. */
  readonly group?: string;
  /**
   * Makes the tool private to one run (e.g. an MCP server connected by that run): other runs
   * never see, find or call it.
   */
  readonly runId?: string;
}

/**
 * Filter of {@link Registry.list}.
 *
 * @public
 */
export interface ListOptions {
  /** Only tools of this tier. */
  readonly tier?: ToolTier;
  /** Only tools of this group. */
  readonly group?: string;
}

/**
 * A registered tool, to change or remove it later. Every change is announced as `registry.changed`.
 *
 * @public
 */
export interface RegisteredToolHandle {
  /** The tool's name. */
  readonly name: string;
  /** Whether the tool is offered. */
  readonly enabled: boolean;
  /** Offers the tool again after {@link RegisteredToolHandle.disable}. */
  enable(): void;
  /** Hides the tool from every run without forgetting it. */
  disable(): void;
  /** Replaces the definition (same name). */
  update(definition: AnyToolDefinition): void;
  /** Removes the tool. */
  remove(): void;
}

/** About how long one background indexing slice runs before it yields to the event loop, in ms. */
const INDEX_SLICE_MS = 4;
/**
 * Queued index changes below which nothing runs in the background: the first search applies them
 * in tens of milliseconds, and a registry that is never searched (a new process asking one git
 * question, a registry per request) never pays for tokenizing its catalog.
 */
const BACKGROUND_INDEX_MIN_CHANGES = 2_000;

/** The queued changes from which background indexing starts, from the option (`Infinity`: never). */
function backgroundThreshold(option: boolean | number | undefined): number {
  if (option === false) return Number.POSITIVE_INFINITY;
  if (option === undefined || option === true) return BACKGROUND_INDEX_MIN_CHANGES;
  // 0 always meant "index every change in the background" (the threshold is at least one change).
  return Math.max(1, checkNumberOption(option, "indexInBackground", { min: 0, infinite: true }, "createRegistry"));
}
/** Staged postings a background slice writes (whole tools; tens of nanoseconds each). */
const COMMIT_SLICE_POSTINGS = 32_768;
/** Changes applied between two looks at the clock (one change is ~10-50 µs). */
const INDEX_SLICE_CHECK = 16;

/** The map key of a tool: its name, or name and run for a run-private tool. */
function entryKey(name: string, runId: string | undefined): string {
  return runId === undefined ? name : `${name}\u0000${runId}`;
}

/**
 * Holds tool definitions. Runs ({@link Registry.createRun}) are views of it for one conversation.
 * `find_tool` is registered by the registry itself, as a core tool.
 * @public
 */
export class Registry {
  /** Events of the registry and of every run made from it. */
  readonly events: EventBus<CatalogEvents>;
  /** Where runs of this registry ask for approval: approve or deny pending calls here. */
  readonly approvals: ApprovalBroker;
  private readonly entries = new Map<string, RegistryEntry>();
  /** The shared tools' run-setup hooks by name, kept as tools come and go (never a pass per run). */
  private readonly setups = new Map<string, (storage: RunStorage) => void>();
  /** How many runs hold a private tool of each name (a shared tool may not take such a name). */
  private readonly privateNames = new Map<string, number>();
  private readonly index: HybridSearch;
  /**
   * Index changes not applied yet, in order (`null`: removed): registration only queues them;
   * background slices (or the first search, which applies the rest) replay them in the same
   * order, so the index ends up as if each change had been applied at once. Two entries per
   * change, its key then its descriptor, not an array per change: 100,000 of those outlived the
   * young generation and were walked by every full collection until the index was built.
   */
  private unindexed: (string | ToolDescriptor | null)[] = [];
  /** Entries of `unindexed` before this one are applied (a slice leaves the rest where they are). */
  private unindexedHead = 0;
  /** Queued index changes from which slices run in the background (`Infinity`: never). */
  private readonly backgroundFrom: number;
  /** Set when a background slice threw: indexing is then left to searches. */
  private backgroundFailed = false;
  /** True when documents were staged in the index since its last commit. */
  private staged = false;
  /** The next background slice, while one is scheduled. */
  private indexing: NodeJS.Immediate | undefined;
  private nextOrder = 0;
  private changeCount = 0;
  private readonly disposers = new Set<() => unknown>();
  private isClosed = false;
  /** How to close each run that holds something to dispose of (see `holdRun`). */
  private readonly heldRuns = new Set<() => Promise<void>>();
  /** This registry's Ajv instances: dropped with the registry, never shared with another. */
  private readonly schemaCompiler = new JsonSchemaCompiler();
  private readonly calls = new CallLifetimes();
  /** Every registered name by trigram: bounded "did you mean" at any registry size. */
  private readonly names = new NameIndex();
  /**
   * Keys of the tools a run may send without activation: core-tier and built-in tools. Runs walk
   * these (plus the names their load options mention), never the whole registry, so a run's
   * cost grows with what it sees, not with the 100,000 deferred tools next to it.
   */
  private readonly prominent = new Set<string>();

  /** True once {@link Registry.close} was called. */
  get closed(): boolean {
    return this.isClosed;
  }

  constructor(options: RegistryOptions = {}) {
    const eventBusOptions: EventBusOptions =
      options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError };
    this.events = new EventBus(eventBusOptions);
    this.index = new HybridSearch(options.search);
    this.backgroundFrom = backgroundThreshold(options.indexInBackground);
    this.approvals = options.approvals ?? new InMemoryApprovalBroker();
    this.approvals.events.on("approval.requested", (request) => this.events.emit("approval.requested", request));
    this.approvals.events.on("approval.resolved", (resolution) => this.events.emit("approval.resolved", resolution));
    setRunHostInternals(this, {
      view: (runId) => this.viewFor(runId),
      eventBusOptions,
      calls: this.calls,
      holdRun: (close) => {
        if (this.isClosed) return undefined;
        this.heldRuns.add(close);
        return () => {
          this.heldRuns.delete(close);
        };
      },
      compile: (definition) => compileTool(definition, this.schemaCompiler),
      redact: options.redact,
      runSetups: () => this.setups,
    });
    this.register(createFindTool());
    this.register(createToolboxTool());
    // The initial tools: no handle and no event each (nobody can listen yet); one version step.
    const tools = options.tools ?? [];
    for (const tool of tools) this.add(tool, {});
    if (tools.length > 0) this.changeCount++;
    for (const group of options.groups ?? []) this.registerGroup(group);
  }

  /** Increases on every change of the tool set; views cache what they derive from it. */
  get version(): number {
    return this.changeCount;
  }

  /**
   * Registers a tool.
   * @throws ToolDefinitionError for a bad definition or a name already registered.
   */
  register(definition: AnyToolDefinition, options: RegisterOptions = {}): RegisteredToolHandle {
    const { key, entry } = this.add(definition, options);
    this.changed({ added: [entry.compiled.descriptor.name], removed: [], updated: [] });
    return this.handleFor(key, entry);
  }

  /**
   * Registers without announcing: one tool's work (compile, a map entry, its own index terms and
   * name trigrams), never a pass over the tools already registered.
   */
  private add(definition: AnyToolDefinition, options: RegisterOptions): { key: string; entry: RegistryEntry } {
    const compiled = compileTool(definition, this.schemaCompiler);
    const { name } = compiled.descriptor;
    this.assertNameFree(name, options.runId);
    const key = entryKey(name, options.runId);
    const entry: RegistryEntry = { compiled, enabled: true, group: options.group, runId: options.runId, order: this.nextOrder++ };
    this.entries.set(key, entry);
    this.trackSetup(entry);
    if (options.runId !== undefined) this.privateNames.set(name, (this.privateNames.get(name) ?? 0) + 1);
    this.queueIndexChange(key, compiled.descriptor);
    this.names.add(name);
    this.trackProminence(key, entry);
    return { key, entry };
  }

  /**
   * Registers a group's tools when its condition holds; returns their handles, or `undefined`
   * when the group is disabled. All of a group's tools are checked before any is registered.
   */
  registerGroup(group: ToolGroup): RegisteredToolHandle[] | undefined {
    if (typeof group?.name !== "string" || group.name === "") {
      throw new ToolDefinitionError("invalid_tool_group", "A tool group needs a non-empty name.");
    }
    const tools = resolveToolGroup(group);
    if (tools === undefined) return undefined;
    const seen = new Set<string>();
    for (const tool of tools) {
      const { name } = compileTool(tool, this.schemaCompiler).descriptor;
      if (seen.has(name) || this.entries.has(name) || (this.privateNames.get(name) ?? 0) > 0) {
        throw new ToolDefinitionError(
          "duplicate_tool_name",
          `Group "${group.name}": a tool named "${name}" is already registered.`,
          {
            data: { name, group: group.name },
          },
        );
      }
      seen.add(name);
    }
    return tools.map((tool) => this.register(tool, { group: group.name }));
  }

  /**
   * A shared name must be free everywhere; a run-private name must not be a shared name nor that
   * run's already. Two runs may each have a private tool of the same name (e.g. an MCP server
   * both connected under the same name).
   */
  private assertNameFree(name: string, runId: string | undefined): void {
    const existing = this.entries.get(name) ?? (runId === undefined ? undefined : this.entries.get(entryKey(name, runId)));
    if (existing !== undefined) {
      const where = existing.group === undefined ? "" : ` (group "${existing.group}")`;
      throw new ToolDefinitionError("duplicate_tool_name", `A tool named "${name}" is already registered${where}.`, {
        data: { name, group: existing.group },
      });
    }
    if (runId === undefined && (this.privateNames.get(name) ?? 0) > 0) {
      throw new ToolDefinitionError("duplicate_tool_name", `A tool named "${name}" is already registered privately by a run.`, {
        data: { name },
      });
    }
  }

  private trackProminence(key: string, entry: RegistryEntry): void {
    const { tier, tags } = entry.compiled.descriptor;
    if (tier === "core" || tags.includes(BUILTIN_TAG)) this.prominent.add(key);
    else this.prominent.delete(key);
  }

  private viewFor(runId: string): RegistryView {
    const visible = (entry: RegistryEntry) => entry.runId === undefined || entry.runId === runId;
    return {
      entry: (name) => this.entries.get(entryKey(name, runId)) ?? this.entries.get(name),
      enabledNames: () => {
        const out: string[] = [];
        for (const entry of this.entries.values()) if (entry.enabled && visible(entry)) out.push(entry.compiled.descriptor.name);
        return out;
      },
      prominent: (named) => {
        const out: RegistryEntry[] = [];
        const seen = new Set<RegistryEntry>();
        const take = (entry: RegistryEntry | undefined) => {
          if (entry === undefined || !entry.enabled || !visible(entry) || seen.has(entry)) return;
          seen.add(entry);
          out.push(entry);
        };
        for (const key of this.prominent) take(this.entries.get(key));
        for (const name of named) take(this.entries.get(entryKey(name, runId)) ?? this.entries.get(name));
        // A run's private tool shadows nothing, but its own prominent tools are keyed by run.
        return out.sort((a, b) => a.order - b.order);
      },
      nearNames: (name, limit) => this.names.near(name, limit),
      searchWhere: (query, limit, accept) =>
        this.searchIndex()
          .search(query, limit, (key) => {
            const entry = this.entries.get(key);
            return entry !== undefined && visible(entry) && accept(entry.compiled.descriptor.name);
          })
          .map((hit) => ({ name: (this.entries.get(hit.name) as RegistryEntry).compiled.descriptor.name, score: hit.score })),
      searchWhereHybrid: async (query, limit, accept, signal) => {
        const filter = (key: string) => {
          const entry = this.entries.get(key);
          return entry !== undefined && visible(entry) && accept(entry.compiled.descriptor.name);
        };
        const hits = await this.searchIndex().searchHybrid(query, limit, filter, { signal });
        // A tool removed while the query was embedded is dropped.
        return hits.flatMap((hit) => {
          const entry = this.entries.get(hit.name);
          return entry === undefined ? [] : [{ name: entry.compiled.descriptor.name, score: hit.score }];
        });
      },
    };
  }

  /**
   * Queues one index change. A registry that churns (runs connecting and closing MCP servers)
   * without ever being searched would otherwise keep every change forever: past twice the tools
   * registered (and at least 4,096 changes) the queue is applied, so it stays bounded by the catalog.
   */
  private queueIndexChange(key: string, descriptor: ToolDescriptor | null): void {
    this.unindexed.push(key, descriptor);
    if (this.queuedIndexChanges > Math.max(4096, 2 * this.entries.size)) this.searchIndex();
    else this.scheduleIndexing();
  }

  /** Index changes queued and not applied yet. */
  private get queuedIndexChanges(): number {
    return (this.unindexed.length - this.unindexedHead) >> 1;
  }

  /** @param continuing - a slice asks for the next one: go on below the threshold too. */
  private scheduleIndexing(continuing = false): void {
    if (this.backgroundFrom === Number.POSITIVE_INFINITY || this.backgroundFailed) return;
    if (this.indexing !== undefined || this.isClosed) return;
    if (!continuing && this.queuedIndexChanges < this.backgroundFrom) return;
    // Unreferenced: a process that has nothing else to do exits without waiting for the index.
    this.indexing = setImmediate(() => this.indexSlice()).unref();
  }

  /**
   * One background slice: queued changes for about `INDEX_SLICE_MS`; once none are left, the
   * staged postings are written, `COMMIT_SLICE_POSTINGS` per slice (the first also computes any
   * stale weights and makes room in one compaction), then any weights still stale are computed,
   * so that the first search finds nothing left to do. Weights are computed under the averages
   * the next search would choose if nothing changes before it: only a search chooses them, so
   * scores never depend on when slices ran (a search that chooses others recomputes them).
   */
  private indexSlice(): void {
    this.indexing = undefined;
    try {
      this.indexStep();
    } catch {
      // Nothing to report it to on the event loop (it would end the process): the change that
      // threw is dropped, as a search drops it, and the rest is left to the next search, which
      // throws to its caller if a change fails again.
      this.backgroundFailed = true;
    }
  }

  private indexStep(): void {
    if (this.queuedIndexChanges > 0) {
      const started = performance.now();
      this.applyIndexChanges(() => performance.now() - started >= INDEX_SLICE_MS);
      this.scheduleIndexing(true);
    } else if (this.staged) {
      if (this.index.commitStaged(COMMIT_SLICE_POSTINGS)) this.staged = false;
      this.scheduleIndexing(true);
    } else this.index.keyword.build();
  }

  /**
   * Applies every queued index change now. A search does this itself (so results are always
   * exact); a host calls it to pay for the index at a moment of its choosing, e.g. right after
   * registering a large catalog, instead of in the first `find_tool` call.
   */
  prepareSearch(): void {
    this.searchIndex();
  }

  /** The search index with every registration, update and removal so far applied. */
  private searchIndex(): HybridSearch {
    this.applyIndexChanges(() => false);
    this.index.commitStaged();
    this.staged = false;
    return this.index;
  }

  /**
   * Applies queued changes in order until the queue is empty or `enough()` (asked every
   * `INDEX_SLICE_CHECK` changes) says to stop.
   */
  private applyIndexChanges(enough: () => boolean): void {
    const changes = this.unindexed;
    let at = this.unindexedHead;
    try {
      while (at < changes.length) {
        const key = changes[at] as string;
        const descriptor = changes[at + 1] as ToolDescriptor | null;
        // Passed before it is applied: a change that throws (out of memory) is dropped, the ones
        // after it stay queued, in order.
        at += 2;
        if (descriptor === null) this.index.delete(key);
        else {
          this.index.stage(searchDocumentOf(descriptor, key));
          this.staged = true;
        }
        if ((at >> 1) % INDEX_SLICE_CHECK === 0 && enough()) break;
      }
    } finally {
      if (at === changes.length) {
        this.unindexed = [];
        this.unindexedHead = 0;
      } else if (at > 8192 && 2 * at > changes.length) {
        // Drop the applied head once it is most of the array (each change is copied at most once).
        this.unindexed = changes.slice(at);
        this.unindexedHead = 0;
      } else this.unindexedHead = at;
    }
  }

  /** The descriptor of an enabled shared tool (not run-private), or `undefined`. */
  get(name: string): ToolDescriptor | undefined {
    const entry = this.entries.get(name);
    return entry?.enabled === true ? entry.compiled.descriptor : undefined;
  }

  /** True when an enabled shared tool (not run-private) has this name. */
  has(name: string): boolean {
    return this.entries.get(name)?.enabled === true;
  }

  /** Enabled tools in registration order, run-private ones included (two runs' may share a name). */
  list(options: ListOptions = {}): ToolDescriptor[] {
    const out: ToolDescriptor[] = [];
    for (const entry of this.entries.values()) {
      if (!entry.enabled) continue;
      if (options.tier !== undefined && entry.compiled.descriptor.tier !== options.tier) continue;
      if (options.group !== undefined && entry.group !== options.group) continue;
      out.push(entry.compiled.descriptor);
    }
    return out;
  }

  /**
   * Keyword search over every enabled shared tool (core and deferred), best first. Run-private
   * tools are left out (search a run with `run.search()` to see its own).
   */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    return this.searchIndex()
      .search(query, options.limit ?? 10, (key) => {
        const entry = this.entries.get(key);
        return entry !== undefined && entry.runId === undefined && entry.enabled;
      })
      .map((hit) => ({ name: (this.entries.get(hit.name) as RegistryEntry).compiled.descriptor.name, score: hit.score }));
  }

  /**
   * Registers cleanup to run at {@link Registry.close} (e.g. closing MCP connections); returns the
   * function that unregisters it.
   */
  addDisposer(dispose: () => unknown): () => void {
    if (this.isClosed) {
      throw new CatalogError("registry_closed", "The registry is closed: nothing can be attached to it any more.");
    }
    this.disposers.add(dispose);
    return () => {
      this.disposers.delete(dispose);
    };
  }

  /**
   * Closes the registry: every call in flight in its runs sees its signal aborted (a call waiting
   * for approval is denied at once, as `aborted`), later calls and `createRun` are refused, then
   * every disposer runs and every run still holding something it started is closed (a monitor's
   * background commands, a run's own MCP connections: no process the catalog started is left),
   * in parallel, and waited for; errors are collected, not swallowed.
   */
  async close(): Promise<void> {
    this.isClosed = true;
    if (this.indexing !== undefined) clearImmediate(this.indexing);
    this.indexing = undefined;
    this.calls.abortAll(new CatalogError("registry_closed", "The registry was closed."));
    const disposers = [...this.disposers, ...this.heldRuns];
    this.disposers.clear();
    this.heldRuns.clear();
    const results = await Promise.allSettled(disposers.map(async (dispose) => dispose()));
    const errors = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    if (errors.length > 0)
      throw new AggregateError(errors, `${countOf(errors.length, "disposer")} failed while closing the registry.`);
  }

  /**
   * Creates a run: one conversation's view of the catalog.
   * @throws CatalogError `registry_closed` once the registry is closed.
   * @throws ConfigurationError for an invalid option (an unknown option, a workspace that is not
   * an existing absolute directory, a bad `approvalTimeoutMs`), naming the field.
   */
  createRun(options: CreateRunOptions = {}): Run {
    if (this.isClosed) {
      throw new CatalogError("registry_closed", "The registry is closed: it cannot start new runs.");
    }
    return new Run(this, options);
  }

  private handleFor(key: string, entry: RegistryEntry): RegisteredToolHandle {
    const { name } = entry.compiled.descriptor;
    const live = (): boolean => this.entries.get(key) === entry;
    const setEnabled = (enabled: boolean): void => {
      if (!live() || entry.enabled === enabled) return;
      entry.enabled = enabled;
      this.changed(enabled ? { added: [name], removed: [], updated: [] } : { added: [], removed: [name], updated: [] });
    };
    return {
      name,
      get enabled() {
        return live() && entry.enabled;
      },
      enable: () => setEnabled(true),
      disable: () => setEnabled(false),
      update: (definition) => {
        if (!live()) return;
        const compiled = compileTool(definition, this.schemaCompiler);
        if (compiled.descriptor.name !== name) {
          throw new ToolDefinitionError(
            "invalid_tool_name",
            `update() of "${name}" cannot rename it to "${compiled.descriptor.name}"; remove it and register the new tool.`,
            { data: { name } },
          );
        }
        entry.compiled = compiled;
        this.trackSetup(entry);
        this.queueIndexChange(key, compiled.descriptor);
        this.trackProminence(key, entry);
        this.changed({ added: [], removed: [], updated: [name] });
      },
      remove: () => {
        if (!live()) return;
        this.entries.delete(key);
        if (entry.runId === undefined) this.setups.delete(name);
        this.queueIndexChange(key, null);
        this.names.remove(name);
        this.prominent.delete(key);
        if (entry.runId !== undefined) {
          const count = (this.privateNames.get(name) ?? 1) - 1;
          if (count > 0) this.privateNames.set(name, count);
          else this.privateNames.delete(name);
        }
        this.changed({ added: [], removed: [name], updated: [] });
      },
    };
  }

  /** Keeps {@link Registry.setups} in step with a shared tool's definition. */
  private trackSetup(entry: RegistryEntry): void {
    if (entry.runId !== undefined) return;
    const setup = runSetupOf(entry.compiled.definition);
    const { name } = entry.compiled.descriptor;
    if (setup === undefined) this.setups.delete(name);
    else this.setups.set(name, setup);
  }

  private changed(change: CatalogEvents["registry.changed"]): void {
    this.changeCount++;
    // Frozen at every level: one payload for every listener, none can rewrite it for the next.
    if (this.events.hasListeners("registry.changed")) this.events.emit("registry.changed", deepFreeze(change));
  }
}

/**
 * Creates a registry with tools and groups.
 *
 * @example
 * ```ts
 * const registry = createRegistry({ tools: [echo], groups: [{ name: "cron", enabled: hasCron, tools: cronTools }] });
 * const run = registry.createRun({ allowedTools: ["echo"] });
 * ```
 * @public
 */
export function createRegistry(options: RegistryOptions = {}): Registry {
  return new Registry(options);
}
