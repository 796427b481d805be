/**
 * How a tool reaches the model in a run:
 * - `essential`: sent eagerly with its schema, callable with no discovery step;
 * - `discoverable`: not sent at first; reached through `find_tool` (or a provider's native tool
 *   search), or, in a listing run, named in the system-prompt index and called through `toolbox`;
 * - `off`: not sent and not callable.
 * @public
 */
export type LoadMode = "essential" | "discoverable" | "off";

/**
 * The load modes, for validation.
 *
 * @public
 */
export const LOAD_MODES: readonly LoadMode[] = ["essential", "discoverable", "off"];

/**
 * A tool's place in a run: its mode, and for discoverable tools whether the index lists it.
 *
 * @public
 */
export interface ToolPlacement {
  /** The load mode. */
  readonly mode: LoadMode;
  /** True when a listing run names it in the index and reaches it through `toolbox`. */
  readonly listed: boolean;
}
