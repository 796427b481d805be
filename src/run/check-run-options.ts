import type { NumberOptionRule } from "../errors/check-number-option.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { closestNames } from "../tool/closest-names.js";

export { checkApprovalTimeout, MAX_TIMER_DELAY_MS } from "../policy/check-approval-timeout.js";

/** Every option `createRun` knows; anything else is a host typo (`sandbx`) and fails at once. */
export const CREATE_RUN_OPTION_NAMES: readonly string[] = Object.freeze([
  "runId",
  "allowedTools",
  "permissions",
  "parent",
  "activation",
  "state",
  "store",
  "storeRevision",
  "storeTtlMs",
  "storeSaveWaitMs",
  "context",
  "maxInputLength",
  "approvalTimeoutMs",
  "condenseThreshold",
  "maxBinaryBytes",
  "maxCallsInFlight",
  "profile",
  "loadModes",
  "disabledTools",
  "config",
  "environment",
]);

/**
 * Checks that `options` names only known options.
 * @throws ConfigurationError `unknown_option` naming the field and the closest known name.
 */
export function checkOptionNames(options: object, known: readonly string[], where: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const closest = closestNames(key, known, 1);
    throw new ConfigurationError(
      "unknown_option",
      `${where}: unknown option "${key}"${closest.length > 0 ? `; did you mean "${closest[0]}"?` : "."}`,
      { data: { field: key, suggestions: closest } },
    );
  }
}

/**
 * Deepest child run below a root run. Sub-agents fork a few levels deep (five in the agents this
 * library serves); the bound ends a handler that makes a child run and calls into it without end,
 * which `maxCallsInFlight` (one run's calls) does not see.
 */
export const MAX_RUN_DEPTH = 64;

/**
 * Returns `depth` when a child run may be that deep.
 * @throws ConfigurationError `run_too_deep` past {@link MAX_RUN_DEPTH}.
 */
export function checkRunDepth(depth: number): number {
  if (depth <= MAX_RUN_DEPTH) return depth;
  throw new ConfigurationError(
    "run_too_deep",
    `createRun: a child run may be at most ${MAX_RUN_DEPTH} levels below its root run; this one would be ${depth}.`,
    { data: { field: "parent", depth } },
  );
}

/** The rule of `createRun`'s size limits (`maxInputLength`, ...): a number above 0, `Infinity` for none. */
export const POSITIVE_LIMIT: NumberOptionRule = Object.freeze({ min: 0, aboveMin: true, infinite: true });

function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

interface StatLike {
  isDirectory(): boolean;
}

/**
 * Checks that a workspace is an absolute path to an existing directory, so that a typo fails at
 * `createRun` instead of every file tool's call failing in front of the model. The existence
 * check runs where `node:fs` is available (it is skipped in a browser or an edge runtime).
 * @throws ConfigurationError `invalid_permission_config` naming `permissions.workspace`.
 */
export function checkWorkspace(workspace: string | undefined): void {
  if (workspace === undefined) return;
  const field = "permissions.workspace";
  const fail = (problem: string) =>
    new ConfigurationError("invalid_permission_config", `${field} ${problem}; got ${JSON.stringify(workspace)}.`, {
      data: { field },
    });
  if (!isAbsolutePath(workspace)) throw fail("must be an absolute path");
  const fs = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    "node:fs",
  ) as { statSync?: (path: string, options: object) => StatLike | undefined } | undefined;
  if (fs?.statSync === undefined) return;
  const stat = fs.statSync(workspace, { throwIfNoEntry: false });
  if (stat === undefined) throw fail("must exist");
  if (!stat.isDirectory()) throw fail("must be a directory");
}

/** Checks `allowedTools`; an empty list means every tool (`undefined`). */
export function resolveAllowedTools(allowedTools: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (allowedTools === undefined) return undefined;
  if (!Array.isArray(allowedTools) || !allowedTools.every((name) => typeof name === "string")) {
    throw new ConfigurationError("invalid_allowed_tools", "allowedTools must be an array of tool names (strings).", {
      data: { field: "allowedTools" },
    });
  }
  return allowedTools.length === 0 ? undefined : new Set(allowedTools);
}
