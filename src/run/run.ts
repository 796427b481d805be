import { CatalogError } from "../errors/catalog-error.js";
import { checkNumberOption, TIMER_MS } from "../errors/check-number-option.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { countOf } from "../errors/count-of.js";
import { ToolError } from "../errors/tool-error.js";
import type { CatalogEvents } from "../events/catalog-events.js";
import { EventBus } from "../events/event-bus.js";
import { listingIndex } from "../meta/listing-index.js";
import { isMetaTool } from "../meta/meta-tools.js";
import { notListedForToolbox } from "../meta/not-listed-for-toolbox.js";
import { frozenEventCopy } from "../policy/frozen-event-copy.js";
import { handlerInputCopy } from "../policy/handler-input-copy.js";
import { narrowPermissions } from "../policy/narrow-permissions.js";
import { type PermissionConfig, type ResolvedPermissionConfig, resolvePermissionConfig } from "../policy/permission-config.js";
import { authorizeCall, type ToolPolicy } from "../policy/tool-policy.js";
import { pinWorkspace } from "../policy/workspace-pins.js";
import type { ToolPlacement } from "../profiles/load-mode.js";
import type { ToolProfileName } from "../profiles/tool-profile.js";
import { AllowedNames } from "../tool/allowed-names.js";
import { closestNames } from "../tool/closest-names.js";
import { foldedMcpAlternative, foldToolName } from "../tool/fold-tool-name.js";
import { deepFreeze } from "../tool/frozen-copy.js";
import { intersectAllowedTools, type RunScope } from "../tool/run-scope.js";
import { RunStorage } from "../tool/run-storage.js";
import type { ToolCallErrorInfo, ToolCallFailure, ToolCallResult } from "../tool/tool-call-result.js";
import type { ActivationOutcome, RunCatalog, SearchHit, SearchOptions, ToolContext } from "../tool/tool-context.js";
import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import { toolIdentity } from "../tool/tool-identity.js";
import { ActivationTracker, type ActivationTrackerState } from "./activation-tracker.js";
import { activationsFromTranscript } from "./activations-from-transcript.js";
import { ALWAYS_AVAILABLE_TOOLS } from "./always-available-tools.js";
import { cutCallId, MAX_CALL_ID_LENGTH, oversizedCallIdError, RunCallIdClaims } from "./call-id-claims.js";
import { CallLifetimes } from "./call-lifetimes.js";
import { checkParentScope } from "./check-parent-scope.js";
import {
  CREATE_RUN_OPTION_NAMES,
  checkApprovalTimeout,
  checkOptionNames,
  checkRunDepth,
  checkWorkspace,
  POSITIVE_LIMIT,
  resolveAllowedTools,
} from "./check-run-options.js";
import { type ChildRunState, ChildRuns } from "./child-runs.js";
import { describeFailure } from "./describe-failure.js";
import { finishOutput } from "./finish-output.js";
import { frozenResultCopy } from "./frozen-result-copy.js";
import { parseToolArguments, tooDeepToCheck } from "./parse-tool-arguments.js";
import { randomRunId } from "./random-run-id.js";
import { type ReadCallOptions, readCallOptions } from "./read-call-options.js";
import { outputRedactor, type Redactor, redactFailure } from "./redact-result.js";
import { internalsOf, type RegistryEntry, type RegistryView, type RunHost } from "./run-host.js";
import { RunPersistence } from "./run-persistence.js";
import {
  type PendingApprovalState,
  type RunState,
  type RunStateV1,
  type RunStateV2,
  runStateFromOptions,
  storablePendingApprovals,
  storableToolboxIndex,
} from "./run-state.js";
import type { RunStore } from "./run-store.js";
import { runUntilAborted } from "./run-until-aborted.js";
import { SkillConstraints } from "./skill-constraints.js";
import { TOOLBOX_TOOL_NAME, type ToolLoadOptions, ToolLoadPlan } from "./tool-load-plan.js";
import { reachOfPlacement, type ToolReach } from "./tool-reach.js";
import { visibilityError } from "./visibility-error.js";

/**
 * Options of `registry.createRun()`.
 *
 * @public
 */
export interface CreateRunOptions extends ToolLoadOptions {
  /** The run's id. @defaultValue a random UUID */
  readonly runId?: string;
  /**
   * When non-empty, only these tools (plus `AskUserQuestion`, `find_tool` and `skill`) are
   * offered. It filters; it does not change tiers: a deferred tool listed here still needs
   * activation. Empty or absent: every tool.
   */
  readonly allowedTools?: readonly string[];
  /** The run's permissions. @defaultValue `{ sandbox: "unrestricted", approval: "none" }`, or the parent's */
  readonly permissions?: PermissionConfig;
  /**
   * Makes this a child run (a sub-agent, a workflow step, a forked skill) of `parent` (a run, or
   * the `ctx.scope` a handler got): its permissions are `permissions` narrowed to the parent's
   * (each axis the stricter, the workspace the parent's or inside it), and its tools are
   * `allowedTools` intersected with the parent's (an empty intersection leaves only the
   * always-available tools). A child never has wider permissions or more tools than its parent.
   * It presents its parent's profile (`minimal`, `none`, ...) unless `profile` names another.
   * A child may be at most 64 levels below its root run (`ConfigurationError` `run_too_deep`).
   */
  readonly parent?: RunScope | Run;
  /**
   * A saved run to continue (what `run.toJSON()` returned, here or in another process): its id,
   * activations, skill constraints, tool state (undo journal, read record, todo list), frozen
   * toolbox index and the calls that were waiting for approval ({@link Run.interruptedCalls}).
   * Version 1 states (activations only) are read too. Not together with `runId` or `activation`.
   */
  readonly state?: RunState | RunStateV2 | RunStateV1;
  /**
   * Where the run saves itself: after every `run.call` (before the result is returned) and on
   * {@link Run.save}. Saves check the revision (`storeRevision`, then each save's own), so two
   * processes serving one run never overwrite each other silently: a lost race is reported as a
   * `state_save_failed` diagnostic. Use `resumeRun()` to load and continue a stored run.
   */
  readonly store?: RunStore<RunState>;
  /** The store revision `state` was loaded at (`resumeRun` sets it). */
  readonly storeRevision?: number;
  /**
   * TTL of each save, in ms: a whole number at least 1, or `Infinity` (never expires, whatever
   * the store's default). @defaultValue the store's
   */
  readonly storeTtlMs?: number;
  /**
   * How long the save after each call (and `run.save()`) is waited for, in ms, before the call's
   * result is returned anyway with a `state_save_failed` diagnostic (the save stays queued and may
   * land later): a whole number of ms, at least 1. @defaultValue 10,000 (10 s)
   */
  readonly storeSaveWaitMs?: number;
  /** Activations to start with: a tracker to share, or state saved by `run.toJSON()`. */
  readonly activation?: ActivationTracker | ActivationTrackerState;
  /** Host values handed to every handler as `ctx.hostContext`. */
  readonly context?: Readonly<Record<string, unknown>>;
  /**
   * Largest argument string a call accepts, in UTF-16 code units; larger inputs are refused
   * with `input_too_large` before parsing.
   * @defaultValue 4 MiB
   */
  readonly maxInputLength?: number;
  /**
   * How long a call waits for approval before it is denied: a whole number of ms from 1 to
   * 2^31 - 1, as the brokers' `timeoutMs`.
   * @defaultValue the broker's timeout (five minutes for the in-memory broker)
   */
  readonly approvalTimeoutMs?: number;
  /**
   * Text outputs longer than this many characters are cut to head and tail with a marker saying
   * what was left out. `Infinity` turns it off.
   * @defaultValue 40000
   */
  readonly condenseThreshold?: number;
  /**
   * Most decoded bytes of images and files one result may carry (`toolContent` parts); parts
   * over it are replaced by a text part saying what was left out. A result also carries at most
   * 20 such parts, whatever their size; the others are counted in one text part.
   * @defaultValue 5 MiB
   */
  readonly maxBinaryBytes?: number;
  /**
   * Most calls of this run in flight at once (handlers running or waiting for approval); a call
   * over it fails at once with `too_many_calls`. It ends a handler that calls its own run
   * without end: each level waits on the next, so without a bound the chain of promises grows
   * until memory runs out and no timer of the host fires. Parallel calls of a model step are
   * far below it.
   * @defaultValue 1000
   */
  readonly maxCallsInFlight?: number;
}

