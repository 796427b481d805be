import path from "node:path";
import { routeStaysInside } from "./link-route.js";
import { configValueReadings } from "./pointer-readings.js";
import { isInsideDirectory } from "./workspace-root.js";

/**
 * Whether a `core.worktree` value found in a git directory the command created names a directory
 * inside the workspace, as `git submodule add` writes it (`../../../lib` from `.git/modules/lib`).
 * Host git reads and writes the work tree there: a value naming an outside directory (`/root`,
 * `../../../../home/user`, or a link in the workspace to one) has the user's `git checkout` write
 * the command's files there and `git add` read that directory into objects the next command can
 * print. Judged as git reads it: relative to the git directory (`gitDirectory`, a real path),
 * lexically and through the links on the way as they are now (routeStaysInside: `..` after a link
 * from the link's target, round 43), in git's reading and the trimmed one (configValueReadings); a value git would expand (`~/`,
 * `%(prefix)/`) or read with quotes, escapes or a comment is not judged (false).
 *
 * @param value - the value after `=`, untrimmed; `undefined` for a key with no `=`
 * @param gitDirectory - the real path of the git directory holding the config
 * @param root - the real path of the workspace root
 */
export function workTreeInside(value: string | undefined, gitDirectory: string, root: string): boolean {
  const text = value?.trim();
  if (text === undefined || text === "" || /["\\#;]/.test(text) || text.startsWith("~") || text.startsWith("%(")) return false;
  // As written, and as the kernel resolves it: `..` after a link is taken from the link's target
  // (`../d/..` with `d` a link to `/host/dir/inner` is the workspace as written, `/host/dir` to git).
  // In git's reading (a tab inside read as a space, a trailing `\v` kept) and the trimmed one.
  return configValueReadings(value ?? "").every(
    (reading) => !reading.startsWith("~") && !reading.startsWith("%(") && routeStaysInside(gitDirectory, reading, root),
  );
}

/**
 * Whether a `core.worktree` value of a git directory protected at spawn (its config the host's,
 * read-only to the command) now leads out of the workspace through a link although it names a
 * path inside it: a later command replaced the work tree it names (`tree`) with a link to a host
 * directory, so host git checks out and adds there. A value naming an outside path as written,
 * or one with quotes, escapes or a comment, is the host's own setup and not judged (false).
 */
export function workTreeRelinked(value: string | undefined, gitDirectory: string, root: string): boolean {
  const text = value?.trim();
  if (text === undefined || text === "" || /["\\#;]/.test(text) || text.startsWith("~") || text.startsWith("%(")) return false;
  if (!configValueReadings(text).some((reading) => isInsideDirectory(root, path.resolve(gitDirectory, reading)))) return false;
  return !workTreeInside(value, gitDirectory, root);
}
