import { ConfigurationError } from "../errors/configuration-error.js";

/**
 * The serialized form of an {@link ActivationTracker}.
 *
 * @public
 */
export interface ActivationTrackerState {
  /** Format version. */
  readonly version: 1;
  /** Activated tool names, in activation order. */
  readonly activated: readonly string[];
  /**
   * The identity (`toolIdentity()`) of the tool each name was activated for. A restored name whose
   * tool has another identity now (removed, and a different tool registered under the name) is
   * not activated: the run reports it in `run.diagnostics()`. Absent in older states.
   */
  readonly identities?: Readonly<Record<string, string>>;
}

/**
 * The deferred tools one run has activated. Activation is idempotent and lasts for the whole run
 * (every later turn); the order of first activation is kept, so that the tool list a provider
 * sees only grows at its end (which keeps prompt caches warm).
 * @public
 */
export class ActivationTracker {
  private readonly names = new Set<string>();
  /**
   * Identities by name; a function until first needed: hashing a tool's schema in a new process
   * costs more than activating it, and most runs never save or restore their state.
   */
  private readonly identities = new Map<string, string | (() => string)>();
  private changeCount = 0;

  constructor(activated: Iterable<string> = [], identities: Readonly<Record<string, string>> = {}) {
    for (const name of activated) {
      this.names.add(name);
      const identity = Object.hasOwn(identities, name) ? identities[name] : undefined;
      if (typeof identity === "string") this.identities.set(name, identity);
    }
  }

  /** Restores a tracker from {@link ActivationTracker.toJSON} output. */
  static fromJSON(state: unknown): ActivationTracker {
    const candidate = state as Partial<ActivationTrackerState> | null;
    if (
      typeof candidate !== "object" ||
      candidate === null ||
      candidate.version !== 1 ||
      !Array.isArray(candidate.activated) ||
      !candidate.activated.every((name) => typeof name === "string") ||
      (candidate.identities !== undefined &&
        (typeof candidate.identities !== "object" ||
          candidate.identities === null ||
          !Object.values(candidate.identities).every((identity) => typeof identity === "string")))
    ) {
      throw new ConfigurationError(
        "invalid_activation_state",
        "Activation state must be { version: 1, activated: string[], identities?: Record<string, string> } as written by ActivationTracker.toJSON().",
      );
    }
    return new ActivationTracker(candidate.activated, candidate.identities ?? {});
  }

  /**
   * Activates `name`; true when it was not active before.
   * @param identity - the tool's identity, checked when the state is restored later; a function
   * is called (once) only when the identity is first needed: {@link ActivationTracker.identityOf}
   * or {@link ActivationTracker.toJSON}
   */
  activate(name: string, identity?: string | (() => string)): boolean {
    if (identity !== undefined) this.identities.set(name, identity);
    if (this.names.has(name)) return false;
    this.names.add(name);
    this.changeCount++;
    return true;
  }

  /** Deactivates `name`; true when it was active. */
  deactivate(name: string): boolean {
    const removed = this.names.delete(name);
    this.identities.delete(name);
    if (removed) this.changeCount++;
    return removed;
  }

  /** True when `name` is active. */
  isActive(name: string): boolean {
    return this.names.has(name);
  }

  /** The identity `name` was activated for, when known. */
  identityOf(name: string): string | undefined {
    const identity = this.identities.get(name);
    if (typeof identity !== "function") return identity;
    const computed = identity();
    this.identities.set(name, computed);
    return computed;
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
    const identities: Record<string, string> = {};
    for (const name of this.names) {
      const identity = this.identityOf(name);
      // Defined, not assigned: assigning "__proto__" sets the prototype and the identity is lost.
      if (identity !== undefined)
        Object.defineProperty(identities, name, { value: identity, enumerable: true, writable: true, configurable: true });
    }
    return Object.keys(identities).length === 0
      ? { version: 1, activated: this.list() }
      : { version: 1, activated: this.list(), identities };
  }
}
