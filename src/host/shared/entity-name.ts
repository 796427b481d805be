import { ToolError } from "agent-tool-catalog";

/**
 * Names of profiles, skills, recipes and workflows: they become file and folder names, so they
 * are lower-case letters, digits, `-` and `_` only. No dots or slashes means no path traversal
 * and no hidden files; lower case means no two names collide on a case-insensitive disk.
 * @public
 */
export const ENTITY_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Checks a name the model gave for a file-backed entity.
 * @throws ToolError `invalid_name` saying what a name may contain.
 */
export function checkEntityName(kind: string, name: string): string {
  if (ENTITY_NAME_PATTERN.test(name)) return name;
  throw new ToolError(
    "invalid_name",
    `${kind} name ${JSON.stringify(name)} is not valid: use 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit (no dots, slashes or spaces).`,
    { hint: `Pick a name like "my-${kind.toLowerCase()}".`, data: { name } },
  );
}
