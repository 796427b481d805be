/**
 * A key for one piece of run-scoped state, e.g. the undo journal of the file tools. Keys are
 * objects, so two libraries can never collide on a name.
 */
export interface RunStorageKey<Value> {
  /** A name for debugging. */
  readonly name: string;
  /** Makes the initial value the first time a run asks for it. */
  readonly create: () => Value;
}

/** Creates a {@link RunStorageKey}. */
export function createRunStorageKey<Value>(name: string, create: () => Value): RunStorageKey<Value> {
  return Object.freeze({ name, create });
}

/** State that lives as long as one run: tools keep journals and caches here, never in globals. */
export class RunStorage {
  private readonly values = new Map<RunStorageKey<unknown>, unknown>();

  /** The run's value for `key`, created on first use. */
  get<Value>(key: RunStorageKey<Value>): Value {
    if (!this.values.has(key)) this.values.set(key, key.create());
    return this.values.get(key) as Value;
  }
}
