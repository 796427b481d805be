import type { AppliedChange } from "./apply-hunks.js";
import { closestLine } from "./closest-line.js";
import { LineIndex, MATCH_LEVELS } from "./line-matcher.js";
import { fail, type Outcome, succeed } from "./patch-error.js";
import type { TextEdit } from "./patch-input.js";

/** One occurrence of an edit's `old_text`, as offsets into the current content. */
interface Occurrence {
  readonly start: number;
  readonly end: number;
}

const SHOWN_MATCHES = 10;
const EDIT_HINT = "Copy old_text exactly from the file as it is now, including indentation.";

/**
 * Applies exact text replacements in order, each on the result of the previous one, all or
 * none. `old_text` must occur exactly once unless `replace_all`. Line endings are tolerated:
 * when the exact text is not found, it is searched with CRLF and LF treated alike, and the
 * replacement's line breaks take the ending of the text it replaces (or the file's dominant one),
 * so an LF edit to a CRLF file keeps it CRLF.
 */
export function applyTextEdits(content: string, edits: readonly TextEdit[], path: string): Outcome<AppliedChange<string>> {
  let current = content;
  let added = 0;
  let removed = 0;
  let hunks = 0;
  for (const [position, edit] of edits.entries()) {
    const applied = applyBomAware(current, edit, path, position + 1);
    if (!applied.ok) return applied;
    current = applied.value.content;
    added += applied.value.added;
    removed += applied.value.removed;
    hunks += applied.value.hunks;
  }
  return succeed({ content: current, added, removed, hunks });
}

/** The byte-order mark, as text. */
const BOM = "\ufeff";

/**
 * A UTF-8 byte-order mark is the file's, like its line endings: `read` does not show it. An edit
 * whose old_text spells it (starts with it) edits it: its new_text decides whether it stays
 * (`"\ufeff"` -> `""` removes it). Any other edit applies to the text after it and keeps it; a
 * new_text that starts with one (copied from elsewhere) is taken without it, so an edit of line 1
 * does not double it.
 */
function applyBomAware(content: string, edit: TextEdit, path: string, number: number): Outcome<AppliedChange<string>> {
  if (!content.startsWith(BOM) || edit.old_text.startsWith(BOM)) return applyTextEdit(content, edit, path, number);
  const replacement = edit.new_text.startsWith(BOM) ? { ...edit, new_text: edit.new_text.slice(1) } : edit;
  const applied = applyTextEdit(content.slice(1), replacement, path, number);
  return applied.ok ? succeed({ ...applied.value, content: BOM + applied.value.content }) : applied;
}

function applyTextEdit(content: string, edit: TextEdit, path: string, number: number): Outcome<AppliedChange<string>> {
  const details = { path, hunk: number };
  if (edit.old_text === "") {
    return fail("empty_old_text", `Edit ${number}: old_text is empty.`, {
      ...details,
      hint: "Give the exact text to replace; to create a file, add it with the write tool or an Add File patch.",
    });
  }
  // One replacement must have one place it can go: overlapping occurrences count ("aa" occurs
  // twice in "aaa", and which one the model meant decides "ba" or "ab"). replace_all replaces the
  // non-overlapping ones left to right, as String.prototype.replaceAll does.
  const single = edit.replace_all !== true;
  const { occurrences, count, overlapping } = findOccurrences(content, edit.old_text, single);
  if (count === 0) return noMatch(content, edit.old_text, path, number);
  if (count > 1 && single) {
    const first = occurrences.slice(0, SHOWN_MATCHES);
    const shown = [...new Set(lineNumbers(content, first))];
    return fail(
      "ambiguous_match",
      `Edit ${number}: old_text occurs ${count} times in ${path}${overlapping ? ", overlapping" : ""} (${shown.length === 1 ? "line" : "lines"} ${shown.join(", ")}${count > first.length ? ", ..." : ""}); it must occur exactly once.`,
      {
        ...details,
        matches: shown,
        count,
        hint: "Include more surrounding lines in old_text to make it unique, or set replace_all: true.",
      },
    );
  }
  const parts: string[] = [];
  let next = 0;
  let added = 0;
  let removed = 0;
  let dominant: string | undefined;
  const fallback = () => {
    dominant ??= dominantNewline(content);
    return dominant;
  };
  for (const { start, end } of occurrences) {
    const region = content.slice(start, end);
    const newline = region.includes("\r\n") ? "\r\n" : region.includes("\n") ? "\n" : fallback();
    const replacement = edit.new_text.replace(/\r?\n/g, newline);
    parts.push(content.slice(next, start), replacement);
    next = end;
    const change = changedLines(region, replacement);
    added += change.added;
    removed += change.removed;
  }
  parts.push(content.slice(next));
  return succeed({ content: parts.join(""), added, removed, hunks: occurrences.length });
}

/** Where an edit's text occurs: every occurrence, or with `overlapping` the first few. */
interface Found {
  /** Ascending; with `overlapping`, only the first {@link SHOWN_MATCHES} + 1. */
  readonly occurrences: Occurrence[];
  /** How many occurrences there are in all. */
  readonly count: number;
  /** Whether one starts before the previous one ends. */
  readonly overlapping: boolean;
}

/**
 * Occurrences, exact first, else with CRLF and LF treated alike; `overlapping` also counts those
 * that start inside an earlier one.
 */
