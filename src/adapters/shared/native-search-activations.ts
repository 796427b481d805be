import type { Run } from "agent-tool-catalog";

/**
 * The deferred tools a provider's native tool search has loaded in a run. The provider carries
 * their definitions in the conversation, so the adapters keep `defer_loading` on them and the
 * tool list stays byte-identical (the prompt cache survives the discovery). The run remembers
 * what activated each tool (`run.activatedBy`), so a run restored with
 * `run.restoreFromTranscript` sends the same list as the one that was lost.
 */
export class NativeSearchActivations {
  /**
   * @param via - the `via` of the activations (see the `tool.activated` event); the same value
   * `run.restoreFromTranscript` uses for this provider's search results
   */
  constructor(private readonly via: string) {}

  /** Activates `names` in `run` as loaded by this search; returns those that are callable now. */
  activate(run: Run, names: readonly string[]): string[] {
    if (names.length === 0) return [];
    const outcome = run.activate(names, this.via);
    return [...outcome.activated, ...outcome.alreadyAvailable];
  }

  /** True when the provider's search loaded `name` in `run`. */
  has(run: Run, name: string): boolean {
    return run.activatedBy(name).includes(this.via);
  }
}
