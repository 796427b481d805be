import { ConfigurationError, createRunStorageKey, type ToolContext, ToolError } from "agent-tool-catalog";
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
  const waitSeconds = runLimits?.waitSeconds ?? DEFAULT_WAIT_SECONDS;
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
    throw new ConfigurationError(
      "invalid_sandbox_option",
      `runLimits.waitSeconds must be from 0 to ${MAX_WAIT_SECONDS} (the longest timer Node keeps); got ${String(waitSeconds)}.`,
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
}

type Dimension = "processes" | "memory";

/** A run total and the tool whose `runLimits` set it. */
interface Total {
  readonly value: number;
  readonly tool: string;
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
 * any of them declared (each declares its `runLimits` with its first command in the run), so
 * tools given different totals cannot each fill the ledger up to their own. Grants go in arrival
 * order: a command waiting for a large share is not overtaken for ever by smaller ones.
 */
export class RunResourceBudget {
  /** Each share held, with when it was granted (ms since the epoch). */
  private readonly holdings = new Map<RunBudgetHolding, number>();
  private readonly waiters: Waiter[] = [];
  private readonly totals: Partial<Record<Dimension, Total>> = {};

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

  /** The run's totals now (`undefined` for none): the smallest each tool of the run declared. */
  runTotals(): RequestedLimits {
    return { maxProcesses: this.totals.processes?.value, maxMemoryBytes: this.totals.memory?.value };
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
    this.declare(holding.tool ?? holding.label, run);
    const never = this.neverFits(holding);
    if (never !== undefined) return Promise.reject(never);
    const release = () => {
      if (this.holdings.delete(holding)) this.grantWaiting();
    };
    if (this.waiters.length === 0 && this.fits(holding)) {
      this.holdings.set(holding, Date.now());
      return Promise.resolve(release);
    }
    if (signal.aborted) return Promise.reject(signal.reason);
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

  /** Lowers the run's totals to `run`'s where smaller; waiters that can then never fit fail. */
  private declare(tool: string, run: RequestedLimits): void {
    let lowered = false;
    for (const dimension of ["processes", "memory"] as const) {
      const value = run[OPTION[dimension]];
      const current = this.totals[dimension];
      if (value !== undefined && (current === undefined || value < current.value)) {
        this.totals[dimension] = { value, tool };
        lowered = true;
      }
    }
    if (!lowered) return;
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
        `${holding.label} cannot start: its per-command limits.${option} (${needed} ${unit}) is above the run's total of ${total.value} ${unit} (runLimits.${option} of ${total.tool}, the smallest of the run's tools), so it could never fit. The host must ${change}.`,
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
    const holders = [...this.holdings].map(([each, since]) => `${each.label} (running ${formatMs(now - since)})`);
    const heldBy = `Held by: ${holders.join(", ") || "commands that are ending"}.`;
    const hint =
      "Wait for the running commands to finish, stop a background command (monitor stop), or run fewer commands at once.";
    if (dimension === undefined) {
      // It fits beside what is held now, but grants go in arrival order and an earlier, larger
      // request still waits ahead of it.
      const ahead = this.waiters.slice(0, this.waiters.indexOf(waiter)).map((each) => each.holding.label);
      return new ToolError(
        "run_limit_reached",
        `${holding.label} did not start: it was queued behind earlier, larger requests of the run (${ahead.join(", ")}) that were still waiting for the run's totals after ${formatMs(waitMs)}; requests are granted in arrival order. ${heldBy}`,
        { hint, data: { reason: "queued", ahead, holders: this.holders().map((each) => each.label) } },
      );
    }
    const total = this.totals[dimension];
    // Granted before a tool of the run declared a smaller total: no wait short of its end helps.
    const oversized = this.holders().filter((each) => total !== undefined && this.need(each, dimension) > total.value);
    const over =
      oversized.length === 0 || total === undefined
        ? ""
        : ` ${oversized.map((each) => each.label).join(", ")} alone hold${oversized.length === 1 ? "s" : ""} more than the run's whole total (${total.value}, runLimits.${OPTION[dimension]} of ${total.tool}): started before that smaller total was declared, it keeps its share until it ends. Give the run's tools the same limits and runLimits.`;
    const what =
      dimension === "processes"
        ? `processes (${held.processes} of the run's ${total?.value} are held, this command needs ${holding.processes})`
        : `memory (${held.memoryBytes} of the run's ${total?.value} bytes are held, this command needs ${holding.memoryBytes})`;
    return new ToolError(
      "run_limit_reached",
      `${holding.label} did not start: the run's commands already hold its ${what}, and none ended within ${formatMs(waitMs)}. ${heldBy}${over}`,
      {
        hint,
        data: {
          reason: "held",
          limit: dimension,
          held: dimension === "processes" ? held.processes : held.memoryBytes,
          needed: this.need(holding, dimension),
          runLimit: total?.value,
          holders: this.holders().map((each) => each.label),
          ...(oversized.length === 0 ? {} : { aboveRunTotal: oversized.map((each) => each.label) }),
        },
      },
    );
  }
}

/** A duration for a message: milliseconds below a second, so a short wait does not read "0 s". */
function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The run's budget ledger, shared by every tool of the run. */
export const RUN_RESOURCE_BUDGET = createRunStorageKey("agent-tool-catalog.run-resource-budget", () => new RunResourceBudget());

/**
 * Reserves one command's share of its run's budget under `plan` (nothing when there is no plan),
 * for `label` (what the error names: `bash call_1`, `monitor mon_2`) of `tool` (whose options the
 * plan comes from, named when they must change).
 * @returns the function that gives the share back, and how long the command waited (ms)
 */
export async function reserveRunResources(
  context: Pick<ToolContext, "storage" | "signal">,
  plan: RunBudgetPlan | undefined,
  tool: string,
  label: string,
): Promise<{ readonly release: () => void; readonly waitedMs: number }> {
  if (plan === undefined) return { release: () => undefined, waitedMs: 0 };
  const since = Date.now();
  const holding: RunBudgetHolding = {
    label,
    tool,
    processes: plan.command.maxProcesses ?? 0,
    memoryBytes: plan.command.maxMemoryBytes ?? 0,
  };
  const release = await context.storage.get(RUN_RESOURCE_BUDGET).reserve(holding, plan.run, plan.waitMs, context.signal);
  return { release, waitedMs: Date.now() - since };
}
