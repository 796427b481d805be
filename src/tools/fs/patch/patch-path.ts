import { fail, type Outcome, succeed } from "./patch-error.js";

/**
 * Normalises a path named in a patch to a clean relative path (`a/./b//c` to `a/b/c`, `\` to
 * `/`, inner `..` resolved) and refuses what cannot name a file inside the workspace: absolute
 * paths, drive letters, `~`, `..` that climbs above the root, and paths naming a directory.
 * The tool layer still confines the result (symlinks are its business); this only makes sure
 * that two spellings of one file are one key in the plan, and that the model hears early and
 * clearly why a path was refused.
 */
export function normalizePatchPath(raw: string): Outcome<string> {
  const path = raw.trim();
  const refuse = (why: string, hint = "Give the path relative to the workspace root, e.g. src/index.ts.") =>
    fail("invalid_path", `Invalid path "${raw}": ${why}.`, { path: raw, hint });
  if (path === "") return refuse("the path is empty");
  if (path.includes("\0")) return refuse("it contains a NUL character");
  const slashed = path.replaceAll("\\", "/");
  if (slashed.startsWith("/") || /^[A-Za-z]:/.test(slashed)) return refuse("absolute paths are not accepted");
  if (slashed === "~" || slashed.startsWith("~/")) return refuse("home-directory paths are not accepted");
  if (slashed.endsWith("/")) return refuse("it names a directory, not a file");
  const segments: string[] = [];
  for (const segment of slashed.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.pop() === undefined) return refuse("it leaves the workspace root");
      continue;
    }
    segments.push(segment);
  }
  if (segments.length === 0) return refuse("it names the workspace root, not a file");
  return succeed(segments.join("/"));
}
