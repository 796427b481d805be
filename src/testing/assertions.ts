import type { LoopTranscript, RecordedCall } from "./run-tool-loop.js";
import { ScriptMismatchError } from "./scripted-model.js";

/**
 * Fails unless every one of `names` was sent to the model at `turn` (1-based).
 *
 * @public
 */
export function expectToolsVisible(transcript: LoopTranscript, turn: number, names: readonly string[]): void {
  const record = transcript.turns[turn - 1];
  if (record === undefined) throw new ScriptMismatchError(`There was no turn ${turn}; the loop had ${transcript.turns.length}.`);
  const missing = names.filter((name) => !record.visibleTools.includes(name));
  if (missing.length > 0) {
    throw new ScriptMismatchError(
      `Turn ${turn}: ${missing.join(", ")} not visible; visible were ${record.visibleTools.join(", ")}.`,
    );
  }
}

/**
 * Fails if any of `names` was sent to the model at `turn` (1-based).
 *
 * @public
 */
export function expectToolsHidden(transcript: LoopTranscript, turn: number, names: readonly string[]): void {
  const record = transcript.turns[turn - 1];
  if (record === undefined) throw new ScriptMismatchError(`There was no turn ${turn}; the loop had ${transcript.turns.length}.`);
  const shown = names.filter((name) => record.visibleTools.includes(name));
  if (shown.length > 0) throw new ScriptMismatchError(`Turn ${turn}: ${shown.join(", ")} should be hidden but were sent.`);
}

/**
 * The calls of `name` (that succeeded, unless `includeFailures`); fails when there is none.
 * @public
 */
export function expectCalled(
  transcript: LoopTranscript,
  name: string,
  options: { includeFailures?: boolean } = {},
): RecordedCall[] {
  const matching = transcript.calls.filter((call) => call.name === name && (options.includeFailures === true || call.result.ok));
  if (matching.length === 0) {
    const made = transcript.calls.map((call) => `${call.name}(${call.result.ok ? "ok" : call.result.error.code})`).join(", ");
    throw new ScriptMismatchError(
      `Expected a ${options.includeFailures === true ? "" : "successful "}call of "${name}"; calls were: ${made || "none"}.`,
    );
  }
  return matching;
}
