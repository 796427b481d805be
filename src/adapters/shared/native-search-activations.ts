import type { Run } from "agent-tool-catalog";

/**
 * The deferred tools a provider's native tool search has loaded, per run. The provider carries
 * their definitions in the conversation, so the adapters keep `defer_loading` on them and the
 * tool list stays byte-identical (the prompt cache survives the discovery). Keyed by run,
 * dropped with it.
 */
export class NativeSearchActivations {
  private readonly loaded = new WeakMap<Run, Set<string>>();

  /** @param via - the `via` of the activations (see the `tool.activated` event) */
  constructor(private readonly via: string) {}

  /** Activates `names` in `run` and remembers them; returns those that are callable now. */
  activate(run: Run, names: readonly string[]): string[] {
    if (names.length === 0) return [];
    const outcome = run.activate(names, this.via);
    const callable = [...outcome.activated, ...outcome.alreadyAvailable];
    let set = this.loaded.get(run);
    if (set === undefined) {
      set = new Set();
      this.loaded.set(run, set);
    }
    for (const name of callable) set.add(name);
    return callable;
  }

  /** True when the provider's search loaded `name` in `run`. */
  has(run: Run, name: string): boolean {
    return this.loaded.get(run)?.has(name) === true;
  }
}
