import { ConfigurationError } from "../errors/configuration-error.js";
import {
  type ApprovalPolicy,
  type PermissionConfig,
  type ResolvedPermissionConfig,
  resolvePermissionConfig,
  type SandboxScope,
} from "./permission-config.js";

const SANDBOX_STRENGTH: Readonly<Record<SandboxScope, number>> = { unrestricted: 0, local: 1, workspace: 2 };
const APPROVAL_STRENGTH: Readonly<Record<ApprovalPolicy, number>> = { none: 0, destructive: 1, all: 2 };

/** True when `child` is `parent` or a directory under it (lexically, `/` or `\` separated). */
function isSameOrInside(child: string, parent: string): boolean {
  const trim = (path: string) => path.replace(/[\\/]+$/, "");
  const base = trim(parent);
  const candidate = trim(child);
  return candidate === base || candidate.startsWith(`${base}/`) || candidate.startsWith(`${base}\\`);
}

/**
 * The permissions of a child run (a sub-agent, a workflow step, a forked skill): what it asks for,
 * never wider than its parent's. Each axis takes the stricter of the two (sandbox
 * `unrestricted`, then `local`, then `workspace`; approval `none`, then `destructive`, then `all`); the workspace
 * is the parent's, or a directory inside it.
 *
 * @throws ConfigurationError `invalid_permission_config` when the requested workspace lies
 *   outside the parent's.
 * @public
 */
export function narrowPermissions(
  parent: ResolvedPermissionConfig,
  requested: PermissionConfig | undefined,
): ResolvedPermissionConfig {
  const workspaceAsked = requested?.workspace ?? parent.workspace;
  const asked = resolvePermissionConfig({
    sandbox: requested?.sandbox ?? parent.sandbox,
    approval: requested?.approval ?? parent.approval,
    ...(workspaceAsked === undefined ? {} : { workspace: workspaceAsked }),
  });
  const sandbox = SANDBOX_STRENGTH[asked.sandbox] >= SANDBOX_STRENGTH[parent.sandbox] ? asked.sandbox : parent.sandbox;
  const approval = APPROVAL_STRENGTH[asked.approval] >= APPROVAL_STRENGTH[parent.approval] ? asked.approval : parent.approval;
  let workspace = asked.workspace;
  if (parent.workspace !== undefined) {
    if (workspace === undefined) workspace = parent.workspace;
    else if (!isSameOrInside(workspace, parent.workspace)) {
      throw new ConfigurationError(
        "invalid_permission_config",
        `permissions.workspace of a child run must be its parent's workspace (${parent.workspace}) or inside it; got ${workspace}.`,
        { data: { field: "permissions.workspace" } },
      );
    }
  }
  return resolvePermissionConfig({ sandbox, approval, ...(workspace === undefined ? {} : { workspace }) });
}
