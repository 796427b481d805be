/**
 * How a piece of run state is saved with the run (`run.toJSON()`) and restored in another
 * process. `save` must return JSON-safe data; `load` gets it back and rebuilds the value.
 * @public
 */
export interface RunStoragePersistence<Value> {
  /** The value as JSON-safe data. */
  save(value: Value): unknown;
  /** Rebuilds the value from what {@link RunStoragePersistence.save} returned; may throw on bad data. */
  load(saved: unknown): Value;
}

/**
 * A key for one piece of run-scoped state, e.g. the undo journal of the file tools. Keys are
 * objects, so two libraries can never collide on a name; a key with `persist` is saved with the
 * run under its `name` (which must then be unique and stable across versions).
 * @public
 */
export interface RunStorageKey<Value> {
  /** A name for debugging, and the name the state is saved under when it persists. */
  readonly name: string;
  /**
   * Makes the initial value the first time a run asks for it. It gets the run's storage, so a
   * child run's value can draw on its parent's (`storage.parent`), e.g. a resource budget that a
   * child run takes out of its parent's.
   */
  readonly create: (storage: RunStorage) => Value;
  /** Present when the value is saved with the run. */
  readonly persist?: RunStoragePersistence<Value> | undefined;
}

/**
 * Creates a {@link RunStorageKey}; pass `persist` to have the value saved and restored with the run.
 *
 * @public
 */
export function createRunStorageKey<Value>(
  name: string,
  create: (storage: RunStorage) => Value,
  persist?: RunStoragePersistence<Value>,
): RunStorageKey<Value> {
  return Object.freeze({ name, create, persist });
}

/**
 * Where a run's storage stands among runs.
 * @public
 */
export interface RunStorageOptions {
  /** The storage of the run this is a child run of (`createRun({ parent })`). */
  readonly parent?: RunStorage | undefined;
  /** Aborted when the run closes. @defaultValue a signal that never aborts */
  readonly lifetime?: AbortSignal | undefined;
}

/**
 * State that lives as long as one run: tools keep journals and caches here, never in globals.
 * Values of persisting keys are saved by {@link RunStorage.toJSON}; a restored storage rebuilds
 * each one lazily, when its key is first asked for, so state of tools this process does not
 * load is carried through unchanged to the next save.
 * @public
 */
export class RunStorage {
  private readonly values = new Map<RunStorageKey<unknown>, unknown>();
  private readonly saved = new Map<string, unknown>();
  /**
   * The parent run's storage, for a child run made in this process with `createRun({ parent })`
   * (a child restored from saved state, or started in another process, has none).
   */
  readonly parent: RunStorage | undefined;
  /** Aborted when the run closes. */
  readonly lifetime: AbortSignal;

  /**
   * @param saved - what an earlier {@link RunStorage.toJSON} returned
   * @param options - the parent run's storage and the run's lifetime
   */
  constructor(saved: Readonly<Record<string, unknown>> = {}, options: RunStorageOptions = {}) {
    for (const [name, value] of Object.entries(saved)) this.saved.set(name, value);
    this.parent = options.parent;
    this.lifetime = options.lifetime ?? new AbortController().signal;
  }

  /** The run's value for `key`, created (or restored) on first use. */
  get<Value>(key: RunStorageKey<Value>): Value {
    if (!this.values.has(key)) {
      const persist = key.persist;
      let value: Value | undefined;
      if (persist !== undefined && this.saved.has(key.name)) {
        try {
          value = persist.load(this.saved.get(key.name));
        } catch {
          // Unreadable saved state (another version's format) starts fresh rather than break the run.
          value = undefined;
        }
        this.saved.delete(key.name);
      }
      this.values.set(key, value === undefined ? key.create(this) : value);
    }
    return this.values.get(key) as Value;
  }

  /** The persisting values, by key name, plus saved values not restored yet. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.fromEntries(this.saved);
    for (const [key, value] of this.values) {
      if (key.persist !== undefined) out[key.name] = key.persist.save(value);
    }
    return out;
  }
}
