/**
 * The last value of `section.key` in a git `config` file's text, lower-cased (`undefined` when
 * unset). Only what the tools ask is understood: plain `[section]` headers (a subsection header
 * such as `[remote "origin"]` is another section), `key = value` lines with an optional quoted
 * value and a trailing comment (also after a header on its line); section and key names are case-insensitive as in git. A bare
 * `key` line (git's boolean true) reads as `"true"`.
 */
export function configValue(config: string | undefined, section: string, key: string): string | undefined {
  let current = "";
  let found: string | undefined;
  const wanted = key.toLowerCase();
  for (const whole of (config ?? "").split("\n")) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)\s*("[^"]*"\s*)?\]/.exec(whole);
    if (header !== null) current = header[2] === undefined ? (header[1] as string).toLowerCase() : "";
    if (current !== section) continue;
    // git reads a `key = value` after the header on the same line (`[core] useReplaceRefs = false`).
    const line = header === null ? whole : whole.slice(header[0].length);
    const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*"?([^"#;]*?)"?\s*)?(?:[#;].*)?$/.exec(line);
    if (entry !== null && (entry[1] as string).toLowerCase() === wanted) found = (entry[2] ?? "true").trim().toLowerCase();
  }
  return found;
}

/** A git boolean (`false`, `no`, `off`, `0` are false; anything else set is true). */
export function configFalse(value: string | undefined): boolean {
  return value === "false" || value === "no" || value === "off" || value === "0" || value === "";
}
