import { ConfigurationError } from "agent-tool-catalog";

/**
 * The variables `${VAR}` references may name: only what the host passes, never `process.env` itself.
 *
 * @public
 */
export type McpVariables = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` in one string of an `.mcp.json` (the forms Claude Code
 * reads). A variable the host did not pass, without a default, is an error: an empty token would
 * only fail later, at the server, with a message that hides why.
 *
 * @throws ConfigurationError `mcp_variable_missing` naming the variable and the field.
 * @public
 */
export function expandMcpVariables(
  text: string,
  variables: McpVariables,
  where: { readonly field: string; readonly path: string },
): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigurationError(
      "mcp_variable_missing",
      `${where.path}: ${where.field} uses \${${name}}, which the host did not provide (pass it in env, or write \${${name}:-default}).`,
      { data: { variable: name, field: where.field, path: where.path } },
    );
  });
}
