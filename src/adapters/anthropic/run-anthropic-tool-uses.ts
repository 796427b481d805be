import type { Run } from "agent-tool-catalog";
import { entries, field } from "../shared/json-fields.js";
import { callSafely } from "../shared/safe-call.js";
import type { ToolResultMediaOptions } from "../shared/tool-result-media.js";
import { readMediaOptions } from "../shared/tool-result-media.js";
import { anthropicToolResult } from "./anthropic-tool-result.js";
import type { AnthropicContentBlock, AnthropicToolResultBlock } from "./anthropic-types.js";
import { activateToolReferences } from "./tool-references.js";

/**
 * Options of {@link runAnthropicToolUses}.
 *
 * @public
 */
export interface RunAnthropicToolUsesOptions extends ToolResultMediaOptions {
  /** Cancels the calls; a cancelled call still gets its `tool_result` (an `aborted` error). */
  readonly signal?: AbortSignal;
}

/**
 * Runs the `tool_use` blocks of an assistant message through `run.call()` and returns their
 * `tool_result` blocks, for the next `user` message. Every `tool_use` gets exactly one result, in
 * the same order (the API rejects a turn that leaves one unanswered); a call the run refuses or that
 * fails comes back as a result with `is_error: true` and the run's structured error, so the model
 * can correct itself. A rich result (`toolContent`) sends its images as `image` blocks and its PDFs
 * as `document` blocks. Nothing here throws for a result: an output JSON cannot hold (a BigInt, a
 * circular object) is written as far as it can be, and a call that rejects becomes a `tool_failed`
 * result, so one bad result never loses the others.
 *
 * Calls run one after the other (approval prompts come in order). `server_tool_use` blocks are
 * skipped: the provider ran them. It first calls {@link activateToolReferences}, so a deferred tool
 * that the provider's tool search loaded in this same message is callable.
 *
 * @example
 * ```ts
 * const results = await runAnthropicToolUses(run, response.content);
 * messages.push({ role: "assistant", content: response.content }, { role: "user", content: results });
 * ```
 * @public
 */
export async function runAnthropicToolUses(
  run: Run,
  content: readonly AnthropicContentBlock[],
  options: RunAnthropicToolUsesOptions = {},
): Promise<AnthropicToolResultBlock[]> {
  // Read once: the limits checked are the limits used, and a getter cannot fail the batch midway.
  const media = readMediaOptions(options, "runAnthropicToolUses");
  const { signal } = options;
  activateToolReferences(run, content);
  const results: AnthropicToolResultBlock[] = [];
  const step = new Set<string>();
  for (const block of entries(content)) {
    // Every `tool_use` with an id is answered, whatever else it holds: a name that is not a
    // string comes back as `unknown_tool`, a missing input as `invalid_input`.
    if (field(block, "type") !== "tool_use") continue;
    const id = field(block, "id");
    if (typeof id !== "string") continue;
    const result = await callSafely(
      run,
      field(block, "name") as string,
      field(block, "input"),
      {
        callId: id,
        ...(signal === undefined ? {} : { signal }),
      },
      step,
    );
    results.push(anthropicToolResult(id, result, media));
  }
  return results;
}
