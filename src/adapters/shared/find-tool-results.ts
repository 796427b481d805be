import { FIND_TOOL_NAME, type Run } from "agent-tool-catalog";
import { field, isObject } from "./json-fields.js";

/**
 * The names a `find_tool` result activated, read from its text as the model saw it (the JSON of
 * the result, or the parsed object): `activated[].name`. Anything else (an error, text that is not
 * JSON) activated nothing.
 */
export function activatedByFindTool(output: unknown): string[] {
  let value = output;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  if (!isObject(value)) return [];
  const activated = field(value, "activated");
  if (!Array.isArray(activated)) return [];
  return activated.flatMap((entry) => {
    const name = isObject(entry) ? field(entry, "name") : undefined;
    return typeof name === "string" ? [name] : [];
  });
}

/** Activates `names` in `run` as `find_tool` did (same `via`, same order); returns those callable now. */
export function replayFindTool(run: Run, names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const outcome = run.activate(names, FIND_TOOL_NAME);
  return [...outcome.activated, ...outcome.alreadyAvailable];
}
