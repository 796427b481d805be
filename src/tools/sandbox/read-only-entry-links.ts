import type { LinkedFile } from "./git-protection.js";
import { isInsideDirectory } from "./workspace-root.js";

/**
 * The other names, in the writable workspace, of the files of the `readOnlyPaths` entries inside
 * it (`inside`): each is to be bound read-only too. An entry is bound read-only, so a command
 * cannot hard-link its files out (`EXDEV`); but a link made before the entry was protected (by a
 * command of an earlier run without the entry, or before the host added it) is a second name of
 * the same inode on the workspace's writable bind, and a command wrote the entry's file through it.
 * Found from the spawn's walk (`linkedFiles`: every regular file with several links it met, by
 * `dev:ino`), so only names on both sides the walk reaches are matched: an entry's file in a
 * directory the walk skips (`node_modules`, past its depth or directory bounds) is not known to
 * have a name outside it.
 */
export function readOnlyEntryLinks(inside: readonly string[], linkedFiles: readonly LinkedFile[]): string[] {
  if (inside.length === 0 || linkedFiles.length === 0) return [];
  const inEntry = (file: string) => inside.some((entry) => isInsideDirectory(entry, file));
  const entryIdentities = new Set<string>();
  for (const file of linkedFiles) if (inEntry(file.path)) entryIdentities.add(file.identity);
  if (entryIdentities.size === 0) return [];
  const names: string[] = [];
  for (const file of linkedFiles) {
    if (entryIdentities.has(file.identity) && !inEntry(file.path)) names.push(file.path);
  }
  return names;
}
