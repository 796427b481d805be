import { CatalogError } from "../errors/catalog-error.js";
import type { CatalogEvents } from "../events/catalog-events.js";
import { EventBus } from "../events/event-bus.js";
import { listingIndex } from "../meta/listing-index.js";
import { narrowPermissions } from "../policy/narrow-permissions.js";
import { type PermissionConfig, type ResolvedPermissionConfig, resolvePermissionConfig } from "../policy/permission-config.js";
import { authorizeCall, type ToolPolicy } from "../policy/tool-policy.js";
import type { ToolProfileName } from "../profiles/tool-profile.js";
import { closestNames } from "../registry/closest-names.js";
import { internalsOf, type Registry, type RegistryEntry, type RegistryView } from "../registry/registry.js";
import { isToolContent } from "../tool/tool-content.js";
import type { ActivationOutcome, RunCatalog, SearchHit, SearchOptions, ToolContext } from "../tool/tool-context.js";
import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import { ActivationTracker, type ActivationTrackerState } from "./activation-tracker.js";
import { ALWAYS_AVAILABLE_TOOLS } from "./always-available-tools.js";
import { describeFailure, resolveAllowedTools, runUntilAborted } from "./call-helpers.js";
import { capContentParts, contentPartsAsText } from "./cap-content-parts.js";
import { condenseText } from "./condense-text.js";
import { parseToolArguments } from "./parse-tool-arguments.js";
import { intersectAllowedTools, type RunScope } from "./run-scope.js";
import { RunStorage } from "./run-storage.js";
import { SkillConstraints } from "./skill-constraints.js";
import type { ToolCallErrorInfo, ToolCallResult } from "./tool-call-result.js";
import { TOOLBOX_TOOL_NAME, type ToolLoadOptions, ToolLoadPlan } from "./tool-load-plan.js";
import { visibilityError } from "./visibility-error.js";

/** Options of `registry.createRun()`. */
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
   */
  readonly parent?: RunScope | Run;
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
   * How long a call waits for approval before it is denied, in ms.
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
   * over it are replaced by a text part saying what was left out.
   * @defaultValue 5 MiB
   */
  readonly maxBinaryBytes?: number;
}

/** Options of {@link Run.call}. */
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
}

/** What a run saves so a host can persist and resume it. */
export interface RunState {
  /** Format version. */
  readonly version: 1;
  /** The run's id. */
  readonly runId: string;
  /** Its activations. */
  readonly activation: ActivationTrackerState;
}

const DEFAULT_MAX_INPUT_LENGTH = 4 * 1024 * 1024;
const DEFAULT_CONDENSE_THRESHOLD = 40_000;
const DEFAULT_MAX_BINARY_BYTES = 5 * 1024 * 1024;

