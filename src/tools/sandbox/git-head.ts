import { closeSync, constants, lstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { fsPath } from "./byte-paths.js";

/**
 * True when `content` (the first bytes of a `HEAD` that is not a symlink) is what git accepts as
 * `HEAD` when it decides whether a directory is a git directory (`validate_headref` in git's
 * setup.c): `ref:` then any of git's spaces (space, tab, CR, LF, or none at all) then `refs/`, or
 * a detached object id (40 hex digits first; git parses the prefix of any length it knows, SHA-1
 * or SHA-256, in either case, and looks no further). Git accepts `ref:refs/heads/main` as well as
 * `ref: refs/heads/main`: a stricter test overlooked a repository host git then ran in.
 */
export function isGitHeadContent(content: Buffer | string): boolean {
  const text = typeof content === "string" ? content : content.toString("latin1");
  return /^(?:ref:[ \t\r\n]*refs\/|[0-9a-fA-F]{40})/.test(text);
}

/** True when a symlink `HEAD`'s target is what git accepts (`validate_headref`): it starts with `refs/`. */
export function isGitHeadLinkTarget(target: Buffer | string): boolean {
  return (typeof target === "string" ? target : target.toString("latin1")).startsWith("refs/");
}

/**
 * True when `head` is a `HEAD` git accepts (`validate_headref`, see {@link isGitHeadContent}): a
 * symlink whose target starts with `refs/` (never followed), or a file (never waited on when a
 * pipe) whose first bytes git accepts. How the git-state scan, the walk after each command and
 * the file tools recognise a git directory of any name.
 */
export function headHoldsGit(given: string | Buffer): boolean {
  const head = typeof given === "string" ? fsPath(given) : given;
  try {
    if (lstatSync(head, { throwIfNoEntry: false })?.isSymbolicLink() === true) {
      return isGitHeadLinkTarget(readlinkSync(head, { encoding: "buffer" }));
    }
    const descriptor = openSync(head, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      // git reads up to 255 bytes; the prefixes it checks fit in far fewer.
      const buffer = Buffer.alloc(255);
      return isGitHeadContent(buffer.subarray(0, readSync(descriptor, buffer, 0, 255, 0)));
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return false;
  }
}
