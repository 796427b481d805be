import type { ParentEntry } from "./file-scope.js";

/** How long a preflight's directories wait for their handler (an approval in between outlasts it). */
const HAND_OFF_MS = 2_000;

interface Waiting {
  readonly parents: ReadonlyMap<string, ParentEntry>;
  readonly timer: NodeJS.Timeout;
}

/** Per workspace root, per key (the call's input, a patch text: its hash is computed once and kept by the string). */
const waiting = new Map<string, Map<string, Waiting>>();

async function closeAll(parents: ReadonlyMap<string, ParentEntry>): Promise<void> {
  await Promise.all([...parents.values()].map((parent) => parent.close()));
}

function remove(root: string, key: string): Waiting | undefined {
  const byKey = waiting.get(root);
  const left = byKey?.get(key);
  if (left === undefined) return undefined;
  byKey?.delete(key);
  if (byKey?.size === 0) waiting.delete(root);
  clearTimeout(left.timer);
  return left;
}

/**
 * Leaves the verified directories a preflight opened (by path) in the workspace `root` for the
 * handler of the same call (found by `key`, its input). The handler reuses those still provably
 * what a walk would open then (see the confined scope's `openParents`); any not taken within
 * {@link HAND_OFF_MS} (the call waited for an approval, or was refused) are closed.
 */
export function handOff(root: string, key: string, parents: ReadonlyMap<string, ParentEntry>): void {
  const earlier = remove(root, key);
  if (earlier !== undefined) void closeAll(earlier.parents);
  const timer = setTimeout(() => {
    if (waiting.get(root)?.get(key)?.parents === parents) remove(root, key);
    void closeAll(parents);
  }, HAND_OFF_MS);
  timer.unref();
  const byKey = waiting.get(root) ?? new Map<string, Waiting>();
  byKey.set(key, { parents, timer });
  waiting.set(root, byKey);
}

/** The directories a preflight left under `root` and `key` (the taker closes them), or none. */
export function takeHandOff(root: string, key: string): ReadonlyMap<string, ParentEntry> | undefined {
  return remove(root, key)?.parents;
}