/**
 * Something about a run the host should know (see {@link Run.diagnostics}).
 *
 * @public
 */
export interface RunDiagnostic {
  /**
   * `unknown_allowed_tool`: `allowedTools` names a tool that is not registered (yet), by its name
   * or, for an MCP tool, by a spelling that folds to it.
   * `stale_activation`: a restored activation named a tool that is now a different tool.
   * `unknown_load_mode_tool`: a load mode entry (options, `[tools.load_mode]`, `disabledTools`,
   * `[tools] disabled`) covers no registered tool (yet): not by its name, nor by folding as MCP
   * names are folded (see `ToolLoadOptions.disabledTools`).
   * `state_save_failed`: saving to the run's store failed (another process saved the run in
   * between, or the store is unreachable); `name` is the run id.
   * `disposer_failed`: a disposer added after the run closed (run at once) threw; `name` is the run id.
   */
  readonly kind: "unknown_allowed_tool" | "stale_activation" | "unknown_load_mode_tool" | "state_save_failed" | "disposer_failed";
  /** The tool name concerned. */
  readonly name: string;
  /** One sentence for a log. */
  readonly message: string;
  /** The closest registered names. */
  readonly suggestions: readonly string[];
}

/**
 * Options of {@link Run.call}.
 *
 * @public
 */
export interface CallOptions {
  /** Cancels the call. */
  readonly signal?: AbortSignal;
  /** The provider's tool-call id. @defaultValue a counter per run */
  readonly callId?: string;
  /**
   * The host already obtained approval for this call through its own flow (e.g. the AI SDK's
   * `needsApproval`), so the run's policy does not ask again. Host code only: nothing the model
   * sends can set it.
   * @defaultValue false
   */
  readonly approved?: boolean;
  /**
   * The tool an approval obtained through the host's own flow was given for: the descriptor its
   * request showed (from `run.availableTools()` or `run.definitions()` at that time). The call runs
   * only while the tool's registry entry is still that one; a tool removed and registered again
   * under its name (or updated) since is refused, as a call waiting on the run's broker is.
   * @defaultValue not checked
   */
  readonly approvedTool?: ToolDescriptor;
}

export type { RunState } from "./run-state.js";

/** Where a listed tool that joined after the index froze goes: behind find_tool. */
const LATE_LISTED_PLACEMENT: ToolPlacement = Object.freeze({ mode: "discoverable", listed: false });

/** Longer requested names are cut in results (names are at most 64 characters). */
const MAX_ECHOED_NAME_LENGTH = 128;
const DEFAULT_MAX_INPUT_LENGTH = 4 * 1024 * 1024;
const DEFAULT_CONDENSE_THRESHOLD = 40_000;
const DEFAULT_MAX_BINARY_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_CALLS_IN_FLIGHT = 1000;

/**
 * One conversation's view of a registry: which tools the model sees this turn
 * ({@link Run.definitions}), what it has activated, and the way to call them ({@link Run.call}).
 * @public
 */
export class Run {
  /** The run's id. */
  readonly id: string;
  /** The run's permissions, defaults applied. */
  readonly permissions: ResolvedPermissionConfig;
  /** The run's activated deferred tools. */
  readonly activation: ActivationTracker;
  /** How many ancestors the run has: 0, or the parent's depth + 1 for a child run. */
  readonly depth: number;
  /** This run's events (the registry's bus gets them too). */
  readonly events: EventBus<CatalogEvents>;
  /** The catalog as tools see it from inside this run. */
  readonly catalog: RunCatalog;
  private readonly registry: RunHost;
  private readonly store: RegistryView;
  /** The `via`s of each name's activations (see {@link Run.activatedBy}); kept in memory only. */
  private readonly activationVias = new Map<string, Set<string>>();
  /** `allowedTools` (narrowed by the parent's); server spellings of MCP names match (`AllowedNames`). */
  private readonly allowed: AllowedNames | undefined;
  private readonly hostContext: Readonly<Record<string, unknown>>;
  /**
   * The largest argument string this run's calls accept, in UTF-16 code units (`maxInputLength`
   * of {@link CreateRunOptions}); adapters that parse a provider's argument text themselves check
   * it first, so an oversized call costs nothing before it is refused with `input_too_large`.
   */
  readonly maxInputLength: number;
  private readonly maxCallsInFlight: number;
  private readonly policy: ToolPolicy;
  private readonly condenseThreshold: number;
  private readonly maxBinaryBytes: number;
  private readonly storage: RunStorage;
  private readonly persistence: RunPersistence | undefined;
  /** The store the run saves to, which also claims host-given call ids across processes. */
  /** The host-given call ids this run holds in its store while their calls run. */
  private readonly callIdClaims: RunCallIdClaims;
  private readonly restoredPending: readonly PendingApprovalState[];
  private readonly pendingApprovals = new Map<string, PendingApprovalState>();
  private readonly children: ChildRuns;
  private readonly recordChildBound = (child: ChildRunState): void => this.recordChildRun(child);
  private readonly lastUse = new Map<string, number>();
  private readonly lifetime = new AbortController();
  /** This run's calls in flight, each with its own signal (nothing is added to the run's). */
  private readonly calls = new CallLifetimes();
  private readonly registryCalls: CallLifetimes;
  private readonly redact: Redactor | undefined;
  private readonly disposers = new Set<() => unknown>();
  private readonly holdRun: (close: () => Promise<void>) => (() => void) | undefined;
  /** Set once the registry holds this run (its first disposer): ends that hold at close. */
  private releaseHold: (() => void) | undefined;
  private readonly addDisposerBound = (dispose: () => unknown): (() => void) => this.addDisposer(dispose);
  private callCount = 0;
  private useCount = 0;
  private definitionsCache: { key: string; value: readonly ToolDescriptor[] } | undefined;
  private readonly plan: ToolLoadPlan;
  private readonly skills = new SkillConstraints();
  private frozenIndex: string | undefined | null = null;
  private readonly diagnosticList: RunDiagnostic[] = [];
  /** The tools named in the frozen index; `undefined` until it is frozen. */
  private frozenListed: ReadonlySet<string> | undefined;

