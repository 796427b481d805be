import { ConfigurationError } from "../errors/configuration-error.js";
import { MAX_CALL_ID_LENGTH } from "../tool/call-id-limit.js";
import { ActivationTracker, type ActivationTrackerState } from "./activation-tracker.js";
import { type ChildRunState, childRunsProblem } from "./child-runs.js";

/**
 * Most pending approvals a saved state may hold: ten times the default `maxCallsInFlight` (each
 * pending approval is a call in flight). `settleInterrupted` asks the broker about every one, so
 * a state written by something else must not carry a million of them.
 */
export const MAX_STORED_PENDING_APPROVALS = 10_000;

/**
 * Longest `toolboxIndex` a saved state may hold, in characters: a row is at most ~130 characters
 * (a name of 64, a description of 60), so this is some 32 000 listed tools. Past it the text is
 * not an index this library built, and it would go into every system prompt as it is.
 */
export const MAX_STORED_INDEX_CHARS = 4 * 1024 * 1024;

/** Longest approval id or tool name of a saved pending approval (ids and names are far shorter). */
const MAX_PENDING_TEXT = 1024;

function storablePending(pending: PendingApprovalState): boolean {
  return (
    pending.approvalId.length <= MAX_PENDING_TEXT &&
    pending.toolName.length <= MAX_PENDING_TEXT &&
    pending.callId.length <= MAX_CALL_ID_LENGTH
  );
}

/**
 * The pending approvals a run saves: what {@link parseRunState} accepts back, so a run never saves
 * a state its own `openRun` refuses (that run would be lost). Past the bounds (more than
 * {@link MAX_STORED_PENDING_APPROVALS} waiting at once, which only a run with `maxCallsInFlight`
 * above it can reach, or an id a custom broker made longer than 1,024 characters) the first ones
 * within them are saved and the rest are not: after a crash `interruptedCalls()` does not name
 * those, and their approvals expire at the broker as any unanswered request does.
 */
export function storablePendingApprovals(pending: Iterable<PendingApprovalState>): PendingApprovalState[] {
  const kept: PendingApprovalState[] = [];
  for (const entry of pending) {
    if (kept.length === MAX_STORED_PENDING_APPROVALS) break;
    if (storablePending(entry)) kept.push(entry);
  }
  return kept;
}

/**
 * The toolbox index a run saves: the frozen index when it is within {@link MAX_STORED_INDEX_CHARS},
 * else none. A listing run of more than some 32,000 listed tools so saves no index, and the run
 * opened from that state builds its index again from the registry at its first tool list (the
 * same text when the registry has not changed), instead of saving a state `openRun` refuses.
 */
export function storableToolboxIndex(index: string | undefined): string | undefined {
  return index !== undefined && index.length <= MAX_STORED_INDEX_CHARS ? index : undefined;
}

/**
 * A call that was waiting for approval when the run was saved.
 *
 * @public
 */
export interface PendingApprovalState {
  /** The approval request's id (the broker's). */
  readonly approvalId: string;
  /** The provider's tool-call id. */
  readonly callId: string;
  /** The tool. */
  readonly toolName: string;
  /** When the request is denied if nobody answers, in ms since the epoch. */
  readonly expiresAt: number;
}

/**
 * A skill constraint in force when the run was saved.
 *
 * @public
 */
export interface SkillConstraintState {
  /** The skill. */
  readonly skill: string;
  /** Its `allowed-tools`. */
  readonly allowedTools: readonly string[];
}

/**
 * Everything a run needs to continue in another process: pass it to `createRun({ state })`, or
 * keep it in a `RunStore` (`createRun({ store })` saves after every call). Version 3; versions 1
 * (activations only) and 2 (no child runs) are read too.
 * @public
 */
export interface RunState {
  /** Format version. */
  readonly version: 3;
  /** The run's id. */
  readonly runId: string;
  /** Its activations, each tied to the identity of the tool it activated. */
  readonly activation: ActivationTrackerState;
  /** Skill constraints in force, outermost first. */
  readonly skills: readonly SkillConstraintState[];
  /**
   * Run-scoped tool state saved by its key (`createRunStorageKey(name, create, persist)`): the
   * file tools' undo/redo journal and read record, the todo list, and any host tool's.
   */
  readonly storage: Readonly<Record<string, unknown>>;
  /** Calls that were waiting for approval: a resumed run reports them (see `run.interruptedCalls()`). */
  readonly pendingApprovals: readonly PendingApprovalState[];
  /** The toolbox index the model was shown, once frozen (`undefined`: not frozen yet or nothing listed). */
  readonly toolboxIndex?: string | undefined;
  /**
   * The subagents, workflow runs and other child runs this run started (at most 100), with their
   * status when last seen: a run reopened elsewhere lists them (`run.childRuns()`) and can find
   * each again by id.
   */
  readonly children: readonly ChildRunState[];
}

/**
 * A version 2 state, as written before child runs were saved: a version 3 state without `children`.
 *
 * @public
 */
