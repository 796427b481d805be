/** Longest part of a name quoted back (tool names have at most 64 characters). */
const MAX_QUOTED_NAME = 80;

function quoted(name: string): string {
  return JSON.stringify(name.length > MAX_QUOTED_NAME ? `${name.slice(0, MAX_QUOTED_NAME)}…` : name);
}

/**
 * What `toolbox` says for a name it does not list. A tool the model can already call by name
 * (an eager tool, an activated one) is said to be so: "No tool named "read"" sent the model
 * looking for a tool it had, since models often route their usual tools through toolbox too.
 */
export function notListedForToolbox(
  name: string,
  callable: boolean,
  suggestions: readonly string[],
): { message: string; hint: string } {
  if (callable) {
    return {
      message: `${quoted(name)} is not listed for toolbox: it is one of your tools, called directly.`,
      hint: `Call ${quoted(name)} by name with its own arguments, not through toolbox.`,
    };
  }
  return {
    message: `No tool named ${quoted(name)} is listed for toolbox.`,
    hint:
      suggestions.length > 0
        ? `Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?`
        : "Use a name from the Additional tools list.",
  };
}