  /** @internal Use `registry.createRun()`. */
  constructor(registry: RunHost, options: CreateRunOptions) {
    if (typeof options !== "object" || options === null) {
      throw new ConfigurationError("invalid_option", "createRun options must be an object.", { data: { field: "options" } });
    }
    checkOptionNames(options, CREATE_RUN_OPTION_NAMES, "createRun");
    checkApprovalTimeout(options.approvalTimeoutMs, "approvalTimeoutMs", "createRun");
    checkNumberOption(options.maxInputLength, "maxInputLength", POSITIVE_LIMIT, "createRun");
    checkNumberOption(options.condenseThreshold, "condenseThreshold", POSITIVE_LIMIT, "createRun");
    checkNumberOption(options.maxBinaryBytes, "maxBinaryBytes", POSITIVE_LIMIT, "createRun");
    checkNumberOption(options.maxCallsInFlight, "maxCallsInFlight", POSITIVE_LIMIT, "createRun");
    // Milliseconds a store keeps the state (Redis takes whole ms): NaN or -1 lost it or kept it
    // forever. Infinity always meant "never expires" with the in-memory store; it is sent as no TTL.
    checkNumberOption(options.storeTtlMs, "storeTtlMs", { min: 1, integer: true, infinite: true }, "createRun");
    checkNumberOption(options.storeSaveWaitMs, "storeSaveWaitMs", TIMER_MS, "createRun");
    this.registry = registry;
    const internals = internalsOf(registry);
    this.events = new EventBus(internals.eventBusOptions);
    const state = runStateFromOptions(options);
    this.id = state?.runId ?? options.runId ?? randomRunId();
    this.restoredPending = Object.freeze([...(state?.pendingApprovals ?? [])]);
    this.children = new ChildRuns(state?.children);
    if (state?.toolboxIndex !== undefined) this.frozenIndex = state.toolboxIndex;
    this.store = internals.view(this.id);
    this.registryCalls = internals.calls;
    this.holdRun = internals.holdRun;
    this.redact = internals.redact;
    const requestedTools = resolveAllowedTools(options.allowedTools);
    let inheritedDenials: readonly string[] = [];
    let inheritedProfile: ToolProfileName | undefined;
    if (options.parent === undefined) {
      this.permissions = resolvePermissionConfig(options.permissions);
      // Where the host's workspace is now; each use is checked against it (a link planted on the way later is refused).
      pinWorkspace(this.permissions.workspace);
      this.allowed = requestedTools === undefined ? undefined : new AllowedNames(requestedTools);
      this.depth = 0;
      this.storage = new RunStorage(state?.storage, { lifetime: this.lifetime.signal });
    } else {
      const parent = scopeOfParent(options.parent);
      checkParentScope(parent);
      inheritedDenials = parent.disabledTools ?? [];
      // checkParentScope refused any name that is not a profile's.
      inheritedProfile = parent.profile as ToolProfileName | undefined;
      // The parent's storage, so state such as the resource budget is drawn from the parent's.
      this.storage = new RunStorage(state?.storage, { parent: parent.storage, lifetime: this.lifetime.signal });
      this.permissions = narrowPermissions(parent.permissions, options.permissions);
      const tools = intersectAllowedTools(parent.allowedTools, requestedTools === undefined ? undefined : [...requestedTools]);
      this.allowed = tools === undefined ? undefined : new AllowedNames(tools);
      this.depth = checkRunDepth(parent.depth + 1);
    }
    checkWorkspace(this.permissions.workspace);
    setUpTools(internals.runSetups(), this.allowed, this.storage);
    this.plan = new ToolLoadPlan(options, this.allowed !== undefined, inheritedDenials, inheritedProfile);
    const activation = state?.activation ?? options.activation;
    this.activation =
      activation instanceof ActivationTracker
        ? activation
        : activation === undefined
          ? new ActivationTracker()
          : ActivationTracker.fromJSON(activation);
    for (const constraint of state?.skills ?? []) this.skills.apply(constraint.skill, constraint.allowedTools);
    this.hostContext = Object.freeze({ ...options.context });
    this.maxInputLength = options.maxInputLength ?? DEFAULT_MAX_INPUT_LENGTH;
    this.maxCallsInFlight = options.maxCallsInFlight ?? DEFAULT_MAX_CALLS_IN_FLIGHT;
    this.condenseThreshold = options.condenseThreshold ?? DEFAULT_CONDENSE_THRESHOLD;
    this.maxBinaryBytes = options.maxBinaryBytes ?? DEFAULT_MAX_BINARY_BYTES;
    this.policy = { permissions: this.permissions, approvals: registry.approvals, approvalTimeoutMs: options.approvalTimeoutMs };
    this.reportUnknownAllowedTools(requestedTools);
    this.reportUnknownLoadModeTools();
    this.trackPendingApprovals(registry);
    this.persistence = options.store === undefined ? undefined : this.persistTo(options.store, options);
    this.callIdClaims = new RunCallIdClaims(options.store, this.id);
    this.catalog = {
      search: (query, searchOptions) => this.search(query, searchOptions),
      searchHybrid: (query, searchOptions) => this.searchHybrid(query, searchOptions),
      activate: (names, via) => this.activate(names, via),
      describe: (name) => (this.isVisible(name) || this.canActivate(name) ? this.descriptorOf(name) : undefined),
      isVisible: (name) => this.isVisible(name),
      isListed: (name) => this.isListed(name),
      describeListed: (name) => (this.isListed(name) ? this.descriptorOf(name) : undefined),
      callListed: (name, args, callOptions) => this.callListed(name, args, callOptions),
      call: (name, args, callOptions) => this.invokeSafely(name, args, readCallOptions(callOptions), false),
      applySkillConstraint: (skill, allowedTools) => this.applySkillConstraint(skill, allowedTools),
    };
  }

  /**
   * `allowedTools` naming no registered tool is reported, not refused: tools may join later (an
   * MCP server connecting). Without the report, a typo silently leaves only `find_tool`.
   */
  private reportUnknownAllowedTools(requested: ReadonlySet<string> | undefined): void {
    if (requested === undefined) return;
    for (const name of requested) {
      if (ALWAYS_AVAILABLE_TOOLS.has(name) || this.store.entry(name) !== undefined) continue;
      // Written as a server spells an MCP tool: it allows the tool's folded registered name (an
      // entry with a `*` is exact in an allow list, so it is reported: it allows nothing).
      const alternative = foldedMcpAlternative(name);
      if (alternative !== undefined && this.store.entry(alternative) !== undefined) continue;
      const suggestions = closestNames(name, this.store.nearNames(name, 50));
      this.report({
        kind: "unknown_allowed_tool",
        name,
        message: `allowedTools names "${name}", which is not registered${suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?` : "."}`,
        suggestions,
      });
    }
  }

  /**
   * Names in `loadModes`, `disabledTools` or `[tools.load_mode]` that cover no tool (yet): warned.
   * A name written as a server spells an MCP tool covers its folded registered name (an `off`
   * one every name it denies), so it is not reported: it applies.
   */
  private reportUnknownLoadModeTools(): void {
    for (const name of this.plan.overriddenNames()) {
      if (ALWAYS_AVAILABLE_TOOLS.has(name) || name === TOOLBOX_TOOL_NAME || this.store.entry(name) !== undefined) continue;
      const folded = foldToolName(name);
      if (this.store.entry(folded) !== undefined && this.plan.covers(name, folded)) continue;
      if (this.store.enabledNames().some((registered) => this.plan.covers(name, registered))) continue;
      const suggestions = closestNames(name, this.store.nearNames(name, 50));
      this.report({
        kind: "unknown_load_mode_tool",
        name,
        message: `The load modes name "${name}", which is not registered${suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?` : "."}`,
        suggestions,
      });
    }
  }

  /** The run's profile and whether it lists tools behind `toolbox`. */
  get loading(): { readonly profile: ToolProfileName; readonly listing: boolean } {
    return { profile: this.plan.profile, listing: this.plan.listing };
  }

  /**
   * The system-prompt section of a listing run: `# Additional tools`, one instruction line, and
   * a `- <name>: <description>` row per listed tool (first sentence, at most 60 characters).
   * `undefined` for a run that lists nothing. It is built once, when the first tool list is
   * locked (the first call of this or of {@link Run.definitions}), and never changes afterwards.
   */
  systemPromptIndex(): string | undefined {
    if (this.frozenIndex === null) {
      const listed = this.prominentNames().filter((name) => this.isListed(name));
      this.frozenListed = new Set(listed);
      this.frozenIndex =
        listed.length === 0 ? undefined : listingIndex(listed.map((name) => this.descriptorOf(name) as ToolDescriptor));
    }
    return this.frozenIndex;
  }

