// The workspaces of child runs and the parent workspaces they must stay inside. A child's
// workspace is a path inside its parent's, where the parent's own commands (a `bash` call, a
// `monitor` process) may later replace a directory on the way by a link to anything. So the rule
// is kept as a record the sandbox and the file tools consult each time they resolve a workspace,
// not only at `createRun`. The record lives on `globalThis` under a registered symbol: the ESM and
// CommonJS copies of the package (and the tools, which resolve workspaces) must see one record.

import { processWideMap } from "../tool/process-wide-map.js";

const CONTAINERS_KEY = Symbol.for("agent-tool-catalog.child-workspaces.v1");

/** How many distinct child workspaces are remembered with their containers; past it, no new child run can be made. */
export const MAX_CHILD_WORKSPACES = 100_000;

interface NodePathAndFs {
  readonly realpathSync: (path: string) => string;
}

function containers(): Map<string, Set<string>> {
  return processWideMap(CONTAINERS_KEY);
}

/**
 * `path` with `.` and `..` segments and repeated or trailing separators removed, as text (no link
 * followed): `/ws/sub/../..` is `/`. Both `/` and `\` separate; the result uses the first kind the
 * path used. A `..` at the root stays at the root, as the kernel's does.
 */
export function normalizeWorkspacePath(path: string): string {
  const separator = path.includes("/") || !path.includes("\\") ? "/" : "\\";
  const drive = /^[A-Za-z]:[\\/]/.test(path) ? path.slice(0, 2) : "";
  const unc = drive === "" && path.startsWith("\\\\");
  const kept: string[] = [];
  for (const segment of path.slice(drive.length).split(/[\\/]+/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") kept.pop();
    else kept.push(segment);
  }
  return `${unc ? "\\\\" : drive}${separator}${kept.join(separator)}`;
}

/** True when `child` is `parent` or below it; both normalized by {@link normalizeWorkspacePath}. */
export function isWorkspaceInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const base =
    parent.endsWith("/") || parent.endsWith("\\")
      ? parent
      : `${parent}${parent.includes("\\") && !parent.includes("/") ? "\\" : "/"}`;
  return child.startsWith(base);
}

/** `node:fs`'s `realpathSync` where the runtime has it (not in a browser or an edge runtime). */
export function nodeFs(): NodePathAndFs | undefined {
  const fs = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    "node:fs",
  ) as Partial<NodePathAndFs> | undefined;
  return typeof fs?.realpathSync === "function" ? (fs as NodePathAndFs) : undefined;
}

/**
 * Where `child`'s real path leaves `parent`'s, or `undefined` when it does not, when `child`
 * cannot be resolved (nothing there to work in: the callers' existence checks refuse it), or when
 * the runtime cannot tell (no `node:fs`). A parent that cannot be resolved is left.
 */
export function realWorkspaceEscape(child: string, parent: string): string | undefined {
  const fs = nodeFs();
  if (fs === undefined) return undefined;
  let realChild: string;
  let realParent: string;
  try {
    realParent = normalizeWorkspacePath(fs.realpathSync(parent));
  } catch {
    return `its parent's workspace ${parent} cannot be resolved`;
  }
  try {
    realChild = normalizeWorkspacePath(fs.realpathSync(child));
  } catch {
    // Nothing there (or a dangling link): the caller's own existence check says so, and nothing
    // that does not exist can be worked in.
    return undefined;
  }
  return isWorkspaceInside(realChild, realParent) ? undefined : `${child} is ${realChild} on disk, outside ${realParent}`;
}

/**
 * Why `requested` may not be a workspace inside `parentWorkspace` (as text once `..` is resolved,
 * then on disk), as a suffix for a refusal message (`" (/ws)"`, `": /ws/link is / on disk, ..."`),
 * or `undefined` when it lies inside. A check only: nothing is remembered.
 */
export function childWorkspaceOutside(requested: string, parentWorkspace: string): string | undefined {
  const child = normalizeWorkspacePath(requested);
  const parent = normalizeWorkspacePath(parentWorkspace);
  if (!isWorkspaceInside(child, parent)) return child === requested ? "" : ` (${child})`;
  const left = realWorkspaceEscape(child, parent);
  return left === undefined ? undefined : `: ${left}`;
}

/**
 * Remembers that `child` (a child run's workspace) must stay inside `parent`, for
 * {@link workspaceContainers}. Both normalized.
 * @returns false when the record is full (the caller refuses the child run).
 */
export function rememberChildWorkspace(child: string, parent: string): boolean {
  if (child === parent) return true;
  const record = containers();
  const known = record.get(child);
  if (known !== undefined) {
    known.add(parent);
    return true;
  }
  if (record.size >= MAX_CHILD_WORKSPACES) return false;
  record.set(child, new Set([parent]));
  return true;
}

/** The workspaces `workspace` must stay inside because a child run was given it; empty for any other path. */
export function workspaceContainers(workspace: string): readonly string[] {
  const known = containers().get(normalizeWorkspacePath(workspace));
  return known === undefined ? [] : [...known];
}

/**
 * Where `workspace`, a child run's, has left a workspace it must stay inside (its parent's, or
 * further up), or `undefined` when it has not or is no child's (checked on disk, synchronously).
 */
export function childWorkspaceEscape(workspace: string, depth = 0): string | undefined {
  // Each container is strictly above its child as text, so this ends; the bound is a guard.
  if (depth > 64) return undefined;
  for (const container of workspaceContainers(workspace)) {
    const left = realWorkspaceEscape(normalizeWorkspacePath(workspace), container) ?? childWorkspaceEscape(container, depth + 1);
    if (left !== undefined) return left;
  }
  return undefined;
}
