/** Whether `text` holds a control character (a line break, a tab, an escape: below U+0020, or U+007F). */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Characters that are not controls below U+0020 but still change how a printed name reads: NEL
 * (U+0085), the line and paragraph separators (U+2028, U+2029), which many consumers split lines
 * on, and the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069),
 * which make `m‮txt.sh` display as another name. `JSON.stringify` leaves all of them as they are.
 */
const MISLEADING = /[\u0085\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const EVERY_MISLEADING = new RegExp(MISLEADING.source, "g");

/** Whether `text` holds a control character or a character in {@link MISLEADING}: printed as it is, it could read as something else. */
export function hasUnsafeCharacter(text: string): boolean {
  return hasControlCharacter(text) || MISLEADING.test(text);
}

/** `text` as a JSON string, with the {@link MISLEADING} characters escaped as `\uXXXX` too. */
export function quotedName(text: string): string {
  return JSON.stringify(text).replace(EVERY_MISLEADING, (found) => `\\u${found.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A name or path as a listing (`glob`, `ls`) prints it, one per line: as it is, or as a JSON string
 * when printed as it is it could pass for something else. A line break in a name printed two
 * entries, neither of which exists (`n⏎l.txt` listed `n` and `l.txt`); so did U+2028 or NEL for a
 * consumer splitting lines on them, and a bidirectional override displayed a name as another. A
 * name starting with `"` would pass for such a quoted name, and one starting with `[not ` for the
 * note a listing adds for a directory it could not read. `ls` also quotes what would pass for its
 * layout: a leading space (its indentation, a deeper entry) and two spaces in a row (the gap
 * before a file's size).
 */
export function listedName(name: string, layout: "path" | "ls" = "path"): string {
  const quoted =
    hasUnsafeCharacter(name) ||
    name.startsWith('"') ||
    name.startsWith("[not ") ||
    (layout === "ls" && (name.startsWith(" ") || name.includes("  ")));
  return quoted ? quotedName(name) : name;
}
