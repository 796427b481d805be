import path from "node:path";
import { lstatSync, readlinkSync } from "./byte-paths.js";
import { isInsideDirectory } from "./workspace-root.js";

/** The most links followed on one route, as the kernel's own limit (ELOOP after 40). */
const MAX_LINK_HOPS = 40;

/**
 * Where the symbolic link `name` in directory `directory` (a real path inside the workspace
 * `root`) leads, resolved component by component as the kernel resolves it (links on the way
 * followed, `..` taken from where the route is then), or `undefined` when its route passes
 * outside the workspace at any step, or reaches a name that does not exist (or loops).
 *
 * Nothing outside the workspace is looked at: a step outside it, other than the workspace's own
 * ancestors on the way down to it (real directories, as `root` is a real path), ends the route.
 * `realpath` of the link answered by the host's file system: a link out to a host directory and
 * `..` back into the workspace resolved inside when the host directory existed and failed when
 * it did not, so which links a repair kept told a command whether any host path exists.
 */
export function linkRouteInside(directory: string, name: string, root: string): string | undefined {
  const hops = { left: MAX_LINK_HOPS };
  return followLink(path.join(directory, name), root, hops);
}

function followLink(link: string, root: string, hops: { left: number }): string | undefined {
  if (--hops.left < 0) return undefined;
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return undefined;
  }
  const end = walkRoute(path.dirname(link), target, root, hops);
  return typeof end === "string" ? undefined : end.at;
}

/**
 * Follows `value` from directory `start` component by component, links on the way included:
 * where it ends inside the workspace (`at`), `"out"` when a step (or a link on the way, which
 * ends at nothing too) leaves it, `"missing"` when a name on the way does not exist.
 */
function walkRoute(start: string, value: string, root: string, hops: { left: number }): { at: string } | "out" | "missing" {
  let current = value.startsWith("/") ? "/" : start;
  for (const part of value.split("/")) {
    if (part === "" || part === ".") continue;
    current = part === ".." ? path.dirname(current) : path.join(current, part);
    if (!isInsideDirectory(root, current)) {
      if (isInsideDirectory(current, root)) continue; // an ancestor of the workspace, on the way down to it
      return "out";
    }
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return "missing";
    if (stats.isSymbolicLink()) {
      const next = followLink(current, root, hops);
      if (next === undefined) return "out";
      current = next;
    }
  }
  return isInsideDirectory(root, current) ? { at: current } : "out";
}

/**
 * True when the path `value`, taken from directory `start` (a real path inside the workspace
 * `root`), names a place inside the workspace as written but its route, resolved component by
 * component as {@link linkRouteInside} does, leaves the workspace through a link: a `.git` file's
 * `gitdir:` naming `../hostgit`, where `hostgit` is a link to a host repository's git directory.
 * A name that does not exist on the way, or a value naming an outside place as written, is false.
 */
export function pathRelinkedOut(start: string, value: string, root: string): boolean {
  if (!isInsideDirectory(root, path.resolve(start, value))) return false;
  // A link on the way leading out, or to nothing: only the first is a relink, but neither is looked at further.
  return walkRoute(start, value, root, { left: MAX_LINK_HOPS }) === "out";
}

/**
 * Where the path `value`, taken from directory `start` (a real path inside the workspace
 * `root`), leads as the kernel resolves it (links on the way followed, `..` taken from where the
 * route is then, never from the spelling): its end when every step stays inside the workspace
 * and exists, else `undefined`. `lnk/../.git` with `lnk` a link to a host repository's `.git`
 * names the workspace's `.git` as written and the host repository as git opens it (round 43).
 */
export function routeEnd(start: string, value: string, root: string): string | undefined {
  const end = walkRoute(start, value, root, { left: MAX_LINK_HOPS });
  return typeof end === "string" ? undefined : end.at;
}

/**
 * False when the path `value`, taken from directory `start` (a real path inside the workspace
 * `root`), leaves the workspace as written or on its route (a link on the way leading out or to
 * nothing, `..` after a link taken from the link's target); a name missing on the way ends the
 * route inside (the kernel cannot pass it either; a later command making it is judged after that
 * command).
 */
export function routeStaysInside(start: string, value: string, root: string): boolean {
  if (!isInsideDirectory(root, path.resolve(start, value))) return false;
  return walkRoute(start, value, root, { left: MAX_LINK_HOPS }) !== "out";
}