export type RunStateV2 = Omit<RunState, "version" | "children"> & { readonly version: 2 };

/**
 * A version 1 state, as written before version 2.
 *
 * @public
 */
export interface RunStateV1 {
  readonly version: 1;
  readonly runId: string;
  readonly activation: ActivationTrackerState;
}

function invalid(message: string): ConfigurationError {
  return new ConfigurationError("invalid_run_state", `Invalid run state: ${message}`, { data: { field: "state" } });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks a saved state and brings it to the current version (1 -> 3: no skills, storage, pending
 * approvals or children; 2 -> 3: no children).
 * @throws ConfigurationError `invalid_run_state` naming what is wrong.
 */
export function parseRunState(value: unknown): RunState {
  if (!isRecord(value)) throw invalid("expected an object as written by run.toJSON().");
  if (typeof value.runId !== "string" || value.runId === "") throw invalid("runId must be a non-empty string.");
  // Validates the activations (throws its own ConfigurationError).
  ActivationTracker.fromJSON(value.activation);
  const activation = value.activation as ActivationTrackerState;
  if (value.version === 1) {
    return { version: 3, runId: value.runId, activation, skills: [], storage: {}, pendingApprovals: [], children: [] };
  }
  if (value.version !== 2 && value.version !== 3) {
    throw invalid(`unknown version ${JSON.stringify(value.version)} (this library reads 1 to 3).`);
  }
  const { skills, storage, pendingApprovals, toolboxIndex } = value;
  const children = value.version === 2 ? [] : value.children;
  const childProblem = childRunsProblem(children);
  if (childProblem !== undefined) throw invalid(`${childProblem}.`);
  if (
    !Array.isArray(skills) ||
    !skills.every(
      (skill) =>
        isRecord(skill) &&
        typeof skill.skill === "string" &&
        Array.isArray(skill.allowedTools) &&
        skill.allowedTools.every((name) => typeof name === "string"),
    )
  ) {
    throw invalid("skills must be a list of { skill, allowedTools: string[] }.");
  }
  if (!isRecord(storage)) throw invalid("storage must be an object.");
  if (
    !Array.isArray(pendingApprovals) ||
    !pendingApprovals.every(
      (pending) =>
        isRecord(pending) &&
        typeof pending.approvalId === "string" &&
        typeof pending.callId === "string" &&
        typeof pending.toolName === "string" &&
        typeof pending.expiresAt === "number",
    )
  ) {
    throw invalid("pendingApprovals must be a list of { approvalId, callId, toolName, expiresAt }.");
  }
  // Bounded like children: a state this library writes stays far below, one written by something
  // else is refused here rather than asked of the broker entry by entry.
  if (pendingApprovals.length > MAX_STORED_PENDING_APPROVALS) {
    throw invalid(`pendingApprovals holds at most ${MAX_STORED_PENDING_APPROVALS} entries (${pendingApprovals.length} stored).`);
  }
  const longPending = pendingApprovals.findIndex((pending) => !storablePending(pending as PendingApprovalState));
  if (longPending !== -1) {
    throw invalid(
      `pendingApprovals[${longPending}]: approvalId and toolName hold at most ${MAX_PENDING_TEXT} characters, callId ${MAX_CALL_ID_LENGTH}.`,
    );
  }
  if (toolboxIndex !== undefined && typeof toolboxIndex !== "string") throw invalid("toolboxIndex must be a string.");
  if (typeof toolboxIndex === "string" && toolboxIndex.length > MAX_STORED_INDEX_CHARS) {
    throw invalid(`toolboxIndex holds at most ${MAX_STORED_INDEX_CHARS} characters (${toolboxIndex.length} stored).`);
  }
  return {
    version: 3,
    runId: value.runId,
    activation,
    skills: skills as SkillConstraintState[],
    storage,
    pendingApprovals: pendingApprovals as PendingApprovalState[],
    toolboxIndex,
    children: children as ChildRunState[],
  };
}

/**
 * The state `createRun` continues, parsed, or `undefined`; refuses `state` together with
 * `activation`, or with a different `runId`.
 * @throws ConfigurationError `conflicting_options` or `invalid_run_state`.
 */
export function runStateFromOptions(options: {
  readonly state?: RunState | RunStateV2 | RunStateV1 | undefined;
  readonly activation?: unknown;
  readonly runId?: string | undefined;
}): RunState | undefined {
  if (options.state === undefined) return undefined;
  const state = parseRunState(options.state);
  if (options.activation !== undefined) {
    throw new ConfigurationError("conflicting_options", "createRun: pass either state or activation, not both.", {
      data: { field: "activation" },
    });
  }
  if (options.runId !== undefined && options.runId !== state.runId) {
    throw new ConfigurationError(
      "conflicting_options",
      `createRun: runId "${options.runId}" differs from the state's "${state.runId}".`,
      {
        data: { field: "runId" },
      },
    );
  }
  return state;
}
