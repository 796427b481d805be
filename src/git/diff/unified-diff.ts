import type { ResolvedChange } from "../history/renames.js";
import type { FileDiff } from "./file-diff.js";
import type { LineDiff } from "./line-diff.js";
import { NO_NEWLINE } from "./text.js";

interface ChangeGroup {
  readonly oldStart: number;
  readonly oldEnd: number;
  readonly newStart: number;
  readonly newEnd: number;
}

/**
 * The hex digits git abbreviates ids to in `index` lines: `core.abbrev=auto` grows with the
 * number of packed objects (7 up to 2^14 objects, 8 up to 2^16, ...). Uniqueness is not checked.
 */
export function abbreviationLength(packedObjects: number): number {
  const highestBit = packedObjects > 0 ? Math.floor(Math.log2(packedObjects)) : 0;
  return Math.max(7, Math.floor((highestBit + 2) / 2));
}

function changeGroups(lines: LineDiff): ChangeGroup[] {
  const { removed, added } = lines;
  const groups: ChangeGroup[] = [];
  let i = 0;
  let j = 0;
  while (i < removed.length || j < added.length) {
    if (removed[i] === 1 || added[j] === 1) {
      const [oldStart, newStart] = [i, j];
      while (removed[i] === 1 || added[j] === 1) {
        while (removed[i] === 1) i++;
        while (added[j] === 1) j++;
      }
      groups.push({ oldStart, oldEnd: i, newStart, newEnd: j });
    } else {
      i++;
      j++;
    }
  }
  return groups;
}

function range(start: number, count: number): string {
  if (count === 1) return `${start + 1}`;
  return count === 0 ? `${start},0` : `${start + 1},${count}`;
}

/** git's default function-name line: the nearest earlier line that starts with a letter, `_` or `$`. */
function functionContext(oldLines: readonly string[], before: number): string {
  for (let index = before; index >= 0; index--) {
    const line = oldLines[index] ?? "";
    if (/^[A-Za-z_$]/.test(line)) return ` ${line.replace(NO_NEWLINE, "").slice(0, 80).trimEnd()}`;
  }
  return "";
}

function emitLine(output: string[], marker: string, line: string): void {
  if (line.endsWith(NO_NEWLINE)) output.push(`${marker}${line.slice(0, -1)}`, "\\ No newline at end of file");
  else output.push(`${marker}${line}`);
}

/** The `@@` hunks of a text diff with `context` unchanged lines around each change, as git prints them. */
export function renderHunks(
  oldLines: readonly string[],
  newLines: readonly string[],
  lines: LineDiff,
  context: number,
): string[] {
  const groups = changeGroups(lines);
  const output: string[] = [];
  for (let first = 0; first < groups.length; ) {
    let last = first;
    while (last + 1 < groups.length && (groups[last + 1]?.oldStart ?? 0) - (groups[last]?.oldEnd ?? 0) <= 2 * context) last++;
    const head = groups[first] as ChangeGroup;
    const tail = groups[last] as ChangeGroup;
    const before = Math.min(context, head.oldStart, head.newStart);
    const after = Math.min(context, oldLines.length - tail.oldEnd, newLines.length - tail.newEnd);
    const [oldStart, newStart] = [head.oldStart - before, head.newStart - before];
    const [oldEnd, newEnd] = [tail.oldEnd + after, tail.newEnd + after];
    output.push(
      `@@ -${range(oldStart, oldEnd - oldStart)} +${range(newStart, newEnd - newStart)} @@${functionContext(oldLines, oldStart - 1)}`,
    );
    for (let i = oldStart, j = newStart; i < oldEnd || j < newEnd; ) {
      if (i < oldEnd && lines.removed[i] === 1) emitLine(output, "-", oldLines[i++] ?? "");
      else if (j < newEnd && lines.added[j] === 1) emitLine(output, "+", newLines[j++] ?? "");
      else {
        emitLine(output, " ", oldLines[i] ?? "");
        i++;
        j++;
      }
    }
    first = last + 1;
  }
  return output;
}