  /**
   * The tools to send the model this turn: enabled core tools in registration order, then
   * activated deferred tools in activation order, filtered by `allowedTools`. The array is the
   * same object until the tool set or the activations change, so its bytes stay stable across
   * turns (prompt caching).
   */
  definitions(): readonly ToolDescriptor[] {
    const key = `${this.registry.version}:${this.activation.version}:${this.skills.version}`;
    if (this.definitionsCache?.key === key) return this.definitionsCache.value;
    this.systemPromptIndex();
    const out: ToolDescriptor[] = [];
    for (const entry of this.store.prominent(this.plan.prominentNames())) {
      const { descriptor } = entry.compiled;
      const { name } = descriptor;
      if (this.isAllowed(name) && this.placement(descriptor).mode === "essential" && this.toolboxUseful(name))
        out.push(descriptor);
    }
    for (const name of this.activation.list()) {
      if (this.canActivate(name) && this.isActive(name)) out.push((this.store.entry(name) as RegistryEntry).compiled.descriptor);
    }
    const value = Object.freeze(out);
    this.definitionsCache = { key, value };
    return value;
  }

  /**
   * Every tool this run may ever see: enabled core tools and the deferred tools it may activate,
   * after `allowedTools`. Adapters that must declare tools up front (the AI SDK) use it.
   */
  availableTools(): ToolDescriptor[] {
    const out: ToolDescriptor[] = [];
    for (const name of this.store.enabledNames()) {
      if (this.isVisible(name) || this.canActivate(name)) out.push((this.store.entry(name) as RegistryEntry).compiled.descriptor);
    }
    return out;
  }

  /** True when the model may call `name` now. */
  isVisible(name: string): boolean {
    const entry = this.store.entry(name);
    if (entry === undefined || !entry.enabled || !this.isAllowed(name)) return false;
    const { mode, listed } = this.placement(entry.compiled.descriptor);
    if (mode === "essential") return this.toolboxUseful(name);
    return mode === "discoverable" && !listed && this.isActive(name);
  }

  /**
   * How `name` reaches the model in this run (see {@link ToolReach}): `sent`, `listed` (index +
   * toolbox), `searchable` (find_tool) or `off`; `undefined` for a name no enabled tool has.
   * A tool `allowedTools` or a skill leaves out is `off`.
   */
  reach(name: string): ToolReach | undefined {
    const entry = this.store.entry(name);
    if (entry === undefined || !entry.enabled) return undefined;
    if (!this.isAllowed(name)) return "off";
    if (name === TOOLBOX_TOOL_NAME && !this.toolboxUseful(name)) return "off";
    return reachOfPlacement(this.placement(entry.compiled.descriptor), this.isActive(name));
  }

  /** True when the run names `name` in its index and reaches it through `toolbox`. */
  isListed(name: string): boolean {
    const entry = this.store.entry(name);
    return entry?.enabled === true && this.isAllowed(name) && this.placement(entry.compiled.descriptor).listed;
  }

