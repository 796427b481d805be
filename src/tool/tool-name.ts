/**
 * The tool-name rule every provider accepts.
 *
 * @public
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Why `name` is not a valid tool name, or `undefined` when it is. */
export function explainInvalidToolName(name: unknown): string | undefined {
  if (typeof name !== "string") return `the name must be a string, got ${typeof name}`;
  if (name.length === 0) return "the name is empty";
  if (name.length > 64) return `the name is ${name.length} characters long; at most 64 are allowed`;
  const bad = [...name].find((character) => !/[a-zA-Z0-9_-]/.test(character));
  if (bad !== undefined) {
    return `the name contains ${JSON.stringify(bad)}; only letters a-z/A-Z, digits, "_" and "-" are allowed`;
  }
  return undefined;
}
