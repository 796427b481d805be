import {
  ConfigurationError,
  createRunStorageKey,
  type RunStorage,
  type RunStorageKey,
  type ToolContext,
  ToolError,
} from "agent-tool-catalog";
import { formatWait } from "../../errors/format-wait.js";
import { type RequestedLimits, type ResourceLimits, requestedLimits } from "./resource-limits.js";

/**
 * Totals for one run: what all the commands of a run (its `bash` calls, in parallel or not, and
 * its `monitor` background commands) may be granted together. Each command reserves its own
 * per-command limit (`ResourceLimits`) out of them when it starts and gives it back when it and
 * everything it started are gone; a command that does not fit waits, then fails with
 * `run_limit_reached`. The budget is bookkeeping in the host's process, so it holds without
 * privileges; what a command's reservation bounds is what enforces its per-command limit (see
 * `ResourceLimitStatus`).
 *
 * @public
 */
export interface RunResourceLimits {
  /**
   * The most processes and threads all of a run's commands may be granted at once: the sum of
   * the per-command `maxProcesses` of the commands running.
   * @defaultValue 8 × the per-command `maxProcesses` (8,192 with the defaults)
   */
  readonly maxProcesses?: number | false;
  /**
   * The most memory (bytes) all of a run's commands may be granted at once: the sum of the
   * per-command `maxMemoryBytes` of the commands running.
   * @defaultValue 8 × the per-command `maxMemoryBytes` (four times the host's memory with the
   *   defaults, so no bound in practice: set it)
   */
  readonly maxMemoryBytes?: number | false;
  /**
   * How long a command waits for the run's running commands to give back enough of the budget
   * before it fails with `run_limit_reached` (aborting the call ends the wait at once); at most
   * 2,147,483 (24.8 days, the longest timer Node keeps).
   * @defaultValue 30
   */
  readonly waitSeconds?: number;
}

/** What one command of a tool reserves, out of which totals, and how long it may wait. */
export interface RunBudgetPlan {
  /** Per command, `undefined` for a limit that is off. */
  readonly command: RequestedLimits;
  /** Per run, `undefined` for a total that is off. */
  readonly run: RequestedLimits;
  readonly waitMs: number;
}

/** How many per-command limits fit in the default run total. */
export const DEFAULT_COMMANDS_PER_RUN = 8;

const DEFAULT_WAIT_SECONDS = 30;

/** The longest wait a timer keeps: `setTimeout` fires at once above 2^31 - 1 ms. */
const MAX_WAIT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * Resolves a tool's `limits` and `runLimits` options into what each command reserves and out of
 * which totals; `undefined` when nothing is reserved (`runLimits: false`, or no limit at all).
 * @throws ConfigurationError `invalid_sandbox_option` for a bad per-command limit (also with
 *   `runLimits: false`), a total that is not a positive integer, smaller than the per-command
 *   limit (a command could never start) or set for a limit that is off per command (a command
 *   with no limit has nothing to reserve), or a `waitSeconds` out of range.
 */
export function runBudgetPlan(
  limits: ResourceLimits | false | undefined,
  runLimits: RunResourceLimits | false | undefined,
): RunBudgetPlan | undefined {
  // Checked first, so a bad per-command limit is refused with the totals off too.
  const command = requestedLimits(limits);
  if (runLimits === false) return undefined;
  const run = {
    maxProcesses: total("maxProcesses", runLimits?.maxProcesses, command.maxProcesses),
    maxMemoryBytes: total("maxMemoryBytes", runLimits?.maxMemoryBytes, command.maxMemoryBytes),
  };
  // Only a missing value takes the default: `null` (a JSON config's blank) is refused, not read as 30.
  const waitSeconds: unknown = runLimits?.waitSeconds === undefined ? DEFAULT_WAIT_SECONDS : runLimits.waitSeconds;
  if (typeof waitSeconds !== "number" || !Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
    throw new ConfigurationError(
      "invalid_sandbox_option",
      `runLimits.waitSeconds must be from 0 to ${MAX_WAIT_SECONDS} (the longest timer Node keeps); got ${String(waitSeconds)}.`,
      { data: { field: "runLimits.waitSeconds" } },
    );
  }
  if (run.maxProcesses === undefined && run.maxMemoryBytes === undefined) return undefined;
  return { command, run, waitMs: Math.round(waitSeconds * 1000) };
}

