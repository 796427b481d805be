import type { ChildRunState } from "./child-run-state.js";
import type { ResolvedPermissionConfig } from "./permissions.js";
import type { RunScope } from "./run-scope.js";
import type { RunStorage } from "./run-storage.js";
import type { ToolCallResult } from "./tool-call-result.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/**
 * One search hit: a tool name and its relevance score (higher is better).
 *
 * @public
 */
export interface SearchHit {
  /** The tool's name. */
  readonly name: string;
  /** Relevance score; only the order is meaningful. */
  readonly score: number;
}

/**
 * Options of a catalog search.
 *
 * @public
 */
export interface SearchOptions {
  /**
   * Most hits to return.
   * @defaultValue 10
   */
  readonly limit?: number;
}

/**
 * What activating a list of names did.
 *
 * @public
 */
export interface ActivationOutcome {
  /** Names that became active now. */
  readonly activated: readonly string[];
  /** Names that were active already, or are core tools (always visible). */
  readonly alreadyAvailable: readonly string[];
  /**
   * Names that this run cannot activate, with the closest names it can, and, for a tool that
   * exists but that this run keeps from the model, why: `not_allowed` (`allowedTools`, a skill's
   * `allowed-tools`, another run's tool) or `turned_off` (load mode `off`, `disabledTools`), as a
   * direct call says (`tool_not_allowed`, `tool_disabled`).
   */
  readonly notFound: readonly {
    readonly name: string;
    readonly suggestions: readonly string[];
    readonly reason?: "not_allowed" | "turned_off";
  }[];
}

/**
 * The catalog as seen from inside a run: what a tool handler (such as `find_tool`) may ask of it.
 * Everything is scoped to the run: searches only return tools the run could activate.
 * @public
 */
export interface RunCatalog {
  /** Searches the deferred tools this run may activate, and those it lists for `toolbox`. */
  search(query: string, options?: SearchOptions): SearchHit[];
  /**
   * The same search, hybrid (keyword + the registry's embedder) when the registry has an
   * embedder, else the keyword search. Optional for catalogs that have no embeddings.
   */
  searchHybrid?(query: string, options?: SearchOptions & { readonly signal?: AbortSignal | undefined }): Promise<SearchHit[]>;
  /** Activates deferred tools by exact name, for the rest of the run. */
  activate(names: readonly string[], via?: string): ActivationOutcome;
  /** The descriptor of a tool this run may see or activate, else `undefined`. */
  describe(name: string): ToolDescriptor | undefined;
  /** True when the tool is visible to the model now (core, or deferred and active). */
  isVisible(name: string): boolean;
  /** True when a listing run names the tool in its index (reached through `toolbox`). */
  isListed(name: string): boolean;
  /** The descriptor of a listed tool, else `undefined`. */
  describeListed(name: string): ToolDescriptor | undefined;
  /**
   * Calls a tool of this run as the model would (visibility, validation, approval, events): for
   * tools that run other tools, such as recipes.
   */
  call(
    name: string,
    args: unknown,
    options?: { readonly callId?: string; readonly signal?: AbortSignal },
  ): Promise<ToolCallResult>;
  /** Narrows the run's tools while a skill is active; returns the function that lifts it. */
  applySkillConstraint(skill: string, allowedTools: readonly string[]): () => void;
  /** Calls a listed tool with the run's validation, policy and events. */
  callListed(
    name: string,
    args: unknown,
    options: { readonly callId?: string; readonly signal?: AbortSignal },
  ): Promise<ToolCallResult>;
}

/**
 * What a handler gets besides its input.
 *
 * @public
 */
export interface ToolContext {
  /** The run's id. */
  readonly runId: string;
  /** This call's id (the provider's tool-call id when the adapter has one). */
  readonly callId: string;
  /** The name the tool was called by. */
  readonly toolName: string;
  /** Aborted when the call is cancelled or times out; pass it on to I/O. */
  readonly signal: AbortSignal;
  /** The run's permissions, with defaults applied. */
  readonly permissions: ResolvedPermissionConfig;
  /**
   * What the calling run may do, for tools that start child runs (agents, workflows, forked
   * skills): pass it as `createRun({ parent: ctx.scope })`, so the child is never wider.
   */
  readonly scope: RunScope;
  /** The catalog of this run (search, activate). */
  readonly catalog: RunCatalog;
  /** Host values given to `createRun({ context })`. */
  readonly hostContext: Readonly<Record<string, unknown>>;
  /** State that lives as long as the run (journals, caches), keyed by `createRunStorageKey`. */
  readonly storage: RunStorage;
  /**
   * Registers cleanup for when the run closes (e.g. a server a tool connected for this run);
   * returns the function that unregisters it.
   */
  readonly addRunDisposer: (dispose: () => unknown) => () => void;
  /**
   * Records a child run this call started (a subagent, a workflow run) or its new status, in the
   * run's saved state, so the run lists it when continued in another process (`run.childRuns()`).
   * @throws ConfigurationError `invalid_child_run` on a malformed entry.
   */
  readonly recordChildRun: (child: ChildRunState) => void;
}
