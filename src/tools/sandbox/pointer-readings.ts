/**
 * The paths a git pointer file's text can name, each judged by the walk after a command. Git
 * does not trim a pointer as `String.prototype.trim` does: a `.git` file is `gitdir: ` and then
 * the path up to the end, only trailing line breaks dropped (`read_gitfile_gently`), `commondir`
 * likewise, an alternates entry is the whole line (`parse_alt_odb_entry`), and each is then a C
 * string, ended by its first NUL. The walk trimmed them: `gitdir: ../hostlink ` (a trailing
 * space) was judged as `../hostlink` (missing, so inside) while git opened `hostlink `, a
 * workspace link to a host repository's git directory, and the user's `git log` there read the
 * host repository (round 45). Both readings are returned (git's, and the trimmed one a git
 * reading otherwise, or an older walk, would take), so a judge that must hold for the path git
 * opens holds for every reading.
 */

/** The text as a C string: up to its first NUL. */
function cString(text: string): string {
  const nul = text.indexOf("\0");
  return nul === -1 ? text : text.slice(0, nul);
}

/** Trailing line breaks (`\n`, `\r`) dropped, as git drops them from a pointer file. */
function withoutTrailingBreaks(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === "\n" || text[end - 1] === "\r")) end--;
  return text.slice(0, end);
}

/** The distinct non-empty readings, git's first. */
function distinct(readings: readonly string[]): string[] {
  return [...new Set(readings.filter((reading) => reading !== ""))];
}

/**
 * The paths a `.git` file's `text` names: git's reading (`gitdir: ` then the rest, trailing line
 * breaks dropped, up to a NUL) and the trimmed one (`gitdir:` and spaces around the path dropped).
 * Empty when it is no pointer to either.
 */
export function gitFileReadings(text: string): string[] {
  const readings: string[] = [];
  const whole = withoutTrailingBreaks(text);
  if (whole.startsWith("gitdir: ")) readings.push(cString(whole.slice("gitdir: ".length)));
  const trimmed = cString(text).trim();
  if (trimmed.startsWith("gitdir:")) readings.push(trimmed.slice("gitdir:".length).trim());
  return distinct(readings);
}

/**
 * The paths a `commondir` or a worktree's `gitdir` file's `text` names: git's reading (trailing
 * line breaks dropped, up to a NUL; `gitdir` is read with trailing white space dropped too) and the
 * trimmed one.
 */
export function pointerFileReadings(text: string): string[] {
  const git = cString(withoutTrailingBreaks(text));
  return distinct([git, git.trimEnd(), cString(text).trim()]);
}

/**
 * The paths an alternates file's `text` names, each entry in every reading: git's (each line
 * whole, up to the text's first NUL; a line starting with `#` a comment) and the trimmed one.
 * Quoted entries (`"..."`, which git unquotes) are returned as written, for the caller to refuse
 * or leave alone.
 */
export function alternatesReadings(text: string): string[] {
  const readings: string[] = [];
  for (const line of cString(text).split("\n")) {
    if (!line.startsWith("#")) readings.push(line);
    const trimmed = line.trim();
    if (!trimmed.startsWith("#")) readings.push(trimmed);
  }
  return distinct(readings);
}

/** Git's spaces (`isspace` in git's own ctype): not `\v`, `\f` or U+00A0, which `trim` drops too. */
const GIT_SPACES = new Set([" ", "\t", "\r", "\n"]);

/**
 * The paths an unquoted config value (`value`, the text after `=` with no quote, escape or comment,
 * which callers refuse) names: git's reading (`parse_value`: git's spaces at both ends dropped, each
 * one inside read as a space, up to a NUL) and the trimmed one. `worktree = ../x<TAB>y` is `../x y`
 * to git, a workspace link to a host directory, while the walk judged `../x<TAB>y` (missing, so
 * inside); `url = ../u<VT>` is `../u<VT>` to git, `../u` trimmed.
 */
export function configValueReadings(value: string): string[] {
  let git = "";
  let spaces = 0;
  for (const character of cString(value)) {
    if (GIT_SPACES.has(character)) {
      if (git !== "") spaces++;
      continue;
    }
    git += " ".repeat(spaces) + character;
    spaces = 0;
  }
  return distinct([git, value.trim()]);
}
