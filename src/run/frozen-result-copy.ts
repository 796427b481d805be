import { frozenEventCopy } from "../policy/frozen-event-copy.js";
import type { ToolCallResult } from "../tool/tool-call-result.js";

/**
 * The copy of a call's result that the `tool.result` and `tool.error` events carry, frozen at every
 * level. Redaction ran before the events: handing listeners the object `run.call` returns let one
 * (a logger masking in place, a hostile plugin) rewrite what the model got after it, put a secret
 * back or flip `ok`. One copy serves every listener of both buses, frozen, so one listener cannot
 * change what the next one sees either. The caller's own result stays as mutable as it was.
 * Results are JSON data (outputs pass `toJsonSafe`, content parts are strings). Made only when
 * someone listens; freezing is most of the cost: 76 ms of CPU for a 1.39 MB output of 80,000
 * objects (the copy alone 21 ms, `JSON.stringify` 16 ms; median of 3, load 24). An object output
 * over `condenseThreshold` (40,000 characters by default) is already a string here.
 */
export function frozenResultCopy(result: ToolCallResult): ToolCallResult {
  return frozenEventCopy(result);
}