  /**
   * Searches the deferred tools this run may activate, and the tools it lists for `toolbox`
   * (`isListed`), best first.
   */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    return this.store.searchWhere(query, options.limit ?? 10, (name) => this.canActivate(name) || this.isListed(name));
  }

  /** {@link Run.search}, hybrid when the registry has an embedder (find_tool's ranking). */
  private searchHybrid(
    query: string,
    options: SearchOptions & { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<SearchHit[]> {
    const accept = (name: string) => this.canActivate(name) || this.isListed(name);
    return this.store.searchWhereHybrid(query, options.limit ?? 10, accept, options.signal);
  }

  /** Activates deferred tools by exact name for the rest of the run. */
  activate(names: readonly string[], via = "api"): ActivationOutcome {
    return this.activateFor(names, via, undefined);
  }

  /** {@link Run.activate} on behalf of the call `callId` (named in `tool.activated`). */
  private activateFor(names: readonly string[], via: string, callId: string | undefined): ActivationOutcome {
    const activated: string[] = [];
    const alreadyAvailable: string[] = [];
    const notFound: { name: string; suggestions: string[]; reason?: "not_allowed" | "turned_off" }[] = [];
    for (const name of names) {
      if (this.isVisible(name)) {
        alreadyAvailable.push(name);
        this.recordVia(name, via);
      } else if (this.canActivate(name)) {
        const { descriptor } = (this.store.entry(name) as RegistryEntry).compiled;
        this.activation.activate(name, () => toolIdentity(descriptor));
        activated.push(name);
        this.activationVias.delete(name);
        this.recordVia(name, via);
        this.emit("tool.activated", { runId: this.id, name, via, callId });
      } else {
        const reason = this.kept(name);
        notFound.push(reason === undefined ? { name, suggestions: this.suggest(name) } : { name, suggestions: [], reason });
      }
    }
    return { activated, alreadyAvailable, notFound };
  }

  private recordVia(name: string, via: string): void {
    let vias = this.activationVias.get(name);
    if (vias === undefined) {
      vias = new Set();
      this.activationVias.set(name, vias);
    }
    vias.add(via);
  }

  /**
   * Calls a tool as the model asked. Always resolves, never rejects: model mistakes (unknown or
   * hidden tool, bad input, a failing handler), hostile handlers (throwing values without a
   * prototype, never-settling thenables: settled as `aborted` once the call's signal fires; thenables
   * that keep resolving to thenables: `tool_failed` after 10,000 levels, the event loop turning) and
   * host slips (a non-string name) all come back as `{ ok: false, error }`.
   *
   * @param args - the arguments, as an object or as the JSON string a provider sent
   */
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolCallResult> {
    // Read once, here: the save below waits on the same signal the call ran under. Read again, a
    // getter that throws (or `null` options) rejected the call after the tool had run.
    const read = readCallOptions(options);
    const result = await this.invokeSafely(name, args, read, false);
    if (result.ok && typeof name === "string") this.lastUse.set(name, ++this.useCount);
    // Saved before the model sees the result, so a process that takes over sees this call's effects;
    // bounded, since a store that never answers would otherwise hold the result forever.
    if (this.persistence !== undefined) await this.persistence.saveWithinBound("code" in read ? undefined : read.signal);
    return result;
  }

  /**
   * Saves the run to its store now (e.g. after `run.activate()` from host code); resolves with
   * the new revision, or `undefined` when the run has no store or the save failed (reported as a
   * `state_save_failed` diagnostic). Waits as long as the save after a call does (`storeSaveWaitMs`, 10 s by default): a store that
   * does not answer (a stopped Redis) is reported the same way, and the save stays queued.
   */
  async save(): Promise<number | undefined> {
    return this.persistence?.saveWithinBound();
  }

  /**
   * Calls that were waiting for approval when the saved state this run continues was taken. Their
   * process is gone; the model still expects a result for each. See {@link Run.settleInterrupted}.
   */
  interruptedCalls(): readonly PendingApprovalState[] {
    return this.restoredPending;
  }

  /**
   * Results for {@link Run.interruptedCalls}, to send to the model as those calls' results: each
   * is a failure, `approval_denied` when the broker says the request was denied or timed out (a
   * deadline holds even when the waiting process died), `call_interrupted` otherwise: while still
   * waiting, the tool did not run (the model may call it again); once approved, its process may
   * have been running it when it stopped (the state is saved when the request is made and after
   * the call), so the model is told it may have run and to check before calling it again.
   */
  async settleInterrupted(): Promise<ToolCallResult[]> {
    const broker = this.registry.approvals;
    return Promise.all(
      this.restoredPending.map(async (pending): Promise<ToolCallResult> => {
        let resolution: Awaited<ReturnType<NonNullable<typeof broker.resolution>>>;
        try {
          resolution = await broker.resolution?.(pending.approvalId);
        } catch {
          resolution = undefined;
        }
        const denied = resolution?.decision === "denied" || (resolution === undefined && pending.expiresAt <= Date.now());
        return {
          ok: false,
          tool: pending.toolName,
          callId: pending.callId,
          error: interruptedError(pending.toolName, resolution, denied),
        };
      }),
    );
  }

  /**
   * Drops activations after the host compacted the conversation, so the tool list matches what
   * the model still knows. Dropped tools stay registered: find_tool finds and activates them again.
   * - `"all"`: keep every activation (the model's compacted context still mentions them);
   * - `{ usedWithinCalls: n }`: keep tools called successfully within the run's last `n` calls;
   * - `"none"`: drop every activation (back to the core tools).
   * Returns what was kept and dropped.
   */
  compact(options: { readonly keep: "all" | "none" | { readonly usedWithinCalls: number } }): {
    readonly kept: string[];
    readonly dropped: string[];
  } {
    const keep = options?.keep;
    const active = this.activation.list();
    let keepName: (name: string) => boolean;
    if (keep === "all") keepName = () => true;
    else if (keep === "none") keepName = () => false;
    else if (typeof keep === "object" && keep !== null && Number.isInteger(keep.usedWithinCalls) && keep.usedWithinCalls >= 0) {
      const since = this.useCount - keep.usedWithinCalls;
      keepName = (name) => (this.lastUse.get(name) ?? Number.NEGATIVE_INFINITY) > since;
    } else {
      throw new ConfigurationError(
        "invalid_option",
        'compact: keep must be "all", "none" or { usedWithinCalls: a whole number >= 0 }.',
        { data: { field: "keep" } },
      );
    }
    const kept: string[] = [];
    const dropped: string[] = [];
    for (const name of active) {
      if (keepName(name)) kept.push(name);
      else {
        this.activation.deactivate(name);
        this.activationVias.delete(name);
        dropped.push(name);
      }
    }
    return { kept, dropped };
  }

  /**
   * Restores activations from a stored conversation (the provider messages a host kept, when it
   * kept nothing else): every tool a `find_tool` result activated and every tool a provider's own
   * tool search loaded, in the order they happened, each with the `via` it had then (so the
   * adapters send a restored run the same tool list, byte for byte, as the lost one).
   *
   * Pass the messages as the provider stores them: AI SDK `ModelMessage[]`
   * (`response.messages` of each call), Anthropic `MessageParam[]`, OpenAI Responses input and
   * output items, or OpenAI Chat Completions messages. Only what the host or the provider wrote
   * counts: a find_tool result paired by id with a find_tool call, `tool_reference` blocks,
   * `tool_search_output` items. Look-alike text (from the user, the model, or another tool's
   * result) activates nothing.
   *
   * @param messages - the stored conversation, oldest first
   * @returns `activated`: the restored names that are callable now, in transcript order;
   * `unknown`: names the registry no longer has (or this run may not use), left inactive
   * @throws ConfigurationError `invalid_option` when `messages` is not an array
   *
   * @example
   * ```ts
   * const run = registry.createRun();
   * const { unknown } = run.restoreFromTranscript(messages); // the stored conversation
   * if (unknown.length > 0) console.warn("tools gone since:", unknown);
   * ```
   */
  restoreFromTranscript(messages: readonly unknown[]): { readonly activated: string[]; readonly unknown: string[] } {
    if (!Array.isArray(messages)) {
      throw new ConfigurationError(
        "invalid_option",
        "restoreFromTranscript: messages must be the array of provider messages (or Responses items) the host stored.",
        { data: { field: "messages" } },
      );
    }
    const activated = new Set<string>();
    const unknown = new Set<string>();
    for (const { name, via } of activationsFromTranscript(messages)) {
      const outcome = this.activate([name], via);
      if (outcome.notFound.length > 0) unknown.add(name);
      else activated.add(name);
    }
    return { activated: [...activated], unknown: [...unknown] };
  }

  /**
   * What made `name` active in this run: the `via` of each activation that activated it or found
   * it already available (`"find_tool"`, `"anthropic_tool_search"`, `"openai_tool_search"`,
   * `"api"`, ...), first first. Empty when nothing activated it. The adapters read it to keep
   * sending a tool that a provider's own search loaded with `defer_loading`.
   */
  activatedBy(name: string): readonly string[] {
    return [...(this.activationVias.get(name) ?? [])];
  }

  private persistTo(store: RunStore<RunState>, options: CreateRunOptions): RunPersistence {
    return new RunPersistence({
      store,
      runId: this.id,
      revision: options.storeRevision,
      ttlMs: options.storeTtlMs,
      ...(options.storeSaveWaitMs === undefined ? {} : { saveWaitMs: options.storeSaveWaitMs }),
      snapshot: () => this.toJSON(),
      onError: (error) =>
        this.report({
          kind: "state_save_failed",
          name: this.id,
          message: `Saving run ${this.id} failed: ${error instanceof Error ? error.message : String(error)}`,
          suggestions: [],
        }),
    });
  }

  private trackPendingApprovals(registry: RunHost): void {
    const off = [
      registry.approvals.events.on("approval.requested", (request) => {
        if (request.runId !== this.id) return;
        this.pendingApprovals.set(request.id, {
          approvalId: request.id,
          callId: request.callId,
          toolName: request.toolName,
          expiresAt: request.expiresAt,
        });
        // Saved at once: if this process dies while the call waits, whoever resumes the run
        // learns that the call is outstanding (run.interruptedCalls()).
        void this.persistence?.save();
      }),
      registry.approvals.events.on("approval.resolved", (resolution) => {
        this.pendingApprovals.delete(resolution.id);
      }),
    ];
    // Straight into the set, not through addDisposer: this is the run's own bookkeeping, not
    // something it started, so it does not make `registry.close()` close the run.
    this.disposers.add(() => {
      for (const unsubscribe of off) unsubscribe();
    });
  }

  /** {@link Run.invoke} behind a last guard: nothing a handler, host or listener does escapes. */
  private async invokeSafely(
    name: unknown,
    args: unknown,
    options: ReadCallOptions | ToolCallErrorInfo,
    viaToolbox: boolean,
  ): Promise<ToolCallResult> {
    const toolName = typeof name === "string" ? name : `(not a tool name: ${name === null ? "null" : typeof name})`;
    const given = "callId" in options ? options.callId : undefined;
    const callId = given === undefined ? `${this.id}:${++this.callCount}` : cutCallId(given);
    try {
      if ("code" in options)
        return this.fail(toolName.slice(0, MAX_ECHOED_NAME_LENGTH), callId, performance.now(), options, undefined);
      if (given !== undefined && given.length > MAX_CALL_ID_LENGTH) {
        const shown = toolName.slice(0, MAX_ECHOED_NAME_LENGTH);
        return this.fail(shown, callId, performance.now(), oversizedCallIdError(shown, given), undefined);
      }
      if (typeof name !== "string") {
        return this.fail(
          toolName,
          callId,
          performance.now(),
          {
            code: "unknown_tool",
            message: "The tool name must be a string.",
            hint: "Call a tool by its name.",
            suggestions: [],
          },
          undefined,
        );
      }
      // No tool name is longer than 64 characters: a longer one is neither looked up nor echoed
      // whole (a 1 MB name would otherwise come back in the result, twice).
      if (name.length > MAX_ECHOED_NAME_LENGTH) {
        return this.fail(
          `${name.slice(0, MAX_ECHOED_NAME_LENGTH)}…`,
          callId,
          performance.now(),
          {
            code: "unknown_tool",
            message: `No tool has a name of ${name.length} characters; tool names have at most 64.`,
            hint: "Call a tool by its name.",
            suggestions: [],
          },
          undefined,
        );
      }
      if (given === undefined) return await this.invoke(name, args, options, viaToolbox, callId);
      // A host-given id is claimed in the run's store while the call runs (re-entrant within this
      // run: see RunCallIdClaims): one provider call reaching two processes that continue this run
      // runs in one of them. Held until the handler settles, not only until the call answers.
      const hold = await this.callIdClaims.enter(name, given);
      if ("code" in hold) return this.fail(name, callId, performance.now(), hold, undefined);
      // The preflight's and the handler's own work: either may go on after the call answered.
      const running: Promise<unknown>[] = [];
      try {
        return await this.invoke(name, args, options, viaToolbox, callId, (work) => {
          running.push(work);
        });
      } finally {
        hold.leave(running.length === 0 ? undefined : Promise.all(running));
      }
    } catch (cause) {
      const error: ToolCallErrorInfo = {
        code: "internal_error",
        message: `The call to "${toolName}" failed inside the tool catalog.`,
      };
      try {
        this.emit("tool.error", { runId: this.id, callId, name: toolName, error: Object.freeze(error), cause });
      } catch {
        // A host's onListenerError threw: the result still goes back.
      }
      return { ok: false, tool: toolName, callId, error };
    }
  }

  private async invoke(
    name: string,
    args: unknown,
    options: ReadCallOptions,
    viaToolbox: boolean,
    callId: string,
    onToolRunning?: (handler: Promise<unknown>) => void,
  ): Promise<ToolCallResult> {
    const started = performance.now();
    if (this.closed) {
      return this.fail(
        name,
        callId,
        started,
        { code: "aborted", message: `The run was closed; "${name}" was not called.` },
        undefined,
      );
    }
    const entry = this.store.entry(name);
    const hidden = this.hiddenError(name, entry, viaToolbox);
    if (hidden !== undefined) return this.fail(name, callId, started, hidden, undefined);
    const compiled = (entry as RegistryEntry).compiled;
    // Approved by the host's own flow for another definition of this name: the tool was removed
    // and registered again (or updated) between the request and the answer. What runs is
    // `compiled`, read here, so this one comparison covers every wait before the handler.
    if (options.approvedTool !== undefined && options.approvedTool !== compiled.descriptor) {
      return this.fail(name, callId, started, changedWhileWaiting(replacedError(name)), undefined);
    }
    const parsed = parseToolArguments(args, this.maxInputLength, name);
    if (!parsed.ok) return this.fail(name, callId, started, parsed.error, undefined);
    let validated: Awaited<ReturnType<typeof compiled.validate>>;
    try {
      validated = await compiled.validate(parsed.value);
    } catch (error) {
      // A JSON Schema that only fails when first compiled (an unresolvable $ref) is the tool's
      // fault, not the model's; the run goes on. An untrusted schema's validator says why in a
      // ToolError (input_schema_too_slow).
      // A stack overflow on deeply nested arguments (a recursive schema walks them recursively) is
      // the input's fault: the model must hear that, not that the tool is broken.
      const failure: ToolCallErrorInfo = ToolError.isInstance(error)
        ? { code: error.code, message: `"${name}": ${error.message}`, ...(error.hint === undefined ? {} : { hint: error.hint }) }
        : (tooDeepToCheck(name, error, parsed.value) ?? {
            code: "tool_failed",
            message: `The tool "${name}" has an unusable input schema.`,
          });
      return this.fail(name, callId, started, failure, error);
    }
    if (!validated.ok) {
      return this.fail(
        name,
        callId,
        started,
        {
          code: "invalid_input",
          message: `Invalid input for "${name}": ${validated.issues.map((issue) => `${issue.path || "(input)"}: ${issue.message}`).join("; ")}.`,
          hint: "Fix the fields listed in issues and call the tool again.",
          issues: validated.issues,
        },
        undefined,
      );
    }
    if (this.calls.size >= this.maxCallsInFlight) {
      return this.fail(
        name,
        callId,
        started,
        {
          code: "too_many_calls",
          message: `This run already has ${this.calls.size} calls in flight, its limit; "${name}" was not called.`,
          hint: "Wait for calls to finish; a tool that calls tools of its own run must not do so without end.",
        },
        undefined,
      );
    }
    const lifetime = this.calls.open(options.signal, [this.registryCalls]);
    try {
      // Checked again once approved: a wait for approval can last minutes, in which the tool may
      // have been removed, disabled or narrowed out of the run; the approval does not outlive that.
      const stillCallable = () => {
        const now = this.store.entry(name);
        return this.hiddenError(name, now, viaToolbox) ?? (now === entry ? undefined : replacedError(name));
      };
      return await this.runHandler(
        name,
        callId,
        started,
        compiled,
        validated.value,
        lifetime.signal,
        options.approved,
        stillCallable,
        onToolRunning,
      );
    } finally {
      lifetime.end();
    }
  }

  private async runHandler(
    name: string,
    callId: string,
    started: number,
    compiled: RegistryEntry["compiled"],
    input: unknown,
    signal: AbortSignal,
    approvedByHost: boolean,
    stillCallable: () => ToolCallErrorInfo | undefined,
    onToolRunning: ((handler: Promise<unknown>) => void) | undefined,
  ): Promise<ToolCallResult> {
    const run = this;
    const context: ToolContext = {
      get scope() {
        return run.scope();
      },
      runId: this.id,
      callId,
      toolName: name,
      signal,
      permissions: this.permissions,
      // The call's own catalog: its activations name the call (parallel find_tool calls).
      catalog: { ...this.catalog, activate: (names, via = "api") => this.activateFor(names, via, callId) },
      hostContext: this.hostContext,
      storage: this.storage,
      addRunDisposer: this.addDisposerBound,
      recordChildRun: this.recordChildBound,
    };
    const authorized = await this.authorize(compiled, input, context, approvedByHost, stillCallable, onToolRunning);
    if ("error" in authorized) return this.fail(name, callId, started, authorized.error, authorized.cause);
    const own = authorized.handlerInput;
    if (this.events.hasListeners("tool.called") || this.registry.events.hasListeners("tool.called")) {
      // A frozen copy, one for every listener of both buses (the handler runs its own).
      this.emit("tool.called", { runId: this.id, callId, name, input: frozenEventCopy(input) });
    }
    let output: unknown;
    try {
      output =
        // The handler may go on after the call answered (it ignored the abort): the call id's
        // claim waits for it, a thenable's as a promise's (followed once, by runUntilAborted).
        (await runUntilAborted(() => compiled.definition.handler(own, context), signal, onToolRunning)).value;
    } catch (error) {
      return this.fail(name, callId, started, describeFailure(name, error, signal), error);
    }
    // Redacted inside, on whole texts before they are condensed (a cut could split a secret).
    let finished: Awaited<ReturnType<typeof finishOutput>>;
    try {
      finished = await finishOutput(
        name,
        output,
        compiled.validateOutput,
        { condenseThreshold: this.condenseThreshold, maxBinaryBytes: this.maxBinaryBytes },
        outputRedactor(this.redact, name),
        signal,
      );
    } catch (error) {
      // Only an abort while the output schema's validator ran ends up here (`aborted`).
      return this.fail(name, callId, started, describeFailure(name, error, signal), error);
    }
    if (!finished.ok) return this.fail(name, callId, started, finished.error, undefined);
    const result: ToolCallResult =
      finished.content === undefined
        ? { ok: true, tool: name, callId, output: finished.output }
        : { ok: true, tool: name, callId, output: finished.output, content: finished.content };
    if (this.hasListeners("tool.result")) {
      const shown = frozenResultCopy(result);
      this.emit("tool.result", { runId: this.id, callId, name, durationMs: performance.now() - started, result: shown });
    }
    return result;
  }

  /**
   * What this run may do, for a child run to inherit (`createRun({ parent })`): its permissions,
   * and its allowed tools narrowed by the skill constraints in force now.
   */
  scope(): RunScope {
    const scope = {
      runId: this.id,
      permissions: this.permissions,
      allowedTools: this.skills.narrow(this.allowed === undefined ? undefined : [...this.allowed.names]),
      depth: this.depth,
      profile: this.plan.profile,
      ...(this.plan.deniedEntries().length > 0 ? { disabledTools: this.plan.deniedEntries() } : {}),
    };
    // Not enumerable: a scope saved as JSON (a workflow checkpoint) must not carry the run's state.
    return Object.freeze(Object.defineProperty(scope, "storage", { value: this.storage, enumerable: false }));
  }

  /**
   * The checks between validation and the handler: the tool's preflight (cheap refusals first,
   * so nobody approves a call that cannot happen), then the approval policy.
   */
  private async authorize(
    compiled: RegistryEntry["compiled"],
    input: unknown,
    context: ToolContext,
    approvedByHost: boolean,
    stillCallable: () => ToolCallErrorInfo | undefined,
    onPreflightRunning: ((preflight: Promise<unknown>) => void) | undefined,
  ): Promise<{ error: ToolCallErrorInfo; cause: unknown } | { handlerInput: unknown }> {
    const { preflight } = compiled.definition;
    if (preflight !== undefined) {
      try {
        // A preflight ignoring the abort holds the call id's claim as a handler does.
        await runUntilAborted(() => preflight.call(compiled.definition, input, context), context.signal, onPreflightRunning);
      } catch (error) {
        return { error: describeFailure(context.toolName, error, context.signal), cause: error };
      }
    }
    // Ask once, for the tool that acts: never for find_tool or toolbox themselves.
    const asks = !(this.permissions.approval === "none" || approvedByHost || isMetaTool(compiled.definition));
    // Approvers and `tool.called` listeners get frozen copies (authorizeCall, runHandler), never
    // this object. The handler's own copy is taken before the wait for a person, so what runs is
    // what was shown even if the caller's object changes meanwhile (the tool's own preflight
    // above saw the shared one, and what it did to it is what is shown).
    const handlerInput = asks ? handlerInputCopy(input) : input;
    if (!asks) return { handlerInput };
    let refusal: ToolCallErrorInfo | undefined;
    try {
      refusal = await authorizeCall(this.policy, {
        runId: this.id,
        callId: context.callId,
        tool: compiled.descriptor,
        input,
        signal: context.signal,
      });
    } catch (error) {
      // The broker failed (its store down or full): nobody approved, so nothing runs. Said as
      // such, not as the catalog's own failure; the broker's error goes to tool.error.
      return { error: approvalUnavailable(context.toolName), cause: error };
    }
    if (refusal !== undefined) return { error: refusal, cause: undefined };
    const gone = stillCallable();
    return gone === undefined ? { handlerInput } : { error: changedWhileWaiting(gone), cause: undefined };
  }

  /** Why the model may not call `name` now (`entry`: its registry entry), or `undefined`. */
  private hiddenError(name: string, entry: RegistryEntry | undefined, viaToolbox: boolean): ToolCallErrorInfo | undefined {
    const enabled = entry?.enabled === true;
    return visibilityError(name, {
      exists: enabled,
      allowed: enabled && this.isAllowed(name),
      placement: enabled ? this.placement((entry as RegistryEntry).compiled.descriptor) : undefined,
      active: this.isActive(name),
      viaToolbox,
      suggestions: () => this.suggest(name),
    });
  }

  /**
   * Everything needed to continue this run in another process (see {@link RunState}); pass it to
   * `createRun({ state })`. JSON-safe.
   */
  toJSON(): RunState {
    return {
      version: 3,
      runId: this.id,
      activation: this.activation.toJSON(),
      skills: this.skills.list(),
      storage: this.storage.toJSON(),
      pendingApprovals: storablePendingApprovals(this.pendingApprovals.values()),
      toolboxIndex: storableToolboxIndex(typeof this.frozenIndex === "string" ? this.frozenIndex : undefined),
      children: this.children.list(),
    };
  }

  /**
   * The child runs this run started (subagents, workflow runs, forked runs), with their status
   * when last recorded; a run continued in another process lists them too. Ask the subagent
   * manager or workflow service for a child's current state and output.
   */
  childRuns(): readonly ChildRunState[] {
    return this.children.list();
  }

  /**
   * Records a child run this run started, or its new status (same `kind` and `id`: updated in
   * place), and saves the run when it has a store, so a process that takes over knows the child
   * even if this one dies before the call ends. Tools do this with `ctx.recordChildRun`.
   * @throws ConfigurationError `invalid_child_run` naming what is wrong.
   */
  recordChildRun(child: ChildRunState): void {
    this.children.record(child);
    void this.persistence?.save();
  }

  /**
   * Registers cleanup to run at {@link Run.close} (e.g. this run's MCP connections). On a run that
   * is already closed it runs at once: a handler that ignored its abort signal and registers its
   * cleanup after close would otherwise leak what it started (close has run, nothing else will).
   * A failure then is reported as a `disposer_failed` diagnostic, since nobody awaits it. A run
   * with cleanup is closed by `registry.close()` too; on a closed registry the cleanup runs at once
   * for the same reason.
   */
  addDisposer(dispose: () => unknown): () => void {
    if (!this.closed) this.releaseHold ??= this.holdRun(() => this.close());
    if (this.closed || this.releaseHold === undefined) {
      void (async () => dispose())().catch((error: unknown) => {
        let detail = "a value that is not an Error";
        try {
          if (error instanceof Error) detail = String(error.message).slice(0, 200);
        } catch {
          // keep the generic detail
        }
        this.report({
          kind: "disposer_failed",
          name: this.id,
          message: `A disposer added after close failed: ${detail}`,
          suggestions: [],
        });
      });
      return () => undefined;
    }
    this.disposers.add(dispose);
    return () => {
      this.disposers.delete(dispose);
    };
  }

  /** True once {@link Run.close} was called. */
  get closed(): boolean {
    return this.lifetime.signal.aborted;
  }

  /** Ends the run: calls in flight see their signal aborted, then the run's disposers run. */
  async close(): Promise<void> {
    this.releaseHold?.();
    if (!this.lifetime.signal.aborted) {
      const reason = new CatalogError("run_closed", `Run ${this.id} was closed.`);
      this.lifetime.abort(reason);
      this.calls.abortAll(reason);
    }
    const disposers = [...this.disposers];
    this.disposers.clear();
    const results = await Promise.allSettled(disposers.map(async (dispose) => dispose()));
    const errors = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    if (errors.length > 0)
      throw new AggregateError(errors, `${countOf(errors.length, "disposer")} failed while closing run ${this.id}.`);
  }

  private descriptorOf(name: string): ToolDescriptor | undefined {
    const entry = this.store.entry(name);
    return entry?.enabled === true ? entry.compiled.descriptor : undefined;
  }

  /**
   * The tool's placement in this run. A tool the plan lists but that joined after the index was
   * frozen (the system prompt cannot change mid-run) is not in the index, so it is made
   * discoverable through find_tool instead: never unreachable.
   */
  private placement(descriptor: ToolDescriptor): ToolPlacement {
    const placement = this.plan.placementOf(descriptor);
    if (placement.listed && this.frozenListed !== undefined && !this.frozenListed.has(descriptor.name)) {
      return LATE_LISTED_PLACEMENT;
    }
    return placement;
  }

  /** toolbox is only worth sending when the run lists something. */
  private toolboxUseful(name: string): boolean {
    return name !== TOOLBOX_TOOL_NAME || this.systemPromptIndex() !== undefined;
  }

  /** Calls a listed tool for `toolbox`: the same validation, policy and events as a direct call. */
  private callListed(name: string, args: unknown, rawOptions: CallOptions): Promise<ToolCallResult> {
    const options = readCallOptions(rawOptions);
    if (typeof name === "string" && !this.isListed(name)) {
      const suggestions = closestNames(
        name,
        this.prominentNames().filter((candidate) => this.isListed(candidate)),
      );
      return Promise.resolve({
        ok: false,
        tool: name,
        callId: ("callId" in options ? options.callId : undefined) ?? "",
        error: { code: "unknown_tool", ...notListedForToolbox(name, this.isVisible(name), suggestions), suggestions },
      });
    }
    return this.invokeSafely(name, args, options, true);
  }

  /**
   * Narrows the visible tools to a skill's `allowed-tools` while the skill is active
   * (`AskUserQuestion`, `find_tool` and `skill` stay available). Constraints nest: each one
   * narrows further. Returns the function that lifts this constraint.
   */
  applySkillConstraint(skill: string, allowedTools: readonly string[]): () => void {
    return this.skills.apply(skill, allowedTools);
  }

  /** The skills whose constraints are in force, innermost last. */
  activeSkills(): string[] {
    return this.skills.active();
  }

  private isAllowed(name: string): boolean {
    const owner = this.store.entry(name)?.runId;
    if (owner !== undefined && owner !== this.id) return false;
    // In a listing run the always-available tools may sit behind toolbox: toolbox must stay
    // reachable under any constraint (callListed still checks the target tool).
    if (ALWAYS_AVAILABLE_TOOLS.has(name) || (name === TOOLBOX_TOOL_NAME && this.plan.listing)) return true;
    if (this.allowed !== undefined && !this.allowed.has(name)) return false;
    return this.skills.allows(name);
  }

  /**
   * True when `name` is activated for the tool registered under it now. A restored activation
   * whose tool has another identity (a different tool registered under the name later) is
   * dropped and reported once, as a `stale_activation` diagnostic.
   */
  private isActive(name: string): boolean {
    if (!this.activation.isActive(name)) return false;
    const identity = this.activation.identityOf(name);
    if (identity === undefined) return true;
    const entry = this.store.entry(name);
    if (entry === undefined || !entry.enabled) return true;
    if (toolIdentity(entry.compiled.descriptor) === identity) return true;
    this.activation.deactivate(name);
    this.report({
      kind: "stale_activation",
      name,
      message: `The saved activation of "${name}" was for another tool of that name; it was not restored.`,
      suggestions: [],
    });
    return false;
  }

  /** Records a diagnostic and announces it as `run.diagnostic`. */
  private report(diagnostic: RunDiagnostic): void {
    // Frozen at every level: `run.diagnostic` listeners get the arrays `diagnostics()` keeps.
    this.diagnosticList.push(deepFreeze(diagnostic));
    this.emit("run.diagnostic", { runId: this.id, ...diagnostic });
  }

  /**
   * What the host got wrong or should know about this run, oldest first: `allowedTools` naming
   * tools that do not exist (yet: MCP tools may join later), with the closest names, and saved
   * activations that were not restored. Each is also emitted as a `run.diagnostic` event.
   */
  diagnostics(): readonly RunDiagnostic[] {
    return [...this.diagnosticList];
  }

  /** Names of the tools that may reach the model without activation (see `RegistryView.prominent`). */
  private prominentNames(): string[] {
    return this.store.prominent(this.plan.prominentNames()).map((entry) => entry.compiled.descriptor.name);
  }

  private canActivate(name: string): boolean {
    const entry = this.store.entry(name);
    if (entry?.enabled !== true || !this.isAllowed(name)) return false;
    const { mode, listed } = this.placement(entry.compiled.descriptor);
    return mode === "discoverable" && !listed;
  }

  /**
   * Why the run keeps an existing, enabled tool from the model, as a direct call would say it
   * (`tool_not_allowed`, `tool_disabled`); `undefined` for a name that does not exist here.
   */
  private kept(name: string): "not_allowed" | "turned_off" | undefined {
    const code = this.hiddenError(name, this.store.entry(name), false)?.code;
    return code === "tool_not_allowed" ? "not_allowed" : code === "tool_disabled" ? "turned_off" : undefined;
  }

  private suggest(name: string): string[] {
    // Bounded at any registry size: edit distance only against the names most alike by trigram.
    const candidates = this.store
      .nearNames(name, 50)
      .filter((candidate) => this.isVisible(candidate) || this.canActivate(candidate));
    return closestNames(name, candidates);
  }

  private fail(name: string, callId: string, started: number, unredacted: ToolCallErrorInfo, cause: unknown): ToolCallResult {
    const result = redactFailure(this.redact, { ok: false, tool: name, callId, error: unredacted });
    // Listeners get a frozen copy (frozen-result-copy.ts): they cannot rewrite what the model gets.
    const errorHeard = this.hasListeners("tool.error");
    const resultHeard = this.hasListeners("tool.result");
    if (!errorHeard && !resultHeard) return result;
    const shown = frozenResultCopy(result) as ToolCallFailure;
    if (errorHeard) this.emit("tool.error", { runId: this.id, callId, name, error: shown.error, cause });
    if (resultHeard) {
      this.emit("tool.result", { runId: this.id, callId, name, durationMs: performance.now() - started, result: shown });
    }
    return result;
  }

  /** Whether the run's or the registry's bus has listeners of `type`. */
  private hasListeners(type: keyof CatalogEvents): boolean {
    return this.events.hasListeners(type) || this.registry.events.hasListeners(type);
  }

  /**
   * Emits on the run's bus, then the registry's. The payload is frozen (its members are frozen
   * copies or frozen already; `cause` is the thrown value, shared as it is): one object serves
   * every listener of both buses, and a run listener that replaced `result` or `input` on it
   * changed what the registry's listeners saw (round 44).
   */
  private emit<Type extends keyof CatalogEvents>(type: Type, payload: CatalogEvents[Type]): void {
    Object.freeze(payload);
    this.events.emit(type, payload);
    this.registry.events.emit(type, payload);
  }
}

/** What the model gets for a call its process left waiting for approval (or, once approved, running). */
function interruptedError(
  toolName: string,
  resolution: { readonly decision: string; readonly reason?: string | undefined } | undefined,
  denied: boolean,
): ToolCallErrorInfo {
  if (denied) {
    return {
      code: "approval_denied",
      message: `The call to "${toolName}" was not approved: ${resolution?.reason ?? "nobody approved it before its deadline"}.`,
    };
  }
  if (resolution?.decision === "approved") {
    // Approved, then the process stopped: it may have died before the handler started or halfway
    // through it. Saying "it did not run" invites a second deploy or payment.
    return {
      code: "call_interrupted",
      message: `The call to "${toolName}" was approved, and the process running it stopped before it returned: it may have run in whole or in part.`,
      hint: "Check whether its effects are there before calling it again.",
    };
  }
  return {
    code: "call_interrupted",
    message: `The call to "${toolName}" was interrupted while it waited for approval; the tool did not run.`,
    hint: "Call the tool again if it is still needed.",
  };
}

/** A tool removed while its call waited for approval, and another registered under its name. */
function replacedError(toolName: string): ToolCallErrorInfo {
  return {
    code: "unknown_tool",
    message: `The tool "${toolName}" was removed, and another tool now has its name.`,
    hint: "Read the tool's description again before calling it.",
  };
}

/** A call refused after its approval: the tool stopped being callable while the call waited. */
function changedWhileWaiting(error: ToolCallErrorInfo): ToolCallErrorInfo {
  return { ...error, message: `${error.message} (It changed while the call waited for approval; nothing was done.)` };
}

/** What the model gets when the approval broker failed to take the request. */
function approvalUnavailable(toolName: string): ToolCallErrorInfo {
  return {
    code: "approval_denied",
    message: `The call to "${toolName}" could not be sent for approval (the approval service failed). Nothing was done.`,
    hint: "Try again later; if it keeps failing, tell the user that approvals are unavailable.",
  };
}

/**
 * Calls the run-setup hook of each tool the run may use: what a tool must know of the run before
 * any call (bash's and monitor's resource totals, so a child run's commands are held to them
 * before the run's own commands ran).
 */
function setUpTools(
  setups: ReadonlyMap<string, (storage: RunStorage) => void>,
  allowed: AllowedNames | undefined,
  storage: RunStorage,
): void {
  for (const [name, setup] of setups) {
    if (allowed === undefined || allowed.has(name)) setup(storage);
  }
}

/**
 * The scope a child run narrows: a {@link Run}'s `scope()`, or the scope as given. Recognised by
 * its `scope` method, not by `instanceof`: a Run of the package's other build (the ESM and
 * CommonJS builds loaded in one process) is no instance of this copy's class, and read as a scope
 * it has no `allowedTools`, so its child could call every tool the parent was denied.
 */
function scopeOfParent(parent: RunScope | Run): RunScope {
  // `null` (a host's JSON) or a primitive: handed on as given, for checkParentScope to refuse.
  if (typeof parent !== "object" || parent === null) return parent;
  const scope = (parent as { readonly scope?: unknown }).scope;
  return typeof scope === "function" ? (scope.call(parent) as RunScope) : (parent as RunScope);
}