/** git's one-letter escapes in a quoted path (`quote_c_style`). */
const ESCAPES: Readonly<Record<number, string>> = {
  7: "a",
  8: "b",
  9: "t",
  10: "n",
  11: "v",
  12: "f",
  13: "r",
  34: '"',
  92: "\\",
};

/**
 * A path as git prints it in a diff (`quote_c_style` with `core.quotePath`, git's default): as is
 * when every byte is printable ASCII other than `"` and `\`, else in double quotes with C escapes
 * and bytes of 0x80 and up in octal. Unquoted, a name holding a newline could print lines that
 * read as another file's header or hunk.
 */
function quotePath(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what needs quoting
  if (!/[\u0000-\u001f"\\\u007f-\uffff]/.test(name)) return name;
  let quoted = '"';
  for (const byte of Buffer.from(name, "utf8")) {
    const letter = ESCAPES[byte];
    if (letter !== undefined) quoted += `\\${letter}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, "0")}`;
    else quoted += String.fromCharCode(byte);
  }
  return `${quoted}"`;
}

/** `prefix` and `name` quoted together, as git quotes `a/<name>` (`"a/x\ny"`, never `a/"x\ny"`). */
function prefixed(prefix: string, name: string): string {
  return quotePath(`${prefix}${name}`);
}

function headerLines(change: ResolvedChange, abbrev: number): string[] {
  const oldPath = change.previousPath ?? change.path;
  const header = [`diff --git ${prefixed("a/", oldPath)} ${prefixed("b/", change.path)}`];
  if (change.status === "A") header.push(`new file mode ${change.newMode ?? "100644"}`);
  else if (change.status === "D") header.push(`deleted file mode ${change.oldMode ?? "100644"}`);
  else if (change.oldMode !== change.newMode) header.push(`old mode ${change.oldMode}`, `new mode ${change.newMode}`);
  if (change.status === "R") {
    header.push(
      `similarity index ${change.similarity ?? 100}%`,
      `rename from ${quotePath(oldPath)}`,
      `rename to ${quotePath(change.path)}`,
    );
  }
  if (change.oldOid !== change.newOid) {
    const zero = "0".repeat(abbrev);
    const ids = `${change.oldOid?.slice(0, abbrev) ?? zero}..${change.newOid?.slice(0, abbrev) ?? zero}`;
    const sameMode = change.status !== "A" && change.status !== "D" && change.oldMode === change.newMode;
    header.push(`index ${ids}${sameMode ? ` ${change.newMode}` : ""}`);
  }
  return header;
}

/**
 * One file's section of `git diff` output: the extended header (modes, rename, index line), then
 * `Binary files ... differ` or the `---`/`+++` lines and hunks.
 */
export function renderFilePatch(
  change: ResolvedChange,
  diff: FileDiff,
  oldLines: readonly string[],
  newLines: readonly string[],
  options: { readonly context: number; readonly abbrev: number },
): string {
  const output = headerLines(change, options.abbrev);
  const oldPath = change.previousPath ?? change.path;
  const oldName = change.status === "A" ? "/dev/null" : prefixed("a/", oldPath);
  const newName = change.status === "D" ? "/dev/null" : prefixed("b/", change.path);
  if (change.oldOid !== change.newOid) {
    if (diff.binary) output.push(`Binary files ${oldName} and ${newName} differ`);
    else if (diff.lines !== undefined && (diff.added > 0 || diff.removed > 0)) {
      // git ends a `---`/`+++` name that has a space with a tab, so the name's end is unambiguous.
      const oldTab = change.status !== "A" && oldPath.includes(" ") ? "\t" : "";
      const newTab = change.status !== "D" && change.path.includes(" ") ? "\t" : "";
      output.push(
        `--- ${oldName}${oldTab}`,
        `+++ ${newName}${newTab}`,
        ...renderHunks(oldLines, newLines, diff.lines, options.context),
      );
    }
  }
  return `${output.join("\n")}\n`;
}
