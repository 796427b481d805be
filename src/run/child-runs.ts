import { ConfigurationError } from "../errors/configuration-error.js";
import type { ChildRunState } from "../tool/child-run-state.js";

export type { ChildRunState, ChildRunStatus } from "../tool/child-run-state.js";

/** Child runs a run keeps at most; past it, the oldest ended ones are dropped first. */
export const MAX_CHILD_RUNS = 100;
const MAX_LABEL = 200;
const STATUSES: ReadonlySet<string> = new Set(["running", "completed", "failed", "cancelled"]);

/** Why `value` is not a {@link ChildRunState}, or `undefined` when it is one. */
function problemOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected an object";
  const child = value as Record<string, unknown>;
  if (typeof child.kind !== "string" || child.kind.length === 0 || child.kind.length > 64)
    return "kind must be 1 to 64 characters";
  if (typeof child.id !== "string" || child.id.length === 0 || child.id.length > 256) return "id must be 1 to 256 characters";
  if (typeof child.status !== "string" || !STATUSES.has(child.status))
    return "status must be running, completed, failed or cancelled";
  if (child.label !== undefined && (typeof child.label !== "string" || child.label.length > MAX_LABEL))
    return `label must be a string of at most ${MAX_LABEL} characters`;
  if (typeof child.startedAt !== "number" || !Number.isFinite(child.startedAt)) return "startedAt must be a number";
  if (child.finishedAt !== undefined && (typeof child.finishedAt !== "number" || !Number.isFinite(child.finishedAt)))
    return "finishedAt must be a number";
  return undefined;
}

/** Checks saved child runs; returns the problem (with the entry's index) or `undefined`. */
export function childRunsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "children must be a list";
  if (value.length > MAX_CHILD_RUNS) return `children holds at most ${MAX_CHILD_RUNS} entries`;
  for (const [index, child] of value.entries()) {
    const problem = problemOf(child);
    if (problem !== undefined) return `children[${index}]: ${problem}`;
  }
  return undefined;
}

/**
 * The child runs of one run, newest last: recording a child again (same kind and id) updates it
 * in place, so a parent that polls a subagent keeps one entry with its latest status.
 */
export class ChildRuns {
  private readonly children = new Map<string, ChildRunState>();

  /** @param saved - checked by {@link childRunsProblem} */
  constructor(saved: readonly ChildRunState[] = []) {
    for (const child of saved) this.children.set(`${child.kind}:${child.id}`, child);
  }

  /**
   * Records a child or its new status.
   * @throws ConfigurationError `invalid_child_run` naming what is wrong.
   */
  record(child: ChildRunState): void {
    const label =
      typeof child.label === "string" && child.label.length > MAX_LABEL ? child.label.slice(0, MAX_LABEL) : child.label;
    const entry: ChildRunState = {
      kind: child.kind,
      id: child.id,
      status: child.status,
      startedAt: child.startedAt,
      ...(label === undefined ? {} : { label }),
      ...(child.finishedAt === undefined ? {} : { finishedAt: child.finishedAt }),
    };
    const problem = problemOf(entry);
    if (problem !== undefined) {
      throw new ConfigurationError("invalid_child_run", `Invalid child run: ${problem}.`, { data: { field: "child" } });
    }
    const key = `${entry.kind}:${entry.id}`;
    this.children.delete(key);
    this.children.set(key, entry);
    if (this.children.size > MAX_CHILD_RUNS) this.dropOne();
  }

  /** The children, the least recently recorded first. */
  list(): readonly ChildRunState[] {
    return [...this.children.values()];
  }

  private dropOne(): void {
    for (const [key, child] of this.children) {
      if (child.status !== "running") {
        this.children.delete(key);
        return;
      }
    }
    const oldest = this.children.keys().next();
    if (oldest.done !== true) this.children.delete(oldest.value);
  }
}
