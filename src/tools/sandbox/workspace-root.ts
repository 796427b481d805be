import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { ToolError } from "../../errors/tool-error.js";
import { workspaceContainers } from "../../policy/child-workspaces.js";
import { workspaceMoved } from "../../policy/workspace-pins.js";

/**
 * The real path of a workspace directory. Every containment check compares real paths, so a
 * workspace reached through a symlink (macOS `/tmp` is `/private/tmp`) still contains its files.
 * @throws ConfigurationError `invalid_workspace` when it is not an existing absolute directory:
 *   that is the host's mistake, not the model's.
 * @throws ToolError `path_outside_workspace` when it is a child run's workspace (see
 *   `narrowPermissions`) whose real path is no longer inside its parent's, or when its real path
 *   is none it had when a run on it was made (policy/workspace-pins.ts).
 */
export async function realWorkspaceRoot(workspace: string): Promise<string> {
  if (typeof workspace !== "string" || !path.isAbsolute(workspace)) {
    throw invalidWorkspace(workspace, "must be an absolute path");
  }
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    throw invalidWorkspace(workspace, "does not exist", error);
  }
  if (!(await stat(root)).isDirectory()) throw invalidWorkspace(workspace, "is not a directory");
  // A directory on the way replaced by a link since the run was made (by another run's command,
  // whose workspace holds it) would take this run's files elsewhere: refused, not followed.
  if (workspaceMoved(workspace, root)) {
    throw new ToolError(
      "path_outside_workspace",
      `The workspace ${workspace} of this run is no longer where it was on disk when the run was made (a directory on the way was replaced by a link). Nothing was done.`,
      { hint: "Ask the user to restore the directory; this run can do nothing until then.", data: { workspace } },
    );
  }
  // A child run's workspace lies inside its parent's, where the parent's commands may have
  // replaced a directory on the way by a link since the child was made: checked at every use.
  for (const container of workspaceContainers(workspace)) {
    const outer = await realWorkspaceRoot(container);
    if (!isInsideDirectory(outer, root)) {
      throw new ToolError(
        "path_outside_workspace",
        `The workspace ${workspace} of this run must stay inside its parent run's workspace ${container}, but is now ${root} on disk (a directory on the way was replaced by a link). Nothing was done.`,
        { hint: "Ask the user to restore the directory; this run can do nothing until then.", data: { workspace } },
      );
    }
  }
  return root;
}

/**
 * True when `candidate` is `directory` or below it. Both must be absolute and normalised. A name
 * that merely starts with dots (`..hidden`) is inside; only a `..` segment leaves.
 */
export function isInsideDirectory(directory: string, candidate: string): boolean {
  const relative = path.relative(directory, candidate);
  if (relative === "") return true;
  if (path.isAbsolute(relative)) return false;
  return relative !== ".." && !relative.startsWith(`..${path.sep}`);
}

function invalidWorkspace(workspace: unknown, problem: string, cause?: unknown): ConfigurationError {
  return new ConfigurationError("invalid_workspace", `The sandbox workspace ${JSON.stringify(workspace)} ${problem}.`, {
    data: { workspace },
    cause,
  });
}
