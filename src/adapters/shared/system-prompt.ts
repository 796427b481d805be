import type { Run } from "agent-tool-catalog";

/**
 * The host's system prompt followed by the run's index (`run.systemPromptIndex()`: the tools a
 * listing run names and reaches through `toolbox`), a blank line apart; `undefined` when both are
 * missing. Without the index the model cannot know the listed tools exist.
 */
export function systemWithIndex(run: Run, system: string | undefined): string | undefined {
  const parts = [system, run.systemPromptIndex()].filter((part): part is string => part !== undefined && part !== "");
  return parts.length === 0 ? undefined : parts.join("\n\n");
}
