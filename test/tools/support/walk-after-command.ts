import { closeSync, constants, openSync } from "node:fs";
import { type gitProtection, gitScanCounts } from "../../../src/tools/sandbox/git-protection.js";
import { type NewGitDirectoryRepairs, repairNewGitDirectories } from "../../../src/tools/sandbox/new-git-directories.js";

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Runs the host's walk after a command in `workspace` that started with `protection` (the
 * workspace's and the git directories' handles opened now, as at spawn, and closed after): what
 * it repaired, and how many directories it listed and reused from the spawn scan's listings.
 */
export function walkAfterCommand(
  workspace: string,
  protection: ReturnType<typeof gitProtection>,
): { repairs: NewGitDirectoryRepairs; listed: number; reused: number } {
  const root = openSync(workspace, DIRECTORY_FLAGS);
  const held = new Map(
    protection.gitDirectories.map((directory) => [directory, { descriptor: openSync(directory, DIRECTORY_FLAGS) }]),
  );
  const before = { ...gitScanCounts };
  try {
    const repairs = repairNewGitDirectories(
      { descriptor: root, shown: workspace, at: (name) => `/proc/self/fd/${root}/${name}` },
      new Set(protection.gitDirectories),
      held,
      new Date(),
    );
    return {
      repairs,
      listed: gitScanCounts.walkListed - before.walkListed,
      reused: gitScanCounts.walkReused - before.walkReused,
    };
  } finally {
    closeSync(root);
    for (const handle of held.values()) closeSync(handle.descriptor);
  }
}