function total(name: string, value: number | false | undefined, perCommand: number | undefined): number | undefined {
  if (value === false) return undefined;
  if (perCommand === undefined) {
    // A command with no limit of its own has nothing to reserve: a total set for it would hold
    // nothing, so it is refused rather than dropped.
    if (value === undefined) return undefined;
    throw new ConfigurationError(
      "invalid_sandbox_option",
      `runLimits.${name} (${String(value)}) needs a per-command limits.${name}: with limits.${name} off a command has nothing to reserve out of the run's total. Set limits.${name}, or runLimits.${name}: false.`,
    );
  }
  if (value === undefined) return perCommand * DEFAULT_COMMANDS_PER_RUN;
  if (!Number.isSafeInteger(value) || value < perCommand) {
    throw new ConfigurationError(
      "invalid_sandbox_option",
      `runLimits.${name} must be an integer of at least the per-command limits.${name} (${perCommand}), or false; got ${String(value)}.`,
    );
  }
  return value;
}

/** One command's share of its run's budget, held until the command is gone. */
export interface RunBudgetHolding {
  readonly label: string;
  readonly processes: number;
  readonly memoryBytes: number;
  /** The tool whose options the share comes from (`bash`, `monitor`); the label's when unset. */
  readonly tool?: string;
  /**
   * The run whose command this is, when the share is taken out of an ancestor run's budget (a
   * child run's command draws on its parent's): messages then name it and speak of the parent.
   */
  readonly childRun?: string;
}

/**
 * A command's share granted out of its run's budget and every ancestor run's.
 */
export interface RunBudgetGrant {
  /** Gives the share back to every budget it was taken from (call it once the command is gone). */
  readonly release: () => void;
  /**
   * Aborted when an ancestor run whose budget the share is taken from is closed: end the
   * command then, so a child run that outlives its parent (a runner that ignores its abort
   * signal) holds nothing of it. Never aborted for a top-level run.
   */
  readonly revoked: AbortSignal;
}

/** An ancestor run's budget, and that run's lifetime (aborted when it closes). */
interface ParentBudget {
  readonly budget: RunResourceBudget;
  readonly lifetime: AbortSignal;
}

type Dimension = "processes" | "memory";

/** A run total and the tool whose `runLimits` set it. */
interface Total {
  readonly value: number;
  readonly tool: string;
  /**
   * Declared by a child run's command, not by a tool of this run: the largest a child declared
   * stands in until one of the run's own tools declares its totals, which then replace it (larger
   * or not).
   */
  readonly fromChild: boolean;
}

interface Waiter {
  readonly holding: RunBudgetHolding;
  readonly grant: () => void;
  readonly fail: (error: ToolError) => void;
}

const OPTION: Record<Dimension, "maxProcesses" | "maxMemoryBytes"> = {
  processes: "maxProcesses",
  memory: "maxMemoryBytes",
};

/**
 * The budget ledger of one run (kept in its `RunStorage`, so every tool of the run shares it and
 * two runs never do). It has one set of totals, whatever tools share it: per limit the smallest
 * any of them declared (each declares its `runLimits` when the run is made, see
 * {@link runSetupHook}, or with its first command in the run), so
 * tools given different totals cannot each fill the ledger up to their own. A run none of whose
 * own tools declared yet is bounded by the largest total its child runs declared: never by a
 * smaller one, which would make one tightly configured child bind all its siblings (each child's
 * own totals still cap that child). Grants go in arrival order: a command waiting for a large
 * share is not overtaken for ever by smaller ones.
 */
export class RunResourceBudget {
  private readonly parent: ParentBudget | undefined;
  /** Each share held, with when it was granted (ms since the epoch). */
  private readonly holdings = new Map<RunBudgetHolding, number>();
  private readonly waiters: Waiter[] = [];
  private readonly totals: Partial<Record<Dimension, Total>> = {};

  /**
   * @param parent - the parent run's budget and lifetime, for a child run's budget (made by
   *   {@link RUN_RESOURCE_BUDGET} for a run made with `createRun({ parent })`)
   */
  constructor(parent?: ParentBudget) {
    this.parent = parent;
  }

  /** What the run's commands hold now, in total. */
  held(): { readonly processes: number; readonly memoryBytes: number } {
    let processes = 0;
    let memoryBytes = 0;
    for (const holding of this.holdings.keys()) {
      processes += holding.processes;
      memoryBytes += holding.memoryBytes;
    }
    return { processes, memoryBytes };
  }

