import { ConfigurationError } from "../errors/configuration-error.js";

/** The serialized form of an {@link ActivationTracker}. */
export interface ActivationTrackerState {
  /** Format version. */
  readonly version: 1;
  /** Activated tool names, in activation order. */
  readonly activated: readonly string[];
}

/**
 * The deferred tools one run has activated. Activation is idempotent and lasts for the whole run
 * (every later turn); the order of first activation is kept, so that the tool list a provider
 * sees only grows at its end (which keeps prompt caches warm).
 */
export class ActivationTracker {
  private readonly names = new Set<string>();
  private changeCount = 0;

  constructor(activated: Iterable<string> = []) {
    for (const name of activated) this.names.add(name);
  }

  /** Restores a tracker from {@link ActivationTracker.toJSON} output. */
  static fromJSON(state: unknown): ActivationTracker {
    const candidate = state as Partial<ActivationTrackerState> | null;
    if (
      typeof candidate !== "object" ||
      candidate === null ||
      candidate.version !== 1 ||
      !Array.isArray(candidate.activated) ||
      !candidate.activated.every((name) => typeof name === "string")
    ) {
      throw new ConfigurationError(
        "invalid_activation_state",
        "Activation state must be { version: 1, activated: string[] } as written by ActivationTracker.toJSON().",
      );
    }
    return new ActivationTracker(candidate.activated);
  }

  /** Activates `name`; true when it was not active before. */
  activate(name: string): boolean {
    if (this.names.has(name)) return false;
    this.names.add(name);
    this.changeCount++;
    return true;
  }

  /** Deactivates `name`; true when it was active. */
  deactivate(name: string): boolean {
    const removed = this.names.delete(name);
    if (removed) this.changeCount++;
    return removed;
  }

  /** True when `name` is active. */
  isActive(name: string): boolean {
    return this.names.has(name);
  }

  /** Active names in activation order. */
  list(): string[] {
    return [...this.names];
  }

  /** How many names are active. */
  get size(): number {
    return this.names.size;
  }

  /** Increases on every change; lets views cache what they derive from the set. */
  get version(): number {
    return this.changeCount;
  }

  /** The serializable state. */
  toJSON(): ActivationTrackerState {
    return { version: 1, activated: this.list() };
  }
}
