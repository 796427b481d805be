import path from "node:path";
import { type ToolContext, ToolError } from "agent-tool-catalog";
import { guardedFileOperation } from "./file-scope-helpers.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { gitStateRefused, touchesGitState } from "./git-state-guard.js";
import { inParallel } from "./in-parallel.js";
import { openParentsOf } from "./parent-batch.js";
import { detectPatchKind } from "./patch/detect-patch-kind.js";
import { parsePatch } from "./patch/parse-patch.js";
import { relativeBelow } from "./relative-below.js";
import { resolveFileScope } from "./resolve-file-scope.js";

/**
 * A `preflight` for a mutating file tool: the run calls it before asking for approval, so nobody
 * is asked to approve a change that the workspace confinement will refuse anyway (a path outside
 * the workspace, a symlink leading out, git state). It is the cheap lexical and `realpath` check;
 * the handler still does the race-safe one on opened descriptors.
 *
 * `handlerWalksFirst(input)`: true when the handler itself opens every path's directory with the
 * same checks before anything else (apply_patch's batched reads, see `PatchSession.prefetch`).
 * Then, when nobody will be asked (approval `"none"`), only the lexical git-state check is made
 * here: the walk would be made twice in a row for one answer (a fifth of a 380-file patch's time).
 */
export function mutationPreflight<Input>(
  options: FileToolOptions,
  pathsOf: (input: Input) => readonly string[],
  handlerWalksFirst: (input: Input) => boolean = () => false,
): (input: Input, context: ToolContext) => Promise<void> {
  return async (input, context) => {
    const scope = resolveFileScope(context, options);
    if (!scope.confined) return;
    const paths = pathsOf(input);
    const root = path.resolve(scope.root);
    for (const requested of paths) {
      const relative = relativeBelow(root, path.resolve(root, requested));
      if (touchesGitState(relative.split(path.sep).filter((segment) => segment !== ""))) throw gitStateRefused(requested);
    }
    // A file tool changes files: every policy but "none" asks for its approval (see `approvalRequiredBy`).
    if (context.permissions.approval === "none" && handlerWalksFirst(input)) return;
    // Every path is checked at once (a 500-file patch must not walk its paths one by one): each
    // distinct directory is opened and verified once, following a final symlink as the handler
    // does. A path whose directory opened is inside (its real directory verified on the handle,
    // any symlink on its way resolved and confined by `openParent`): resolving it again could only
    // agree. Only the others are resolved, for the exact refusal; the first path in order with a
    // problem gives the error, as a one-by-one check would.
    const opened = await openParentsOf(scope, paths, { create: false, follow: true, mutate: true });
    await Promise.all(opened.map((entry) => (entry.ok ? entry.parent.close() : undefined)));
    const resolved: unknown[] = paths.map(() => undefined);
    await inParallel(paths, async (requested, index) => {
      if (opened[index]?.ok === true) return;
      await guardedFileOperation(requested, () => scope.resolve(requested, "write")).catch((error: unknown) => {
        resolved[index] = error ?? new Error("unresolved");
      });
    });
    for (const [index, entry] of opened.entries()) {
      if (resolved[index] !== undefined) throw resolved[index];
      // Git state inside a git directory not named `.git` (the target of a `.git` file, a bare
      // repository) is found by opening the path's directories: done here too, so no approval is
      // asked for a change the handler will refuse. Any other problem (a missing directory) is the handler's.
      if (!entry.ok && entry.error instanceof ToolError && entry.error.code === "git_metadata_refused") throw entry.error;
    }
  };
}

/** The paths a patch text changes (added, deleted, updated, moved to); none when it does not parse. */
export function patchPaths(patch: string): string[] {
  const parsed = parsePatch(detectPatchKind(patch) === "codex" ? "codex" : "unified", patch);
  if (!parsed.ok) return [];
  return parsed.value.flatMap((operation) =>
    operation.type === "update" && operation.moveTo !== undefined ? [operation.path, operation.moveTo] : [operation.path],
  );
}
