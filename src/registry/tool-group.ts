import type { AnyToolDefinition } from "../tool/tool-definition.js";

/**
 * A set of tools with an enabling condition, like the spec's "Cron tools: EnableCron &&
 * CronClient != nil". A group whose condition is false is absent, silently: no error, no tools.
 * @public
 */
export interface ToolGroup {
  /** The group's name, e.g. `"cron"`. */
  readonly name: string;
  /**
   * Whether the group is registered. A function is asked once, when the group is registered.
   * @defaultValue `true`
   */
  readonly enabled?: boolean | (() => boolean);
  /** The group's tools, or a function that builds them (called only when enabled). */
  readonly tools: readonly AnyToolDefinition[] | (() => readonly AnyToolDefinition[]);
}

/**
 * Identity function that types a {@link ToolGroup}.
 *
 * @public
 */
export function defineToolGroup(group: ToolGroup): ToolGroup {
  return group;
}

/** Evaluates the group's condition and, when it holds, its tools. */
export function resolveToolGroup(group: ToolGroup): readonly AnyToolDefinition[] | undefined {
  const enabled = typeof group.enabled === "function" ? group.enabled() : (group.enabled ?? true);
  if (!enabled) return undefined;
  return typeof group.tools === "function" ? group.tools() : group.tools;
}
