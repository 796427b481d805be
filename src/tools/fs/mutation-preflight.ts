import path from "node:path";
import type { ToolContext } from "agent-tool-catalog";
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
