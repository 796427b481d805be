import type { ToolContext } from "agent-tool-catalog";
import type { HostRun } from "./host-run.js";

/**
 * A run that can be tracked: a {@link HostRun} that announces its end (a core `Run` does).
 *
 * @public
 */
export interface TrackableRun extends HostRun {
  /** Registers cleanup for when the run closes; returns the function that unregisters it. */
  addDisposer(dispose: () => unknown): () => void;
}

/**
 * The host's map from run id to run, the in-process {@link RunResolver} for the skill and recipe
 * tools. `track` a run when you create it; it is forgotten when it closes.
 *
 * @example
 * ```ts
 * const runs = new RunDirectory();
 * const registry = createRegistry({ groups: [recipeToolGroup({ recipesDir, resolveRun: runs.resolve })] });
 * const run = runs.track(registry.createRun());
 * ```
 * @public
 */
export class RunDirectory {
  private readonly runs = new Map<string, HostRun>();

  /** Starts tracking `run` until it closes (or {@link RunDirectory.forget}); returns it. */
  track<Tracked extends TrackableRun>(run: Tracked): Tracked {
    this.runs.set(run.id, run);
    run.addDisposer(() => this.forget(run.id));
    return run;
  }

  /** Stops tracking a run. */
  forget(runId: string): void {
    this.runs.delete(runId);
  }

  /** The run of a call, as a {@link RunResolver} (bound: pass it around as is). */
  readonly resolve = (context: ToolContext): HostRun | undefined => this.runs.get(context.runId);
}