/**
 * One conversation's view of a registry: which tools the model sees this turn
 * ({@link Run.definitions}), what it has activated, and the way to call them ({@link Run.call}).
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
  private readonly registry: Registry;
  private readonly store: RegistryView;
  private readonly allowed: ReadonlySet<string> | undefined;
  private readonly hostContext: Readonly<Record<string, unknown>>;
  private readonly maxInputLength: number;
  private readonly policy: ToolPolicy;
  private readonly condenseThreshold: number;
  private readonly maxBinaryBytes: number;
  private readonly storage = new RunStorage();
  private readonly lifetime = new AbortController();
  private readonly disposers = new Set<() => unknown>();
  private readonly addDisposerBound = (dispose: () => unknown): (() => void) => this.addDisposer(dispose);
  private callCount = 0;
  private definitionsCache: { key: string; value: readonly ToolDescriptor[] } | undefined;
  private readonly plan: ToolLoadPlan;
  private readonly skills = new SkillConstraints();
  private frozenIndex: string | undefined | null = null;

  /** @internal Use `registry.createRun()`. */
  constructor(registry: Registry, options: CreateRunOptions) {
    this.registry = registry;
    const internals = internalsOf(registry);
    this.events = new EventBus(internals.eventBusOptions);
    this.id = options.runId ?? crypto.randomUUID();
    this.store = internals.view(this.id);
    const requestedTools = resolveAllowedTools(options.allowedTools);
    if (options.parent === undefined) {
      this.permissions = resolvePermissionConfig(options.permissions);
      this.allowed = requestedTools;
      this.depth = 0;
    } else {
      const parent = options.parent instanceof Run ? options.parent.scope() : options.parent;
      this.permissions = narrowPermissions(parent.permissions, options.permissions);
      const tools = intersectAllowedTools(parent.allowedTools, requestedTools === undefined ? undefined : [...requestedTools]);
      this.allowed = tools === undefined ? undefined : new Set(tools);
      this.depth = parent.depth + 1;
    }
    this.plan = new ToolLoadPlan(options, this.allowed !== undefined);
    this.activation =
      options.activation instanceof ActivationTracker
        ? options.activation
        : options.activation === undefined
          ? new ActivationTracker()
          : ActivationTracker.fromJSON(options.activation);
    this.hostContext = Object.freeze({ ...options.context });
    this.maxInputLength = options.maxInputLength ?? DEFAULT_MAX_INPUT_LENGTH;
    this.condenseThreshold = options.condenseThreshold ?? DEFAULT_CONDENSE_THRESHOLD;
    this.maxBinaryBytes = options.maxBinaryBytes ?? DEFAULT_MAX_BINARY_BYTES;
    this.policy = { permissions: this.permissions, approvals: registry.approvals, approvalTimeoutMs: options.approvalTimeoutMs };
    this.catalog = {
      search: (query, searchOptions) => this.search(query, searchOptions),
      activate: (names, via) => this.activate(names, via),
      describe: (name) => (this.isVisible(name) || this.canActivate(name) ? this.descriptorOf(name) : undefined),
      isVisible: (name) => this.isVisible(name),
      isListed: (name) => this.isListed(name),
      describeListed: (name) => (this.isListed(name) ? this.descriptorOf(name) : undefined),
      callListed: (name, args, callOptions) => this.callListed(name, args, callOptions),
      call: (name, args, callOptions) => this.invoke(name, args, callOptions ?? {}, false),
      applySkillConstraint: (skill, allowedTools) => this.applySkillConstraint(skill, allowedTools),
    };
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
      const listed = this.store.enabledNames().filter((name) => this.isListed(name));
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
    for (const name of this.store.enabledNames()) {
      const descriptor = (this.store.entry(name) as RegistryEntry).compiled.descriptor;
      if (this.isAllowed(name) && this.placement(descriptor).mode === "essential" && this.toolboxUseful(name))
        out.push(descriptor);
    }
    for (const name of this.activation.list()) {
      if (this.canActivate(name)) out.push((this.store.entry(name) as RegistryEntry).compiled.descriptor);
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
    return mode === "discoverable" && !listed && this.activation.isActive(name);
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

  /** Activates deferred tools by exact name for the rest of the run. */
  activate(names: readonly string[], via = "api"): ActivationOutcome {
    const activated: string[] = [];
    const alreadyAvailable: string[] = [];
    const notFound: { name: string; suggestions: string[] }[] = [];
    for (const name of names) {
      if (this.isVisible(name)) {
        alreadyAvailable.push(name);
      } else if (this.canActivate(name)) {
        this.activation.activate(name);
        activated.push(name);
        this.emit("tool.activated", { runId: this.id, name, via });
      } else {
        notFound.push({ name, suggestions: this.suggest(name) });
      }
    }
    return { activated, alreadyAvailable, notFound };
  }

  /**
   * Calls a tool as the model asked. Model mistakes (unknown or hidden tool, bad input, a failing
   * handler) come back as `{ ok: false, error }`; this never throws for them.
   *
   * @param args - the arguments, as an object or as the JSON string a provider sent
   */
  call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolCallResult> {
    return this.invoke(name, args, options, false);
  }

  private async invoke(name: string, args: unknown, options: CallOptions, viaToolbox: boolean): Promise<ToolCallResult> {
    const callId = options.callId ?? `${this.id}:${++this.callCount}`;
    const started = performance.now();
    const entry = this.store.entry(name);
    const enabled = entry?.enabled === true;
    const hidden = visibilityError(name, {
      exists: enabled,
      allowed: enabled && this.isAllowed(name),
      placement: enabled ? this.placement((entry as RegistryEntry).compiled.descriptor) : undefined,
      active: this.activation.isActive(name),
      viaToolbox,
      suggestions: () => this.suggest(String(name)),
    });
    if (hidden !== undefined) return this.fail(name, callId, started, hidden, undefined);
    const compiled = (entry as RegistryEntry).compiled;
    const parsed = parseToolArguments(args, this.maxInputLength);
    if (!parsed.ok) return this.fail(name, callId, started, parsed.error, undefined);
    let validated: Awaited<ReturnType<typeof compiled.validate>>;
    try {
      validated = await compiled.validate(parsed.value);
    } catch (error) {
      // A JSON Schema that only fails when first compiled (an unresolvable $ref) is the tool's
      // fault, not the model's; the run goes on.
      return this.fail(
        name,
        callId,
        started,
        { code: "tool_failed", message: `The tool "${name}" has an unusable input schema: ${(error as Error).message}` },
        error,
      );
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
    const signal = options.signal === undefined ? this.lifetime.signal : AbortSignal.any([options.signal, this.lifetime.signal]);
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
      catalog: this.catalog,
      hostContext: this.hostContext,
      storage: this.storage,
      addRunDisposer: this.addDisposerBound,
    };
    const refusal = await this.authorize(compiled, validated.value, context, options.approved === true);
    if (refusal !== undefined) return this.fail(name, callId, started, refusal.error, refusal.cause);
    if (this.events.hasListeners("tool.called") || this.registry.events.hasListeners("tool.called")) {
      this.emit("tool.called", { runId: this.id, callId, name, input: validated.value });
    }
    let output: unknown;
    try {
      output = await runUntilAborted(() => compiled.definition.handler(validated.value, context), signal);
    } catch (error) {
      return this.fail(name, callId, started, describeFailure(name, error, signal), error);
    }
    let result: ToolCallResult;
    if (isToolContent(output)) {
      const content = capContentParts(output.parts, {
        condenseThreshold: this.condenseThreshold,
        maxBinaryBytes: this.maxBinaryBytes,
      });
      result = { ok: true, tool: name, callId, output: output.output ?? contentPartsAsText(content), content };
    } else {
      if (typeof output === "string" && output.length > this.condenseThreshold)
        output = condenseText(output, this.condenseThreshold);
      result = { ok: true, tool: name, callId, output };
    }
    if (this.events.hasListeners("tool.result") || this.registry.events.hasListeners("tool.result")) {
      this.emit("tool.result", { runId: this.id, callId, name, durationMs: performance.now() - started, result });
    }
    return result;
  }

  /**
   * What this run may do, for a child run to inherit (`createRun({ parent })`): its permissions,
   * and its allowed tools narrowed by the skill constraints in force now.
   */
  scope(): RunScope {
    return Object.freeze({
      runId: this.id,
      permissions: this.permissions,
      allowedTools: this.skills.narrow(this.allowed === undefined ? undefined : [...this.allowed]),
      depth: this.depth,
    });
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
  ): Promise<{ error: ToolCallErrorInfo; cause: unknown } | undefined> {
    const { preflight } = compiled.definition;
    if (preflight !== undefined) {
      try {
        await runUntilAborted(() => preflight.call(compiled.definition, input, context), context.signal);
      } catch (error) {
        return { error: describeFailure(context.toolName, error, context.signal), cause: error };
      }
    }
    if (this.permissions.approval === "none" || approvedByHost) return undefined;
    const refusal = await authorizeCall(this.policy, {
      runId: this.id,
      callId: context.callId,
      tool: compiled.descriptor,
      input,
      signal: context.signal,
    });
    return refusal === undefined ? undefined : { error: refusal, cause: undefined };
  }

  /** The state to persist; pass `state.activation` to `createRun({ activation })` to resume. */
  toJSON(): RunState {
    return { version: 1, runId: this.id, activation: this.activation.toJSON() };
  }

  /** Registers cleanup to run at {@link Run.close} (e.g. this run's MCP connections). */
  addDisposer(dispose: () => unknown): () => void {
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
    if (!this.lifetime.signal.aborted) this.lifetime.abort(new CatalogError("run_closed", `Run ${this.id} was closed.`));
    const disposers = [...this.disposers];
    this.disposers.clear();
    const results = await Promise.allSettled(disposers.map(async (dispose) => dispose()));
    const errors = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} disposer(s) failed while closing run ${this.id}.`);
  }

  private descriptorOf(name: string): ToolDescriptor | undefined {
    const entry = this.store.entry(name);
    return entry?.enabled === true ? entry.compiled.descriptor : undefined;
  }

  private placement(descriptor: ToolDescriptor) {
    return this.plan.placementOf(descriptor);
  }

  /** toolbox is only worth sending when the run lists something. */
  private toolboxUseful(name: string): boolean {
    return name !== TOOLBOX_TOOL_NAME || this.systemPromptIndex() !== undefined;
  }

  /** Calls a listed tool for `toolbox`: the same validation, policy and events as a direct call. */
  private callListed(name: string, args: unknown, options: CallOptions): Promise<ToolCallResult> {
    if (!this.isListed(name)) {
      const suggestions = closestNames(
        name,
        this.store.enabledNames().filter((candidate) => this.isListed(candidate)),
      );
      return Promise.resolve({
        ok: false,
        tool: name,
        callId: options.callId ?? "",
        error: {
          code: "unknown_tool",
          message: `No tool named ${JSON.stringify(name)} is listed for toolbox.`,
          hint:
            suggestions.length > 0
              ? `Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?`
              : "Use a name from the Additional tools list.",
          suggestions,
        },
      });
    }
    return this.invoke(name, args, options, true);
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

  private canActivate(name: string): boolean {
    const entry = this.store.entry(name);
    if (entry?.enabled !== true || !this.isAllowed(name)) return false;
    const { mode, listed } = this.placement(entry.compiled.descriptor);
    return mode === "discoverable" && !listed;
  }

  private suggest(name: string): string[] {
    const candidates = this.store.enabledNames().filter((candidate) => this.isVisible(candidate) || this.canActivate(candidate));
    return closestNames(name, candidates);
  }

  private fail(name: string, callId: string, started: number, error: ToolCallErrorInfo, cause: unknown): ToolCallResult {
    const result: ToolCallResult = { ok: false, tool: name, callId, error };
    this.emit("tool.error", { runId: this.id, callId, name, error, cause });
    if (this.events.hasListeners("tool.result") || this.registry.events.hasListeners("tool.result")) {
      this.emit("tool.result", { runId: this.id, callId, name, durationMs: performance.now() - started, result });
    }
    return result;
  }

  private emit<Type extends keyof CatalogEvents>(type: Type, payload: CatalogEvents[Type]): void {
    this.events.emit(type, payload);
    this.registry.events.emit(type, payload);
  }
}
