import { Minimatch } from "minimatch";

/** One line of a `.gitignore` (or `.ignore`) file, compiled. */
interface IgnoreRule {
  readonly negated: boolean;
  readonly directoryOnly: boolean;
  readonly matcher: Minimatch;
  /** Anchored rules match the path from the ignore file's directory; others any trailing part. */
  readonly anchored: boolean;
}

/** The rules of one ignore file, relative to the directory that holds it. */
export interface IgnoreFile {
  /** The directory holding the file, relative to the walk's root (`""` for the root). */
  readonly base: string;
  readonly rules: readonly IgnoreRule[];
}

/**
 * Parses gitignore syntax (as git and ripgrep read it): `#` comments, blank lines, `!` negation,
 * a trailing `/` for directories only, a leading or inner `/` anchoring the pattern to the file's
 * directory, `**` for any number of directories, `\` escapes for a leading `#` or `!`.
 */
export function parseIgnoreFile(base: string, text: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    let negated = false;
    if (line.startsWith("!")) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith("\\#") || line.startsWith("\\!")) line = line.slice(1);
    let directoryOnly = false;
    if (line.endsWith("/")) {
      directoryOnly = true;
      line = line.slice(0, -1);
    }
    if (line === "") continue;
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    const matcher = new Minimatch(line, { dot: true, nocomment: true, nonegate: true, matchBase: !anchored });
    rules.push({ negated, directoryOnly, matcher, anchored });
  }
  return { base, rules };
}

/**
 * What `file` says of `relative` (from the walk's root, `/`-separated): `"ignore"` or
 * `"include"` (a `!` rule) from its last matching rule, as in git and ripgrep, or `undefined` when
 * no rule matches or `relative` is not below the file's directory. How the files of several
 * directories and kinds rank is the caller's (grep: `isIgnoredAsRipgrep`). A path below an
 * ignored directory is never asked about, because the walk does not enter ignored directories.
 */
export function matchIgnoreFile(file: IgnoreFile, relative: string, isDirectory: boolean): "ignore" | "include" | undefined {
  if (file.base !== "" && !relative.startsWith(`${file.base}/`)) return undefined;
  const local = file.base === "" ? relative : relative.slice(file.base.length + 1);
  // The last matching rule decides: looked for from the end.
  for (let index = file.rules.length - 1; index >= 0; index--) {
    const rule = file.rules[index] as IgnoreRule;
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.matcher.match(local)) return rule.negated ? "include" : "ignore";
  }
  return undefined;
}
