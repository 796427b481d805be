import { ConfigurationError } from "../errors/configuration-error.js";
import { TOOL_PROFILE_NAMES, type ToolProfileName } from "../profiles/tool-profile.js";
import type { RunScope } from "../tool/run-scope.js";

/**
 * Checks the scope a child run narrows, field by field, before any of it is read. A scope may
 * come from JSON (a workflow checkpoint, a queue message a host stored), and a malformed field
 * must be refused, never read as something else: `allowedTools: "read"` iterated as a string is
 * the list `r`, `e`, `a`, `d` (a parent allowing one tool would give its child every tool named by
 * one of its letters), a negative or fractional `depth` lifts the bound on nested runs, and
 * permissions without `sandbox` or `approval` would be resolved to the defaults, the widest.
 * Throws `invalid_option` naming `parent.<field>`.
 */
export function checkParentScope(parent: RunScope): void {
  const scope = parent as unknown as Record<string, unknown> | null;
  if (typeof scope !== "object" || scope === null) refuse("parent", "a run or a run's scope (an object)");
  for (const field of ["allowedTools", "disabledTools"] as const) {
    const names = scope[field];
    if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === "string"))) {
      refuse(`parent.${field}`, "an array of tool names (strings)");
    }
  }
  const depth = scope.depth;
  if (typeof depth !== "number" || !Number.isSafeInteger(depth) || depth < 0) {
    refuse("parent.depth", "a whole number at least 0");
  }
  // A profile from JSON the child would present: one of the known names, or none at all.
  if (scope.profile !== undefined && !TOOL_PROFILE_NAMES.includes(scope.profile as ToolProfileName)) {
    refuse("parent.profile", `one of ${TOOL_PROFILE_NAMES.join(", ")} (or absent)`);
  }
  const permissions = scope.permissions as Record<string, unknown> | null | undefined;
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) {
    refuse("parent.permissions", "an object with sandbox and approval");
  }
  // Present and strings here; resolvePermissionConfig then refuses values it does not know.
  for (const key of ["sandbox", "approval"] as const) {
    if (typeof permissions[key] !== "string") refuse(`parent.permissions.${key}`, "given (a run's resolved permissions)");
  }
}

function refuse(field: string, what: string): never {
  throw new ConfigurationError("invalid_option", `${field} must be ${what}.`, { data: { field } });
}
