import type { Run } from "agent-tool-catalog";
import { systemWithIndex } from "../shared/system-prompt.js";

/**
 * A text block of a system prompt.
 *
 * @public
 */
export interface AnthropicTextBlockParam {
  /** Discriminant. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/**
 * The `system` of a Messages request: the host's system prompt, then the run's index
 * (`run.systemPromptIndex()`, the tools a listing run names and reaches through `toolbox`).
 * A string prompt gets the index after a blank line; a block prompt gets it as one more text block
 * at the end, so `cache_control` on the host's blocks keeps its place. `anthropicToolLoop` sends it
 * by itself; call it when you write the loop yourself.
 *
 * @example
 * ```ts
 * await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: anthropicTools(run), system: anthropicSystem(run, "You are a careful assistant.") });
 * ```
 * @public
 */
export function anthropicSystem(run: Run, system: string): string;
/** @public */
export function anthropicSystem(run: Run, system?: string): string | undefined;
/** @public */
export function anthropicSystem(run: Run, system: readonly AnthropicTextBlockParam[]): AnthropicTextBlockParam[];
/** @public */
export function anthropicSystem(
  run: Run,
  system?: string | readonly AnthropicTextBlockParam[],
): string | AnthropicTextBlockParam[] | undefined;
/** @public */
export function anthropicSystem(
  run: Run,
  system?: string | readonly AnthropicTextBlockParam[],
): string | AnthropicTextBlockParam[] | undefined {
  if (typeof system === "string") return systemWithIndex(run, system) ?? system;
  if (system === undefined) return systemWithIndex(run, undefined);
  const index = run.systemPromptIndex();
  return index === undefined ? [...system] : [...system, { type: "text", text: index }];
}
