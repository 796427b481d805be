import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, open, readFile, realpath, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { toFileToolError } from "./file-errors.js";
import type { FileScope } from "./file-scope.js";

/**
 * The file scope of sandbox `"unrestricted"` and `"local"`: any path, relative ones from the root.
 * Writes are still atomic and keep the file's mode; a symlink is written through (its target is
 * replaced, the link stays), as an editor would.
 */
export function createHostFileScope(root: string): FileScope {
  const absoluteRoot = path.resolve(root);
  const absolute = (requested: string) => path.resolve(absoluteRoot, requested);
  const guarded = async <T>(requested: string, task: () => Promise<T>): Promise<T> => {
    try {
      return await task();
    } catch (error) {
      throw toFileToolError(error, requested);
    }
  };
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
        const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.part`);
        const handle = await open(temporary, "wx", 0o666);
        try {
          try {
            await fill(handle);
            await handle.sync();
          } finally {
            await handle.close();
          }
          await rename(temporary, target);
        } catch (error) {
          await unlink(temporary).catch(() => undefined);
          throw error;
        }
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
  const temporary = path.join(path.dirname(real), `.${path.basename(real)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, "wx", mode ?? existing?.mode ?? 0o666);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined || existing !== undefined) await chmod(temporary, (mode ?? existing?.mode ?? 0o666) & 0o7777);
    await rename(temporary, real);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
