import { AllowedNames } from "./allowed-names.js";
import type { ResolvedPermissionConfig } from "./permissions.js";
import type { RunStorage } from "./run-storage.js";

/**
 * What a run may do, as a child run inherits it: its permissions and the tools it may use. A
 * child run made with `createRun({ parent })` never gets wider permissions or more tools than
 * this. Handlers see their run's scope as `ctx.scope`; `run.scope()` gives it to the host.
 * @public
 */
export interface RunScope {
  /** The run's id. */
  readonly runId: string;
  /** The run's permissions. */
  readonly permissions: ResolvedPermissionConfig;
  /**
   * The tools the run may use: its `allowedTools` narrowed by the skill constraints in force when
   * the scope was taken; `undefined` means every tool. `AskUserQuestion`, `find_tool` and `skill`
   * are always available and need not be listed.
   */
  readonly allowedTools: readonly string[] | undefined;
  /**
   * The run's deny entries (load mode `off`, `disabledTools`, `[tools] disabled`) and those it
   * inherited: a child run made from this scope has them turned off too, whatever its own load
   * options say, so a subagent never gets back a tool its parent's host turned off. Absent or
   * empty: none.
   */
  readonly disabledTools?: readonly string[];
  /**
   * The run's tool profile (`run.loading.profile`, a `ToolProfileName`; a string here, as the
   * tool layer comes before the profiles layer): a child run made from this scope presents
   * it too unless its own `createRun({ profile })` names another (the child's host asked
   * otherwise). Absent (a scope saved before profiles were inherited): the child resolves its own,
   * as a top-level run does.
   */
  readonly profile?: string;
  /** How many ancestors the run has (0 for a top-level run). */
  readonly depth: number;
  /**
   * The run's storage, which a child run's storage gets as its `parent` (so a child run's
   * resource budget is taken out of its parent's). Not enumerable: a scope saved as JSON (a
   * workflow checkpoint) or copied with a spread does not carry it, and a child made from such a
   * copy has none (its budget is then its own).
   */
  readonly storage?: RunStorage;
}

/**
 * The tools a child may use: the names it asks for that its parent allows too (matched as
 * `AllowedNames` matches them; an entry the parent allows only in folded form is kept folded). An absent list
 * on either side means "every tool", so the other side decides.
 */
export function intersectAllowedTools(
  parent: readonly string[] | undefined,
  requested: readonly string[] | undefined,
): readonly string[] | undefined {
  if (parent === undefined) return requested;
  if (requested === undefined) return parent;
  // Matched as the run matches them: a child may write an MCP tool as its server spells it.
  return new AllowedNames(parent).narrow(requested);
}