  /** The commands holding a share now, oldest first. */
  holders(): readonly RunBudgetHolding[] {
    return [...this.holdings.keys()];
  }

  /**
   * The run's totals now (`undefined` for none): the smallest each tool of the run declared, or
   * while none did, the largest its child runs' tools declared.
   */
  runTotals(): RequestedLimits {
    return { maxProcesses: this.totals.processes?.value, maxMemoryBytes: this.totals.memory?.value };
  }

  /**
   * Declares a total of one of the run's own tools (`tool`'s `runLimits`), before any of its
   * commands: called when the run is made ({@link runSetupHook}), so the run's totals are known
   * from its own configuration even while only its child runs have run commands.
   */
  declareOwn(tool: string, run: RequestedLimits): void {
    this.declare(tool, run, false);
  }

  /**
   * Reserves `holding` within the run's totals (lowered to `run` where `run` is smaller): at once
   * when it fits and nobody waits ahead of it, else when enough is given back. Resolves to the
   * function that gives it back (call it once, when the command and everything it started are gone).
   * @throws ToolError `run_limit_reached` at once when `holding` alone is above a run total (it
   *   could never fit: `data.reason` `"exceeds_run_total"`), after `waitMs` when it did not get in
   *   (`"held"`, or `"queued"` behind earlier larger requests); the signal's reason when it aborts first.
   */
  reserve(holding: RunBudgetHolding, run: RequestedLimits, waitMs: number, signal: AbortSignal): Promise<() => void> {
    this.declare(holding.tool ?? holding.label, run, holding.childRun !== undefined);
    const never = this.neverFits(holding);
    if (never !== undefined) return Promise.reject(never);
    const release = () => {
      if (this.holdings.delete(holding)) this.grantWaiting();
    };
    // Looked at before an immediate grant too: a child's share granted in its own budget may go
    // on to an ancestor's after that ancestor closed (the revocation aborted between the two).
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.waiters.length === 0 && this.fits(holding)) {
      this.holdings.set(holding, Date.now());
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        // The head leaving may let the next ones in.
        this.grantWaiting();
      };
      const waiter: Waiter = {
        holding,
        grant: () => {
          this.holdings.set(holding, Date.now());
          // Resolved before the next waiter is looked at, so grants settle in arrival order.
          resolve(release);
          settle();
        },
        fail: (error) => {
          reject(error);
          settle();
        },
      };
      const onAbort = () => {
        settle();
        reject(signal.reason);
      };
      const timer = setTimeout(() => waiter.fail(this.exhausted(waiter, waitMs)), waitMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /**
   * Reserves `holding` in this run's budget, then in each ancestor run's (a child run's command
   * counts against its parent's totals, so children can never hold more than their parent has
   * left), all within `waitMs`. `run` (the command's tool's totals) is declared on each of them:
   * on the run, as its own; on an ancestor, as a child's (see {@link RunResourceBudget}).
   * @throws ToolError `run_limit_reached` as {@link RunResourceBudget.reserve} (from whichever
   *   budget did not have room), `run_closed` when an ancestor run is closed or closes while it
   *   waits; the signal's reason when it aborts first.
   */
  async reserveWithAncestors(
    holding: RunBudgetHolding,
    run: RequestedLimits,
    waitMs: number,
    signal: AbortSignal,
    runId: string,
  ): Promise<RunBudgetGrant> {
    const ancestors: ParentBudget[] = [];
    for (let next = this.parent; next !== undefined; next = next.budget.parent) ancestors.push(next);
    if (ancestors.length === 0) return { release: await this.reserve(holding, run, waitMs, signal), revoked: NEVER };
    // One listener per ancestor, removed on release: a long-lived parent must not collect one per
    // command its children ever ran.
    const revocation = new AbortController();
    const revoke = () => revocation.abort(parentClosed(holding.label));
    for (const ancestor of ancestors) ancestor.lifetime.addEventListener("abort", revoke, { once: true });
    if (ancestors.some((each) => each.lifetime.aborted)) revoke();
    const revoked = revocation.signal;
    const waitSignal = AbortSignal.any([signal, revoked]);
    const deadline = Date.now() + waitMs;
    const releases: (() => void)[] = [];
    const release = () => {
      for (const ancestor of ancestors) ancestor.lifetime.removeEventListener("abort", revoke);
      // Ancestors first: the run's own queue is looked at last, once the whole share is back.
      for (const each of releases.splice(0).reverse()) each();
    };
    try {
      if (revoked.aborted) throw revoked.reason;
      releases.push(await this.reserve(holding, run, waitMs, waitSignal));
      const share = { ...holding, childRun: holding.childRun ?? runId };
      for (const ancestor of ancestors) {
        releases.push(await ancestor.budget.reserve(share, run, Math.max(0, deadline - Date.now()), waitSignal));
      }
      // Never hand back a grant already revoked: a caller that listens for the revocation would
      // never hear of it.
      if (revoked.aborted) throw revoked.reason;
    } catch (error) {
      release();
      if (revoked.aborted && !signal.aborted) throw revoked.reason;
      throw error;
    }
    return { release, revoked };
  }

  /**
   * Takes `holding` out of this run's budget and every ancestor's only if it fits in all of them
   * now, with nobody waiting ahead (nothing is declared, nothing waits): for a command that has a
   * way to do without (grep runs its JavaScript engine instead of ripgrep).
   * @returns the grant, or `undefined` when it does not fit now or an ancestor run is closed
   */
  tryReserveWithAncestors(holding: RunBudgetHolding, runId: string): RunBudgetGrant | undefined {
    const chain: RunResourceBudget[] = [this];
    const lifetimes: AbortSignal[] = [];
    for (let next = this.parent; next !== undefined; next = next.budget.parent) {
      chain.push(next.budget);
      lifetimes.push(next.lifetime);
    }
    if (lifetimes.some((each) => each.aborted)) return undefined;
    const shares = chain.map((_budget, index) => (index === 0 ? holding : { ...holding, childRun: holding.childRun ?? runId }));
    if (chain.some((budget, index) => budget.waiters.length > 0 || !budget.fits(shares[index] as RunBudgetHolding))) {
      return undefined;
    }
    const now = Date.now();
    for (const [index, budget] of chain.entries()) budget.holdings.set(shares[index] as RunBudgetHolding, now);
    const revocation = new AbortController();
    const revoke = () => revocation.abort(parentClosed(holding.label));
    for (const lifetime of lifetimes) lifetime.addEventListener("abort", revoke, { once: true });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const lifetime of lifetimes) lifetime.removeEventListener("abort", revoke);
      for (const [index, budget] of [...chain.entries()].reverse()) {
        if (budget.holdings.delete(shares[index] as RunBudgetHolding)) budget.grantWaiting();
      }
    };
    return { release, revoked: revocation.signal };
  }

  /**
   * Lowers the run's totals to `run`'s where smaller; waiters that can then never fit fail. A
   * child run's command (`fromChild`) only sets a total the run has none of its own of, and only
   * raises it (the largest a child declared stands in: a smaller one would refuse a sibling's
   * command that its own totals allow, blaming the sibling); a total set that way is replaced by
   * the first one a tool of the run itself declares: the parent's own options decide its totals.
   */
  private declare(tool: string, run: RequestedLimits, fromChild: boolean): void {
    let lowered = false;
    for (const dimension of ["processes", "memory"] as const) {
      const value = run[OPTION[dimension]];
      const current = this.totals[dimension];
      if (value === undefined) continue;
      const replace = fromChild
        ? current === undefined || (current.fromChild && value > current.value)
        : current === undefined || current.fromChild || value < current.value;
      if (!replace) continue;
      if (current === undefined || value < current.value) lowered = true;
      this.totals[dimension] = { value, tool, fromChild };
    }
    if (!lowered) {
      // A total raised (a larger stand-in, or the run's own replacing a stand-in) may let waiters in.
      this.grantWaiting();
      return;
    }
    for (const waiter of [...this.waiters]) {
      const never = this.neverFits(waiter.holding);
      if (never !== undefined) waiter.fail(never);
    }
  }

  private need(holding: RunBudgetHolding, dimension: Dimension): number {
    return dimension === "processes" ? holding.processes : holding.memoryBytes;
  }

  /** The first limit where `holding` and what is held now do not fit in the run's total. */
  private shortage(holding: RunBudgetHolding): Dimension | undefined {
    const held = this.held();
    for (const dimension of ["processes", "memory"] as const) {
      const total = this.totals[dimension];
      const have = dimension === "processes" ? held.processes : held.memoryBytes;
      if (total !== undefined && have + this.need(holding, dimension) > total.value) return dimension;
    }
    return undefined;
  }

  private fits(holding: RunBudgetHolding): boolean {
    return this.shortage(holding) === undefined;
  }

  private grantWaiting(): void {
    const next = this.waiters[0];
    // grant() removes the waiter and calls back here for the one after it.
    if (next !== undefined && this.fits(next.holding)) next.grant();
  }

  /** The error for a share above a run total on its own (a host setting: no wait can help). */
  private neverFits(holding: RunBudgetHolding): ToolError | undefined {
    const tool = holding.tool ?? holding.label;
    for (const dimension of ["processes", "memory"] as const) {
      const total = this.totals[dimension];
      const needed = this.need(holding, dimension);
      if (total === undefined || needed <= total.value) continue;
      const option = OPTION[dimension];
      const unit = dimension === "processes" ? "processes" : "bytes";
      const change =
        total.tool === tool
          ? `raise ${tool}'s runLimits.${option} or lower its limits.${option}`
          : `give ${tool} limits.${option} of at most ${total.value} (the same limits as ${total.tool}), or raise ${total.tool}'s runLimits.${option}`;
      return new ToolError(
        "run_limit_reached",
        `${holding.label} cannot start: its per-command limits.${option} (${needed} ${unit}) is above the ${holding.childRun === undefined ? "run's" : "parent run's"} total of ${total.value} ${unit} (runLimits.${option} of ${total.tool}, ${total.fromChild ? "the largest of its child runs' tools, standing in for totals of its own" : "the smallest of the run's tools"}), so it could never fit. The host must ${change}.`,
        {
          hint: "This is the host's configuration: waiting or retrying will not help. Use another tool, or tell the user.",
          data: {
            reason: "exceeds_run_total",
            limit: dimension,
            needed,
            runLimit: total.value,
            runLimitSetBy: total.tool,
            option: `${tool} limits.${option}`,
          },
        },
      );
    }
    return undefined;
  }

  private exhausted(waiter: Waiter, waitMs: number): ToolError {
    const { holding } = waiter;
    const held = this.held();
    const dimension = this.shortage(holding);
    const now = Date.now();
    const holders = [...this.holdings].map(([each, since]) => `${nameOf(each)} (running ${formatWait(now - since)})`);
    const heldBy = `Held by: ${holders.join(", ") || "commands that are ending"}.`;
    const hint =
      "Wait for the running commands to finish, stop a background command (monitor stop), or run fewer commands at once.";
    if (dimension === undefined) {
      // It fits beside what is held now, but grants go in arrival order and an earlier, larger
      // request still waits ahead of it.
      const ahead = this.waiters.slice(0, this.waiters.indexOf(waiter)).map((each) => nameOf(each.holding));
      return new ToolError(
        "run_limit_reached",
        `${holding.label} did not start: it was queued behind earlier, larger requests of the ${holding.childRun === undefined ? "run" : "parent run and its child runs"} (${ahead.join(", ")}) that were still waiting for the run's totals after ${formatWait(waitMs)}; requests are granted in arrival order. ${heldBy}`,
        { hint, data: { reason: "queued", ahead, holders: this.holders().map(nameOf) } },
      );
    }
    const total = this.totals[dimension];
    const whose = holding.childRun === undefined ? "run's" : "parent run's";
    // Granted before a tool of the run declared a smaller total: no wait short of its end helps.
    const oversized = this.holders().filter((each) => total !== undefined && this.need(each, dimension) > total.value);
    const over =
      oversized.length === 0 || total === undefined
        ? ""
        : ` ${oversized.map(nameOf).join(", ")} alone hold${oversized.length === 1 ? "s" : ""} more than the run's whole total (${total.value}, runLimits.${OPTION[dimension]} of ${total.tool}): started before that smaller total was declared, it keeps its share until it ends. Give the run's tools the same limits and runLimits.`;
    const what =
      dimension === "processes"
        ? `processes (${held.processes} of the ${whose} ${total?.value} are held, this command needs ${holding.processes})`
        : `memory (${held.memoryBytes} of the ${whose} ${total?.value} bytes are held, this command needs ${holding.memoryBytes})`;
    return new ToolError(
      "run_limit_reached",
      `${holding.label} did not start: ${holding.childRun === undefined ? "the run's commands" : "the commands of its parent run and of that run's child runs"} already hold its ${what}, and none ended within ${formatWait(waitMs)}. ${heldBy}${over}`,
      {
        hint,
        data: {
          reason: "held",
          limit: dimension,
          held: dimension === "processes" ? held.processes : held.memoryBytes,
          needed: this.need(holding, dimension),
          runLimit: total?.value,
          holders: this.holders().map(nameOf),
          ...(oversized.length === 0 ? {} : { aboveRunTotal: oversized.map(nameOf) }),
        },
      },
    );
  }
}