function findOccurrences(content: string, text: string, overlapping: boolean): Found {
  const exact = indexesOf(content, text, overlapping);
  if (exact.count > 0 || !(content.includes("\r\n") || text.includes("\r\n"))) {
    return { ...exact, occurrences: exact.starts.map((start) => ({ start, end: start + text.length })) };
  }
  const carriageReturns: number[] = [];
  for (let at = content.indexOf("\r\n"); at !== -1; at = content.indexOf("\r\n", at + 2)) {
    carriageReturns.push(at - carriageReturns.length);
  }
  const original = (offset: number) => offset + countBelow(carriageReturns, offset);
  const wanted = text.replaceAll("\r\n", "\n");
  const normalized = indexesOf(content.replaceAll("\r\n", "\n"), wanted, overlapping);
  return {
    ...normalized,
    occurrences: normalized.starts.map((start) => ({ start: original(start), end: original(start + wanted.length) })),
  };
}

/**
 * Start offsets of `text` in `content`, in time linear in both. Without `overlapping`, every
 * non-overlapping one left to right (as `replaceAll` replaces). With it, every occurrence is
 * counted but only the first few kept: stepping `indexOf` by one character instead costs the
 * text's length per occurrence ("a" x 100,000 in "a" x 400,000 took 17 s). Occurrences can only
 * overlap when the text has a border (a prefix that is also a suffix, as "aa" and "abab" have);
 * without one the native search finds them all, with one a Knuth-Morris-Pratt scan counts them.
 */
function indexesOf(
  content: string,
  text: string,
  overlapping: boolean,
): { starts: number[]; count: number; overlapping: boolean } {
  const starts: number[] = [];
  const failure = overlapping ? failureFunction(text) : undefined;
  if (failure === undefined || failure[text.length] === 0) {
    for (let at = content.indexOf(text); at !== -1; at = content.indexOf(text, at + text.length)) starts.push(at);
    return { starts, count: starts.length, overlapping: false };
  }
  let count = 0;
  let overlaps = false;
  let previous = Number.NEGATIVE_INFINITY;
  let matched = 0;
  for (let index = 0; index < content.length; index++) {
    const code = content.charCodeAt(index);
    while (matched > 0 && text.charCodeAt(matched) !== code) matched = failure[matched] as number;
    if (text.charCodeAt(matched) === code) matched++;
    if (matched === text.length) {
      const start = index + 1 - text.length;
      if (start < previous + text.length) overlaps = true;
      if (starts.length <= SHOWN_MATCHES) starts.push(start);
      previous = start;
      count++;
      matched = failure[matched] as number;
    }
  }
  return { starts, count, overlapping: overlaps };
}

/** Knuth-Morris-Pratt failure function: entry `i` is the longest proper border of `text.slice(0, i)`. */
function failureFunction(text: string): Int32Array {
  const failure = new Int32Array(text.length + 1);
  let border = 0;
  for (let index = 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    while (border > 0 && text.charCodeAt(border) !== code) border = failure[border] as number;
    if (text.charCodeAt(border) === code) border++;
    failure[index + 1] = border;
  }
  return failure;
}

/** How many of the ascending `values` are below `limit`. */
function countBelow(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < limit) low = middle + 1;
    else high = middle;
  }
  return low;
}

function dominantNewline(content: string): string {
  const crlf = content.split("\r\n").length - 1;
  const lf = content.split("\n").length - 1 - crlf;
  if (crlf !== lf) return crlf > lf ? "\r\n" : "\n";
  const first = content.indexOf("\n");
  return first > 0 && content[first - 1] === "\r" ? "\r\n" : "\n";
}

/** Lines removed and added by replacing `before` with `after`, not counting unchanged leading and trailing lines. */
function changedLines(before: string, after: string): { added: number; removed: number } {
  const old = before.split(/\r?\n/);
  const replacement = after.split(/\r?\n/);
  let head = 0;
  while (head < old.length && head < replacement.length && old[head] === replacement[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < replacement.length - head &&
    old[old.length - 1 - tail] === replacement[replacement.length - 1 - tail]
  ) {
    tail++;
  }
  return { removed: old.length - head - tail, added: replacement.length - head - tail };
}

/** 1-based line numbers of ascending occurrences, in one pass. */
function lineNumbers(content: string, occurrences: readonly Occurrence[]): number[] {
  const numbers: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const { start } of occurrences) {
    for (let at = content.indexOf("\n", scanned); at !== -1 && at < start; at = content.indexOf("\n", at + 1)) line++;
    scanned = start;
    numbers.push(line);
  }
  return numbers;
}

function noMatch(content: string, oldText: string, path: string, number: number): Outcome<never> {
  const fileLines = content.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const wanted = oldText.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (wanted.length > 1 && wanted.at(-1) === "") wanted.pop();
  const index = new LineIndex(fileLines);
  let hint = EDIT_HINT;
  for (const level of MATCH_LEVELS.slice(1)) {
    const [start] = index.find(wanted, level, 0, 1);
    if (start === undefined) continue;
    const what = level === "punctuation" ? "whitespace, quotes and dashes are" : "whitespace is";
    const span = wanted.length > 1 ? `lines ${start + 1}-${start + wanted.length}` : `line ${start + 1}`;
    hint = `old_text matches ${span} when ${what} ignored. ${EDIT_HINT}`;
    break;
  }
  const closest = closestLine(fileLines, wanted.find((line) => line.trim() !== "") ?? oldText);
  if (hint === EDIT_HINT && closest !== undefined) hint = `Line ${closest.line} is the closest: '${closest.text}'. ${EDIT_HINT}`;
  return fail("no_match", `Edit ${number}: old_text was not found in ${path}.`, { path, hunk: number, closest, hint });
}
