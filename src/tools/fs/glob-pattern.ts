/**
 * A glob as the file tools match it: a leading `./` (any number of them, `.//` too, after a `!`
 * too) anchors it to the search's start, as a leading `/` does in ripgrep's globs: `./src/**` is
 * `/src/**` and `./*.ts` names the top level's `.ts` files only. Dropped instead, `./*.ts` matched
 * `src/a.ts` too (a glob without `/` matches base names anywhere); kept, `./src/**` matched
 * nothing (in ripgrep, minimatch and the tools alike) though a model writes it meaning `src/**`.
 */
export function withoutLeadingDotSlash(pattern: string): string {
  const negated = pattern.startsWith("!");
  const rest = negated ? pattern.slice(1) : pattern;
  const anchored = rest.replace(/^(?:\.\/+)+(?=.)/, "/");
  return negated ? `!${anchored}` : anchored;
}

/**
 * A glob (ripgrep's syntax, after {@link withoutLeadingDotSlash}) as minimatch is given it: a
 * leading `/` anchors it to the start (minimatch would take it for the file system's root), and
 * a glob without `/` otherwise matches base names anywhere (`matchBase`), as in ripgrep.
 */
export function forMinimatch(glob: string): { readonly pattern: string; readonly matchBase: boolean } {
  const negated = glob.startsWith("!");
  const rest = negated ? glob.slice(1) : glob;
  const anchored = rest.startsWith("/");
  const pattern = `${negated ? "!" : ""}${anchored ? rest.replace(/^\/+/, "") : rest}`;
  return { pattern, matchBase: !anchored && !rest.includes("/") };
}

/** A path's characters that are glob syntax, escaped so that a directory name matches itself. */
function escapedForGlob(name: string): string {
  return name.replace(/[\\*?[\]{}!]/g, "\\$&");
}

/**
 * grep's `glob` (after {@link withoutLeadingDotSlash}) matched from the search's start (`start`:
 * slash-separated, relative to the workspace root where ripgrep runs and the JavaScript engine
 * matches from), as the README says and `glob` does: a glob with a `/` is anchored, so it is
 * given the start as its prefix (`deep/*` under `sub` is `/sub/deep/*`); one without names base
 * names at any depth and stays as it is. Matched from the root instead, `deep/*` with `path: "sub"`
 * found nothing in grep while `glob` listed `sub/deep/x.txt`.
 */
export function globFromStart(glob: string, start: string): string {
  if (start === "" || start === "." || start.startsWith("../") || start === "..") return glob;
  const negated = glob.startsWith("!");
  const rest = negated ? glob.slice(1) : glob;
  if (!rest.includes("/")) return glob;
  const prefix = start.split("/").map(escapedForGlob).join("/");
  return `${negated ? "!" : ""}/${prefix}/${rest.replace(/^\/+/, "")}`;
}