/** A share as messages name it: a child run's command says whose it is. */
function nameOf(holding: RunBudgetHolding): string {
  return holding.childRun === undefined ? holding.label : `${holding.label} of child run ${holding.childRun}`;
}

/** A signal that never aborts: a top-level run's grant is never revoked. */
const NEVER = new AbortController().signal;

function parentClosed(label: string): ToolError {
  return new ToolError(
    "run_closed",
    `${label} did not start, or was ended: a parent run of this run was closed, and this run's commands draw on that run's resource budget.`,
    { hint: "The run that started this one has ended: return what you have (task_complete), nothing more can run." },
  );
}

/**
 * Where the budget's storage key is kept for the whole process: a run's storage holds values by
 * key object, so the ESM and CommonJS copies of the package (or two bundled copies) loaded at once
 * must use one key, or a child run made by one copy would keep a budget apart from its parent's
 * made by the other. Versioned: a copy whose ledger works differently must use its own.
 */
const BUDGET_KEY = Symbol.for("agent-tool-catalog.run-resource-budget.v1");
const globalBudgetKey = globalThis as typeof globalThis & { [BUDGET_KEY]?: RunStorageKey<RunResourceBudget> };

/**
 * The run's budget ledger, shared by every tool of the run; a child run's is linked to its
 * parent's (`createRun({ parent })` in this process), so its commands count against both.
 */
