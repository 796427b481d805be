// The real paths top-level runs' workspaces had when the runs were made. A workspace is resolved
// again at every use (so a host's workspace reached through a link, macOS `/tmp`, works), and the
// path the host gave may pass through a directory another run's sandboxed command can write: a
// run on `/repo` could replace `/repo/sub` by a link to a host directory while a run on
// `/repo/sub` is live, and that run's file tools then worked there. So each use compares the
// workspace's real path with the ones recorded at `createRun` and refuses another. Child runs
// record nothing (a model can have one made; their workspaces are held inside their parent's by
// child-workspaces.ts): only the host's own `createRun` says where a workspace is. Kept on
// `globalThis` under a registered symbol, as child-workspaces.ts's record is: the ESM and CommonJS
// copies of the package (and the tools, which resolve workspaces) must see one record.

import { processWideMap } from "../tool/process-wide-map.js";
import { nodeFs, normalizeWorkspacePath } from "./child-workspaces.js";

const PINS_KEY = Symbol.for("agent-tool-catalog.workspace-pins.v1");

/**
 * How many workspaces (as given) are remembered; past it the oldest is forgotten (a server making
 * a run per request in a fresh directory must not grow without bound, nor be refused), and a run
 * on a forgotten workspace follows it wherever it leads, as before pins existed.
 */
export const MAX_PINNED_WORKSPACES = 100_000;

/** Real paths kept per workspace: a host repointing its link between runs adds one each time. */
const MAX_REAL_PATHS_PER_WORKSPACE = 64;

function pins(): Map<string, string[]> {
  return processWideMap(PINS_KEY);
}

/**
 * Records where `workspace` (a top-level run's, as the host gave it) is on disk now. Nothing is
 * recorded without a workspace, for a relative path, when the runtime has no `node:fs` or when
 * the path cannot be resolved (`createRun` refuses those).
 */
export function pinWorkspace(workspace: string | undefined): void {
  if (workspace === undefined || !/^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(workspace)) return;
  const fs = nodeFs();
  if (fs === undefined) return;
  let real: string;
  try {
    real = normalizeWorkspacePath(fs.realpathSync(workspace));
  } catch {
    return;
  }
  const record = pins();
  const key = normalizeWorkspacePath(workspace);
  const known = record.get(key) ?? [];
  record.delete(key);
  const kept = known.filter((path) => path !== real);
  kept.push(real);
  // Most recent last, in the record and in the list, so the oldest goes first past either bound.
  record.set(key, kept.slice(-MAX_REAL_PATHS_PER_WORKSPACE));
  if (record.size > MAX_PINNED_WORKSPACES) {
    for (const oldest of record.keys()) {
      record.delete(oldest);
      break;
    }
  }
}

/**
 * The real paths `workspace` had when top-level runs on it were made, or `undefined` when none
 * was recorded (a child run's own subdirectory, a forgotten one, no `node:fs`).
 */
export function pinnedRealPaths(workspace: string): readonly string[] | undefined {
  return pins().get(normalizeWorkspacePath(workspace));
}

/**
 * True when `workspace` was recorded ({@link pinWorkspace}) and `real` (its real path now; resolved
 * here, synchronously, when not given) is none it had then: a directory on the way was replaced.
 * False when nothing was recorded or it cannot be resolved now (the caller's own look fails then).
 */
export function workspaceMoved(workspace: string, real?: string): boolean {
  const pinned = pinnedRealPaths(workspace);
  if (pinned === undefined) return false;
  let now = real;
  if (now === undefined) {
    try {
      now = nodeFs()?.realpathSync(workspace);
    } catch {
      return false;
    }
    if (now === undefined) return false;
  }
  return !pinned.includes(normalizeWorkspacePath(now));
}
