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
   * before it fails with `run_limit_reached` (aborting the call ends the wait at once).
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

/**
 * Resolves a tool's `limits` and `runLimits` options into what each command reserves and out of
 * which totals; `undefined` when nothing is reserved (`runLimits: false`, or no limit at all).
 * @throws ConfigurationError `invalid_sandbox_option` for a total that is not a positive integer,
 *   or smaller than the per-command limit (a command could never start).
 */
export function runBudgetPlan(
  limits: ResourceLimits | false | undefined,
  runLimits: RunResourceLimits | false | undefined,
): RunBudgetPlan | undefined {
  if (runLimits === false) return undefined;
  const command = requestedLimits(limits);
  const run = {
    maxProcesses: total("maxProcesses", runLimits?.maxProcesses, command.maxProcesses),
    maxMemoryBytes: total("maxMemoryBytes", runLimits?.maxMemoryBytes, command.maxMemoryBytes),
  };
  const waitSeconds = runLimits?.waitSeconds ?? DEFAULT_WAIT_SECONDS;
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) {
    throw new ConfigurationError(
      "invalid_sandbox_option",
      `runLimits.waitSeconds must be 0 or more; got ${String(waitSeconds)}.`,
    );
  }
  if (run.maxProcesses === undefined && run.maxMemoryBytes === undefined) return undefined;
  return { command, run, waitMs: waitSeconds * 1000 };
}

function total(name: string, value: number | false | undefined, perCommand: number | undefined): number | undefined {
  // A run total with no per-command limit would have nothing to reserve.
  if (value === false || perCommand === undefined) return undefined;
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
}

interface Waiter {
  readonly holding: RunBudgetHolding;
  readonly run: RequestedLimits;
  readonly grant: () => void;
}

/**
 * The budget ledger of one run (kept in its `RunStorage`, so every tool of the run shares it and
 * two runs never do). Grants go in arrival order: a command waiting for a large share is not
 * overtaken for ever by smaller ones.
 */
export class RunResourceBudget {
  /** Each share held, with when it was granted (ms since the epoch). */
  private readonly holdings = new Map<RunBudgetHolding, number>();
  private readonly waiters: Waiter[] = [];

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
   * Reserves `holding` within `run`'s totals: at once when it fits and nobody waits ahead of it,
   * else when enough is given back. Resolves to the function that gives it back (call it once,
   * when the command and everything it started are gone).
   * @throws the signal's reason when it aborts first; ToolError `run_limit_reached` after `waitMs`.
   */
  reserve(holding: RunBudgetHolding, run: RequestedLimits, waitMs: number, signal: AbortSignal): Promise<() => void> {
    const release = () => {
      if (this.holdings.delete(holding)) this.grantWaiting();
    };
    if (this.waiters.length === 0 && this.fits(holding, run)) {
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
        run,
        grant: () => {
          this.holdings.set(holding, Date.now());
          // Resolved before the next waiter is looked at, so grants settle in arrival order.
          resolve(release);
          settle();
        },
      };
      const onAbort = () => {
        settle();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        const error = this.exhausted(holding, run, waitMs);
        settle();
        reject(error);
      }, waitMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private fits(holding: RunBudgetHolding, run: RequestedLimits): boolean {
    const held = this.held();
    if (run.maxProcesses !== undefined && held.processes + holding.processes > run.maxProcesses) return false;
    if (run.maxMemoryBytes !== undefined && held.memoryBytes + holding.memoryBytes > run.maxMemoryBytes) return false;
    return true;
  }

  private grantWaiting(): void {
    const next = this.waiters[0];
    // grant() removes the waiter and calls back here for the one after it.
    if (next !== undefined && this.fits(next.holding, next.run)) next.grant();
  }

  private exhausted(holding: RunBudgetHolding, run: RequestedLimits, waitMs: number): ToolError {
    const held = this.held();
    const processes = run.maxProcesses !== undefined && held.processes + holding.processes > run.maxProcesses;
    const what = processes
      ? `processes (${held.processes} of the run's ${run.maxProcesses} are held, this command needs ${holding.processes})`
      : `memory (${held.memoryBytes} of the run's ${run.maxMemoryBytes} bytes are held, this command needs ${holding.memoryBytes})`;
    const now = Date.now();
    const holders = [...this.holdings].map(([each, since]) => `${each.label} (running ${Math.round((now - since) / 1000)} s)`);
    return new ToolError(
      "run_limit_reached",
      `${holding.label} did not start: the run's commands already hold its ${what}, and none ended within ${Math.round(waitMs / 1000)} s. Held by: ${holders.join(", ") || "commands that are ending"}.`,
      {
        hint: "Wait for the running commands to finish, stop a background command (monitor stop), or run fewer commands at once.",
        data: {
          limit: processes ? "processes" : "memory",
          held: processes ? held.processes : held.memoryBytes,
          needed: processes ? holding.processes : holding.memoryBytes,
          runLimit: processes ? run.maxProcesses : run.maxMemoryBytes,
          holders: this.holders().map((each) => each.label),
        },
      },
    );
  }
}

/** The run's budget ledger, shared by every tool of the run. */
export const RUN_RESOURCE_BUDGET = createRunStorageKey("agent-tool-catalog.run-resource-budget", () => new RunResourceBudget());

/**
 * Reserves one command's share of its run's budget under `plan` (nothing when there is no plan),
 * for `label` (what the error names: `bash call_1`, `monitor mon_2`).
 * @returns the function that gives the share back, and how long the command waited (ms)
 */
export async function reserveRunResources(
  context: Pick<ToolContext, "storage" | "signal">,
  plan: RunBudgetPlan | undefined,
  label: string,
): Promise<{ readonly release: () => void; readonly waitedMs: number }> {
  if (plan === undefined) return { release: () => undefined, waitedMs: 0 };
  const since = Date.now();
  const holding: RunBudgetHolding = {
    label,
    processes: plan.command.maxProcesses ?? 0,
    memoryBytes: plan.command.maxMemoryBytes ?? 0,
  };
  const release = await context.storage.get(RUN_RESOURCE_BUDGET).reserve(holding, plan.run, plan.waitMs, context.signal);
  return { release, waitedMs: Date.now() - since };
}
