/**
 * Tools that bypass `allowedTools` and any active skill constraint: the model can always ask the
 * user, find tools and invoke skills.
 * @internal
 */
export const ALWAYS_AVAILABLE_TOOLS: ReadonlySet<string> = new Set(["AskUserQuestion", "find_tool", "skill"]);
