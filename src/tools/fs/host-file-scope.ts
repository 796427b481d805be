import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, open, readFile, realpath, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { FileScope } from "./file-scope.js";
import { guardedFileOperation, replaceThroughTemporary, temporaryPathBeside } from "./file-scope-helpers.js";

/**
 * The file scope of sandbox `"unrestricted"` and `"local"`: any path, relative ones from the root.
 * Writes are still atomic and keep the file's mode; a symlink is written through (its target is
 * replaced, the link stays), as an editor would.
 */
export function createHostFileScope(root: string): FileScope {
  const absoluteRoot = path.resolve(root);
  const absolute = (requested: string) => path.resolve(absoluteRoot, requested);
  const guarded = guardedFileOperation;
  return {
    root: absoluteRoot,
    confined: false,
    display: (target) => {
      const relative = path.relative(absoluteRoot, target);
      return relative === "" ? "." : relative.startsWith("..") || path.isAbsolute(relative) ? target : relative;
    },
    resolve: async (requested) => absolute(requested),
    read: (requested) => guarded(requested, () => readFile(absolute(requested))),
    stat: async (requested): Promise<Stats | undefined> => lstat(absolute(requested)).catch(() => undefined),
    write: (requested, data, options = {}) => guarded(requested, () => writeAtomically(absolute(requested), data, options.mode)),
    remove: (requested) => guarded(requested, () => unlink(absolute(requested))),
    replaceStreaming: (requested, fill) =>
      guarded(requested, async () => {
        const target = await realpath(absolute(requested)).catch(() => absolute(requested));
        const temporary = temporaryPathBeside(target);
        await replaceThroughTemporary(temporary, target, await open(temporary, "wx", 0o666), fill);
      }),
    makeDirectory: (requested) =>
      guarded(requested, async () => {
        await mkdir(absolute(requested), { recursive: true });
      }),
  };
}

async function writeAtomically(target: string, data: string | Uint8Array, mode: number | undefined): Promise<void> {
  const real = await realpath(target).catch(() => target);
  const existing = await stat(real).catch(() => undefined);
  if (existing?.isDirectory() === true) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
  const temporary = temporaryPathBeside(real);
  const handle = await open(temporary, "wx", mode ?? existing?.mode ?? 0o666);
  // The umask applied at open: set the kept (or asked) mode exactly before the rename.
  const keepMode = async () => {
    if (mode !== undefined || existing !== undefined) await chmod(temporary, (mode ?? existing?.mode ?? 0o666) & 0o7777);
  };
  await replaceThroughTemporary(temporary, real, handle, (opened) => opened.writeFile(data), keepMode);
}
