import { fail, type Outcome, succeed } from "./patch-error.js";

/** True for a path's last component that names a directory whatever precedes it: "", "." or "..". */
export function isDirectoryName(last: string | undefined): boolean {
  return last === "" || last === "." || last === "..";
}

/**
 * Normalises a path named in a patch (`a/./b//c` to `a/b/c`, `\` to `/`, inner `..` resolved).
 * Absolute paths and `..` above the root are kept: like `read` and `write`, the tool layer's scope
 * decides (under sandbox `"workspace"` only paths inside the workspace pass, elsewhere any path).
 * Refused here: empty paths, NUL, drive letters, `~` (never expanded), and paths naming a directory.
 */
export function normalizePatchPath(raw: string): Outcome<string> {
  const path = raw.trim();
  const refuse = (why: string, hint = "Give the path relative to the workspace root, e.g. src/index.ts.") =>
    fail("invalid_path", `Invalid path "${raw}": ${why}.`, { path: raw, hint });
  if (path === "") return refuse("the path is empty");
  if (path.includes("\0")) return refuse("it contains a NUL character");
  const slashed = path.replaceAll("\\", "/");
  if (/^[A-Za-z]:/.test(slashed)) return refuse("drive-letter paths are not accepted");
  const absolute = slashed.startsWith("/");
  if (slashed === "~" || slashed.startsWith("~/")) return refuse("home-directory paths are not accepted");
  // "dir/", "dir/." and "a/b/.." all name a directory, whatever they normalise to.
  if (isDirectoryName(slashed.slice(slashed.lastIndexOf("/") + 1))) return refuse("it names a directory, not a file");
  const segments: string[] = [];
  for (const segment of slashed.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length > 0 && segments.at(-1) !== "..") segments.pop();
      else if (!absolute) segments.push("..");
      continue;
    }
    segments.push(segment);
  }
  if (segments.length === 0 || segments.at(-1) === "..") return refuse("it names a directory, not a file");
  return succeed(`${absolute ? "/" : ""}${segments.join("/")}`);
}
