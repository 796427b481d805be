import { closeSync, constants, openSync, readSync } from "node:fs";

/** What git writes in `HEAD`: a symbolic ref, or an object id (SHA-1 or SHA-256). */
const GIT_HEAD_CONTENT = /^(?:ref: refs\/|[0-9a-f]{40}(?:[0-9a-f]{24})?\s*$)/;

/**
 * True when the regular file `head` (not followed when a symlink, never waited on when a pipe)
 * holds what git writes in `HEAD`: how the git-state scan recognises a git directory of any name.
 */
export function headHoldsGit(head: string | Buffer): boolean {
  try {
    const descriptor = openSync(head, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(128);
      return GIT_HEAD_CONTENT.test(buffer.subarray(0, readSync(descriptor, buffer, 0, 128, 0)).toString("utf8"));
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return false;
  }
}
