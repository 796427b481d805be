import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { lstat, mkdir, unlink } from "node:fs/promises";
import path from "node:path";
import { openConfined, resolveInWorkspace } from "../sandbox/path-confinement.js";
import { writeFileAtomic } from "../sandbox/write-file-atomic.js";
import type { FileScope } from "./file-scope.js";
import { guardedFileOperation, replaceThroughTemporary, temporaryPathBeside } from "./file-scope-helpers.js";

/**
 * The file scope of sandbox `"workspace"`: every path is resolved and every open is verified
 * inside the workspace (symlinks out, hard links, FIFOs and devices refused).
 */
export function createConfinedFileScope(workspace: string): FileScope {
  const root = path.resolve(workspace);
  const display = (absolute: string) => {
    const relative = path.relative(root, absolute);
    return relative === "" ? "." : relative.startsWith("..") ? absolute : relative;
  };
  const guarded = guardedFileOperation;
  return {
    root,
    confined: true,
    display,
    resolve: (requested, intent) => resolveInWorkspace(root, requested, intent),
    read: (requested) =>
      guarded(requested, async () => {
        const handle = await openConfined(root, requested, "r");
        try {
          return await handle.readFile();
        } finally {
          await handle.close();
        }
      }),
    stat: async (requested): Promise<Stats | undefined> => {
      const resolved = await resolveInWorkspace(root, requested, "read");
      return lstat(resolved).catch(() => undefined);
    },
    write: (requested, data, options = {}) =>
      guarded(requested, async () => {
        await writeFileAtomic(root, requested, data, options.mode === undefined ? {} : { mode: options.mode });
      }),
    remove: (requested) =>
      guarded(requested, async () => {
        await unlink(await resolveInWorkspace(root, requested, "write"));
      }),
    replaceStreaming: (requested, fill) =>
      guarded(requested, async () => {
        const target = await resolveInWorkspace(root, requested, "write");
        const temporary = temporaryPathBeside(target);
        const handle = await openConfined(root, temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
        // The target is checked again right before the rename: the tree may have changed meanwhile.
        await replaceThroughTemporary(temporary, target, handle, fill, () => resolveInWorkspace(root, requested, "write"));
      }),
    makeDirectory: (requested) =>
      guarded(requested, async () => {
        await mkdir(await resolveInWorkspace(root, requested, "write"), { recursive: true });
      }),
  };
}
