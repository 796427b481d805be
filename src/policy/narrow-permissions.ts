import { ConfigurationError } from "../errors/configuration-error.js";
import { childWorkspaceOutside, normalizeWorkspacePath, rememberChildWorkspace } from "./child-workspaces.js";
import {
  type ApprovalPolicy,
  type PermissionConfig,
  type ResolvedPermissionConfig,
  resolvePermissionConfig,
  type SandboxScope,
} from "./permission-config.js";

/** How strict each sandbox scope is: a child run may only move up this order. */
export const SANDBOX_STRENGTH: Readonly<Record<SandboxScope, number>> = { unrestricted: 0, local: 1, workspace: 2 };
/** How strict each approval policy is: a child run may only move up this order. */
export const APPROVAL_STRENGTH: Readonly<Record<ApprovalPolicy, number>> = { none: 0, destructive: 1, all: 2 };

/**
 * The permissions of a child run (a sub-agent, a workflow step, a forked skill): what it asks for,
 * never wider than its parent's. Each axis takes the stricter of the two (sandbox
 * `unrestricted`, then `local`, then `workspace`; approval `none`, then `destructive`, then `all`); the workspace
 * is the parent's, or a directory inside it: as text once `..` is resolved (the result holds the
 * normalized path) and on disk (real paths). The pair is remembered in the process, and the
 * sandbox, the file tools and the git tools check it again each time they resolve the child's
 * workspace, since the parent's commands may later replace a directory on the way by a link.
 *
 * @throws ConfigurationError `invalid_permission_config` when the requested workspace lies
 *   outside the parent's, as text or on disk.
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
    if (workspace === undefined || workspace === parent.workspace) workspace = parent.workspace;
    else workspace = checkChildWorkspace(workspace, parent.workspace);
  }
  return resolvePermissionConfig({ sandbox, approval, ...(workspace === undefined ? {} : { workspace }) });
}

/**
 * The child's workspace, normalized, once it is shown to lie inside the parent's: as text (`..`
 * segments resolved, so `<parent>/sub/../..` is the parent's parent) and on disk (real paths, so
 * a link the parent's commands made inside the parent's workspace, `<parent>/link -> /`, does not
 * widen the child). The pair is remembered so that the sandbox and the file tools check it again
 * each time they resolve the child's workspace: a directory on the way may be replaced by a link
 * later.
 */
function checkChildWorkspace(requested: string, parentWorkspace: string): string {
  const outside = childWorkspaceOutside(requested, parentWorkspace);
  if (outside !== undefined) {
    throw new ConfigurationError(
      "invalid_permission_config",
      `permissions.workspace of a child run must be its parent's workspace (${parentWorkspace}) or inside it; got ${requested}${outside}.`,
      { data: { field: "permissions.workspace" } },
    );
  }
  const child = normalizeWorkspacePath(requested);
  if (!rememberChildWorkspace(child, normalizeWorkspacePath(parentWorkspace))) {
    throw new ConfigurationError(
      "invalid_permission_config",
      "permissions.workspace: too many distinct child-run workspaces in this process to keep checking them; reuse workspaces.",
      { data: { field: "permissions.workspace" } },
    );
  }
  return child;
}