export const RUN_RESOURCE_BUDGET: RunStorageKey<RunResourceBudget> =
  globalBudgetKey[BUDGET_KEY] ??
  createRunStorageKey("agent-tool-catalog.run-resource-budget", (storage) => {
    const parent = storage.parent;
    return new RunResourceBudget(
      parent === undefined ? undefined : { budget: parent.get(RUN_RESOURCE_BUDGET), lifetime: parent.lifetime },
    );
  });
globalBudgetKey[BUDGET_KEY] = RUN_RESOURCE_BUDGET;

/**
 * The hook under which the core registry calls a tool with each new run's storage (the same
 * process-wide symbol as the core's `RUN_SETUP`, which the package does not export).
 */
const RUN_SETUP = Symbol.for("agent-tool-catalog.run-setup.v1");

/**
 * A tool definition's run-setup entry that declares `tool`'s totals on every run made with it:
 * spread it into the definition (`{ ...runSetupHook("bash", plan), name: "bash", ... }`).
 */
export function runSetupHook(
  tool: string,
  plan: RunBudgetPlan | undefined,
): { readonly [RUN_SETUP]?: (storage: RunStorage) => void } {
  if (plan === undefined) return {};
  return { [RUN_SETUP]: (storage: RunStorage) => storage.get(RUN_RESOURCE_BUDGET).declareOwn(tool, plan.run) };
}

/**
 * Reserves one command's share of its run's budget under `plan` (nothing when there is no plan),
 * for `label` (what the error names: `bash call_1`, `monitor mon_2`) of `tool` (whose options the
 * plan comes from, named when they must change).
 * @returns the function that gives the share back, and how long the command waited (ms)
 */
export async function reserveRunResources(
  context: Pick<ToolContext, "storage" | "signal" | "runId">,
  plan: RunBudgetPlan | undefined,
  tool: string,
  label: string,
): Promise<RunBudgetGrant & { readonly waitedMs: number }> {
  if (plan === undefined) return { release: () => undefined, revoked: NEVER, waitedMs: 0 };
  const since = Date.now();
  const holding: RunBudgetHolding = {
    label,
    tool,
    processes: plan.command.maxProcesses ?? 0,
    memoryBytes: plan.command.maxMemoryBytes ?? 0,
  };
  const grant = await context.storage
    .get(RUN_RESOURCE_BUDGET)
    .reserveWithAncestors(holding, plan.run, plan.waitMs, context.signal, context.runId);
  return { ...grant, waitedMs: Date.now() - since };
}
