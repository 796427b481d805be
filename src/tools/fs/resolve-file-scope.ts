import type { ToolContext } from "agent-tool-catalog";
import { createConfinedFileScope } from "./confined-file-scope.js";
import { type FileScope, type FileScopeOptions, scopeRoot } from "./file-scope.js";
import { createHostFileScope } from "./host-file-scope.js";

/**
 * The file scope of one call: confined to the workspace under sandbox `"workspace"`, else the host's.
 *
 * @public
 */
export function resolveFileScope(context: ToolContext, options: FileScopeOptions): FileScope {
  const root = scopeRoot(context, options);
  return context.permissions.sandbox === "workspace" ? createConfinedFileScope(root) : createHostFileScope(root);
}
