import { ConfigurationError } from "../errors/configuration-error.js";
import { closestNames } from "../tool/closest-names.js";
import type { ApprovalPolicy, PermissionConfig, ResolvedPermissionConfig, SandboxScope } from "../tool/permissions.js";

export type { ApprovalPolicy, PermissionConfig, ResolvedPermissionConfig, SandboxScope } from "../tool/permissions.js";

/**
 * The defaults: `{ sandbox: "unrestricted", approval: "none" }`, as the spec says.
 *
 * @public
 */
export const DEFAULT_PERMISSIONS: ResolvedPermissionConfig = Object.freeze({
  sandbox: "unrestricted",
  approval: "none",
  workspace: undefined,
});

const SANDBOX_SCOPES: readonly SandboxScope[] = ["unrestricted", "local", "workspace"];
const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ["none", "destructive", "all"];
const PERMISSION_FIELDS: readonly string[] = ["sandbox", "approval", "workspace"];

/**
 * Applies defaults and checks every field.
 * @throws ConfigurationError `invalid_permission_config` naming the field and the allowed values.
 * @public
 */
export function resolvePermissionConfig(config: PermissionConfig | undefined): ResolvedPermissionConfig {
  if (config === undefined) return DEFAULT_PERMISSIONS;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw invalid(
      "permissions",
      `must be an object, got ${config === null ? "null" : Array.isArray(config) ? "an array" : typeof config}`,
    );
  }
  // A misspelled field would silently leave its default (no sandbox, no approval): refuse it.
  for (const key of Object.keys(config)) {
    if (PERMISSION_FIELDS.includes(key)) continue;
    const closest = closestNames(key, PERMISSION_FIELDS, 1);
    throw invalid(
      `permissions.${key}`,
      `is not a permission field${closest.length > 0 ? `; did you mean "${closest[0]}"?` : ` (fields: ${PERMISSION_FIELDS.join(", ")})`}`,
    );
  }
  // null is not "unset": a JSON config's `"approval": null` read as the default turned approvals
  // off without a word (as `runLimits.waitSeconds: null` was read as its default).
  for (const field of PERMISSION_FIELDS) {
    if ((config as Record<string, unknown>)[field] === null)
      throw invalid(`permissions.${field}`, "must not be null (leave it out for the default)");
  }
  const sandbox = config.sandbox ?? DEFAULT_PERMISSIONS.sandbox;
  if (!SANDBOX_SCOPES.includes(sandbox)) {
    throw invalid("permissions.sandbox", `must be one of ${SANDBOX_SCOPES.join(", ")}; got ${JSON.stringify(sandbox)}`);
  }
  const approval = config.approval ?? DEFAULT_PERMISSIONS.approval;
  if (!APPROVAL_POLICIES.includes(approval)) {
    throw invalid("permissions.approval", `must be one of ${APPROVAL_POLICIES.join(", ")}; got ${JSON.stringify(approval)}`);
  }
  const { workspace } = config;
  if (workspace !== undefined && (typeof workspace !== "string" || workspace === "")) {
    throw invalid("permissions.workspace", "must be a non-empty path");
  }
  if (sandbox === "workspace" && workspace === undefined) {
    throw invalid("permissions.workspace", 'is required when sandbox is "workspace"');
  }
  return Object.freeze({ sandbox, approval, workspace });
}

function invalid(field: string, problem: string): ConfigurationError {
  return new ConfigurationError("invalid_permission_config", `${field} ${problem}.`, { data: { field } });
}
