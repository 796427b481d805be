/** Whether `text` holds a control character (a line break, a tab, an escape: below U+0020, or U+007F). */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * A name or path as a listing (`glob`, `ls`) prints it, one per line: as it is, or as a JSON string
 * when printed as it is it could pass for something else. A line break in a name printed two
 * entries, neither of which exists (`n⏎l.txt` listed `n` and `l.txt`); a name starting with `"`
 * would pass for such a quoted name, and one starting with `[not ` for the note a listing adds for
 * a directory it could not read. `ls` also quotes what would pass for its layout: a leading space
 * (its indentation, a deeper entry) and two spaces in a row (the gap before a file's size).
 */
export function listedName(name: string, layout: "path" | "ls" = "path"): string {
  const quoted =
    hasControlCharacter(name) ||
    name.startsWith('"') ||
    name.startsWith("[not ") ||
    (layout === "ls" && (name.startsWith(" ") || name.includes("  ")));
  return quoted ? JSON.stringify(name) : name;
}
