import { realpath } from "node:fs/promises";
import path from "node:path";
import type { FileScope, OpenParentOptions, ParentEntry } from "./file-scope.js";
import { scopeFromLocator } from "./scope-operations.js";
import { openVerifiedDirectory } from "./verified-directory.js";

/** `realpath` of the deepest existing ancestor of `absolute`, joined with the missing rest. */
export async function realExistingPrefix(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.unshift(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The file scope of sandbox `"unrestricted"` and `"local"`: any path, relative ones from the root.
 * Writes are still atomic and keep the file's mode; a symlink is written through (its target is
 * replaced, the link stays), as an editor would. Special files are refused here too.
 */
export function createHostFileScope(root: string): FileScope {
  const absoluteRoot = path.resolve(root);
  const absolute = (requested: string) => path.resolve(absoluteRoot, requested);

  async function openParent(requested: string, options: OpenParentOptions = {}): Promise<ParentEntry> {
    const { create = false, follow = true } = options;
    const target = follow ? await realExistingPrefix(absolute(requested)) : absolute(requested);
    const parentReal = await realExistingPrefix(path.dirname(target));
    const segments = parentReal.split(path.sep).filter((segment) => segment !== "");
    // Walked from "/" like a confined scope: the missing directories are made on the way.
    const directory = await openVerifiedDirectory(path.sep, segments, { create, checkInside: () => undefined });
    return { ...directory, name: path.basename(target) };
  }

  return scopeFromLocator({
    root: absoluteRoot,
    confined: false,
    display: (target) => {
      const relative = path.relative(absoluteRoot, target);
      return relative === "" ? "." : relative.startsWith("..") || path.isAbsolute(relative) ? target : relative;
    },
    resolve: async (requested) => absolute(requested),
    openParent,
    lockKey: (requested) => realExistingPrefix(absolute(requested)),
  });
}
