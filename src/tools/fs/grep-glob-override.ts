import { Minimatch } from "minimatch";
import { forMinimatch } from "./glob-pattern.js";

/**
 * What grep's `glob` says of an entry, as ripgrep's `--glob` (an override) says it: `"include"`
 * (a whitelist glob matched), `"exclude"` (a `!` glob matched, or a file no whitelist glob
 * matched), or `"none"` (the ignore files decide).
 */
export type GlobVerdict = "include" | "exclude" | "none";

/**
 * grep's `glob` applied as ripgrep applies `--glob` while it walks: before the ignore files, and
 * to directories too. A `!` glob matching a directory skips it and all below it (`!sub` left out
 * `sub/a.txt` in ripgrep, and the JavaScript engine, which matched the glob on files only,
 * searched it); a whitelist glob matching an entry overrides the ignore files (`*.log` searches
 * a gitignored `x.log` in ripgrep); a directory no whitelist glob matches is still entered.
 */
export class GrepGlobOverride {
  readonly #matcher: Minimatch;
  readonly #negated: boolean;

  constructor(glob: string) {
    const { pattern, matchBase } = forMinimatch(glob);
    this.#negated = pattern.startsWith("!");
    this.#matcher = new Minimatch(this.#negated ? pattern.slice(1) : pattern, { dot: true, matchBase });
  }

  /** The verdict on `relative` (slash-separated, from where ripgrep runs). */
  verdict(relative: string, isDirectory: boolean): GlobVerdict {
    const matched = this.#matcher.match(relative);
    if (this.#negated) return matched ? "exclude" : "none";
    if (matched) return "include";
    return isDirectory ? "none" : "exclude";
  }
}
