import type { AnyToolDefinition } from "../tool/tool-definition.js";

/**
 * The name of the listing-mode gateway tool (`toolbox`).
 *
 * @public
 */
export const TOOLBOX_TOOL_NAME = "toolbox";

const metaTools = new WeakSet<object>();

/**
 * Marks a definition as a catalog meta tool (`find_tool`, `toolbox`): it only finds, describes
 * or forwards to other tools and acts on nothing itself, so the approval policy never asks for
 * it. A call forwarded by `toolbox` is asked for once, as the tool that acts.
 */
export function markMetaTool<T extends AnyToolDefinition>(definition: T): T {
  metaTools.add(definition);
  return definition;
}

/** True for the registry's own meta tools (never for a host tool of the same name). */
export function isMetaTool(definition: AnyToolDefinition): boolean {
  return metaTools.has(definition);
}
