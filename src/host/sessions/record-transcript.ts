import { jsonAtAnyDepth, type Run, type ToolCallResult } from "agent-tool-catalog";
import type { TranscriptEntry, TranscriptStore } from "./transcript-store.js";

/** The text of a result as the model read it. */
function resultText(result: ToolCallResult): string {
  if (!result.ok) return `error ${result.error.code}: ${result.error.message}`;
  return typeof result.output === "string" ? result.output : (JSON.stringify(result.output) ?? "");
}

/**
 * Records a run's tool calls and results in `store` as they happen (from the run's events), so
 * `session_search` finds them. Messages are the host's to add (`store.append({ kind: "message" })`):
 * the library never sees them. Stops with the run's close, or when the returned function is called.
 * A store that fails (rejects, or throws before returning a promise) never fails the call it
 * records: `onError` hears of it.
 * @public
 */
export function recordRunTranscript(
  run: Run,
  store: TranscriptStore,
  options: { readonly now?: () => number; readonly onError?: (error: unknown) => void } = {},
): () => void {
  const now = options.now ?? Date.now;
  // A store that fails must not fail the call it records: the host hears of it, the model does not.
  // Also when `append` throws before returning a promise (a database client already closed), or
  // the entry cannot be built: thrown in an event listener, that would reach the process as an
  // uncaught exception.
  const failed = (error: unknown) => options.onError?.(error);
  const append = (entry: () => TranscriptEntry) => {
    try {
      Promise.resolve(store.append(entry())).catch(failed);
    } catch (error) {
      failed(error);
    }
  };
  const offCalled = run.events.on("tool.called", (event) => {
    append(() => ({
      runId: event.runId,
      kind: "tool_call",
      toolName: event.name,
      callId: event.callId,
      // Any depth: arguments nested past JSON.stringify's reach lost their entry (round 46).
      text: jsonAtAnyDepth(event.input) ?? "",
      at: now(),
    }));
  });
  const offResult = run.events.on("tool.result", (event) => {
    append(() => ({
      runId: event.runId,
      kind: "tool_result",
      toolName: event.name,
      callId: event.callId,
      text: resultText(event.result),
      at: now(),
    }));
  });
  const stop = () => {
    offCalled();
    offResult();
  };
  const removeDisposer = run.addDisposer(stop);
  return () => {
    removeDisposer();
    stop();
  };
}
