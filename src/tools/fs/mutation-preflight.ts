import path from "node:path";
import { type ToolContext, ToolError } from "agent-tool-catalog";
import type { FileScope } from "./file-scope.js";
import { guardedFileOperation } from "./file-scope-helpers.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { gitStateRefused, touchesGitState } from "./git-state-guard.js";
import { parseCodexPatch } from "./patch/codex-patch-parser.js";
import { detectPatchKind } from "./patch/detect-patch-kind.js";
import { parseUnifiedDiff } from "./patch/unified-diff-parser.js";
import { resolveFileScope } from "./resolve-file-scope.js";

/**
 * A `preflight` for a mutating file tool: the run calls it before asking for approval, so nobody
 * is asked to approve a change that the workspace confinement will refuse anyway (a path outside
 * the workspace, a symlink leading out, git state). It is the cheap lexical and `realpath` check;
 * the handler still does the race-safe one on opened descriptors.
 */
export function mutationPreflight<Input>(
  options: FileToolOptions,
  pathsOf: (input: Input) => readonly string[],
): (input: Input, context: ToolContext) => Promise<void> {
  return async (input, context) => {
    const scope = resolveFileScope(context, options);
    if (!scope.confined) return;
    for (const requested of pathsOf(input)) {
      const relative = path.relative(scope.root, path.resolve(scope.root, requested));
      if (touchesGitState(relative.split(path.sep).filter((segment) => segment !== ""))) throw gitStateRefused(requested);
      await guardedFileOperation(requested, () => scope.resolve(requested, "write"));
      await refuseGitDirectoryOfAnyName(scope, requested);
    }
  };
}

/** The paths a patch text changes (added, deleted, updated, moved to); none when it does not parse. */
export function patchPaths(patch: string): string[] {
  const parsed = detectPatchKind(patch) === "codex" ? parseCodexPatch(patch) : parseUnifiedDiff(patch);
  if (!parsed.ok) return [];
  return parsed.value.flatMap((operation) =>
    operation.type === "update" && operation.moveTo !== undefined ? [operation.path, operation.moveTo] : [operation.path],
  );
}

/**
 * Git state inside a git directory not named `.git` (the target of a `.git` file, a bare
 * repository) is found by opening the path's directories: done here too, so no approval is asked
 * for a change the handler will refuse. Any other problem (a missing directory) is the handler's.
 */
async function refuseGitDirectoryOfAnyName(scope: FileScope, requested: string): Promise<void> {
  let parent: Awaited<ReturnType<FileScope["openParent"]>>;
  try {
    parent = await scope.openParent(requested, { create: false, follow: false, mutate: true });
  } catch (error) {
    if (error instanceof ToolError && error.code === "git_metadata_refused") throw error;
    return;
  }
  await parent.close();
}
