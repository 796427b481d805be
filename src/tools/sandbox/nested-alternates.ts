import path from "node:path";
import { pathFromBytes } from "./byte-paths.js";
import { routeEnd, routeStaysInside } from "./link-route.js";
import { alternatesReadings } from "./pointer-readings.js";
import { readSmallFileBytes } from "./small-file-text.js";
import { workTreeInside } from "./work-tree-value.js";

/**
 * How deep git follows alternates of alternates (`link_alt_odb_entries` refuses past 5): a
 * repository's own alternates file is read at depth 0, that of a store it names at 1, and so on to
 * the fifth store's, whose entries git still uses (git 2.39, measured: repository -> s1 -> ... ->
 * s5 -> host objects reads the host's commit; one store more does not).
 */
const MAX_ALTERNATES_DEPTH = 5;

/** The largest alternates file read (as the walk's own). */
const MAX_ALTERNATES_BYTES = 64 * 1024;

/**
 * True when an object store inside the workspace that a repository's alternates entry names
 * (`store`, a real path) leads git out of the workspace through its own `info/alternates`, at any
 * depth git follows: git reads `<store>/info/alternates` too, each entry relative to `<store>`. A
 * new repository's alternates `../../../store` (inside, kept) beside `store/info/alternates`
 * naming a host repository's objects, and a `main` holding a host commit's id, had the user's
 * `git reset --hard` check the host's file out (round 45). An entry leaving the workspace, as
 * written or on its route, quoted (git unquotes it), or a file that cannot be read, counts as
 * leading out. `seen` holds the stores already judged (a loop git would stop at its depth).
 */
export function storeAlternatesLeave(store: string, root: string, depth = 1, seen = new Set<string>()): boolean {
  if (depth > MAX_ALTERNATES_DEPTH || seen.has(store)) return false;
  seen.add(store);
  const bytes = readSmallFileBytes(path.join(store, "info", "alternates"), MAX_ALTERNATES_BYTES);
  if (bytes === "absent") return false;
  if (typeof bytes === "string") return true;
  for (const line of alternatesReadings(pathFromBytes(bytes))) {
    if (line.startsWith('"') || !workTreeInside(line, store, root) || !routeStaysInside(store, line, root)) return true;
    const end = routeEnd(store, line, root);
    if (end !== undefined && storeAlternatesLeave(end, root, depth + 1, seen)) return true;
  }
  return false;
}

/**
 * True when an entry of a repository's alternates (`text`, its objects directory `objects`, a real
 * path) that stays inside the workspace names a store whose own alternates lead out
 * ({@link storeAlternatesLeave}).
 */
export function nestedAlternatesLeave(text: string, objects: string, root: string): boolean {
  const seen = new Set([objects]);
  return alternatesReadings(text).some((line) => {
    if (line.startsWith('"')) return false;
    const end = routeEnd(objects, line, root);
    // The store's own alternates are git's depth 1 (this passed 2, and missed a fifth store's).
    return end !== undefined && storeAlternatesLeave(end, root, 1, seen);
  });
}
