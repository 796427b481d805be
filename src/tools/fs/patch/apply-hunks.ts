import { countOf } from "../../../errors/count-of.js";
import { closestLine, shorten } from "./closest-line.js";
import type { FileContent } from "./file-content.js";
import { type Hunk, type HunkLine, type HunkStyle, oldSide } from "./file-operation.js";
import { type LineDocument, type LineReplacement, type OutputLine, parseLineDocument } from "./line-document.js";
import { LineIndex, MATCH_LEVELS, type MatchLevel } from "./line-matcher.js";
import { fail, type Outcome, type PatchError, patchError, succeed, withDefaults } from "./patch-error.js";
import { PiecedBytes } from "./pieced-bytes.js";

/** A file's new content after its hunks, with what changed. */
export interface AppliedChange<C extends FileContent = FileContent> {
  /** The new content (bytes when the content given was bytes). */
  readonly content: C;
  /** Lines added. */
  readonly added: number;
  /** Lines removed. */
  readonly removed: number;
  /** Hunks (or edit occurrences) applied. */
  readonly hunks: number;
}

/** The file and hunk being located, for searching and for error messages. */
interface Target {
  readonly path: string;
  readonly hunkNumber: number;
  readonly document: LineDocument;
  readonly index: LineIndex;
}

/** Where a hunk goes: its first old line, the lines used (maybe without trailing blank context), the next search start. */
interface Located {
  readonly start: number;
  readonly lines: readonly HunkLine[];
  readonly nextCursor: number;
  /** A Codex chunk placed by its first match, which must then be its only one: where the search began, at which level. */
  readonly unanchored?: { readonly from: number; readonly level: MatchLevel };
}

const MATCH_LIMIT = 10_000;
const SHOWN_MATCHES = 10;
const SHOWN_LINES = 6;

/**
 * Applies hunks to `content`, all or none. Each hunk is searched from where the previous one
 * ended, at the strictest {@link MATCH_LEVELS} level where it matches: Codex hunks at the first
 * match after the cursor (or after their `@@` line), unified hunks at their stated line or the
 * nearest match. Context lines keep the file's own text and endings, so a tolerant match never
 * rewrites lines the patch did not change; added lines take the file's dominant ending; a
 * missing final newline stays missing unless a unified hunk's `\ No newline` markers change it.
 */
export function applyHunks(content: FileContent, hunks: readonly Hunk[], style: HunkStyle, path: string): Outcome<AppliedChange> {
  // A content patched before in this patch (its pieces) is patched as its bytes.
  const document = parseLineDocument(content instanceof PiecedBytes ? content.bytes() : content);
  const index = new LineIndex(document);
  const replacements: LineReplacement[] = [];
  let cursor = 0;
  let finalNewline = document.finalNewline;
  let added = 0;
  let removed = 0;
  const placements: Located[] = [];
  for (const [position, hunk] of hunks.entries()) {
    const target: Target = { path, hunkNumber: position + 1, document, index };
    const located = style === "codex" ? locateCodexHunk(target, hunk, cursor) : locateUnifiedHunk(target, hunk, cursor);
    if (!located.ok) return { ok: false, error: withDefaults(located.error, { path, hunk: position + 1, line: hunk.patchLine }) };
    const { start, lines, nextCursor } = located.value;
    const replacement = buildReplacement(lines, start);
    replacements.push(replacement);
    placements.push(located.value);
    cursor = nextCursor;
    if (style === "unified" && start + replacement.deleteCount === document.length) {
      if (hunk.newNoNewline) finalNewline = false;
      else if (hunk.oldNoNewline) finalNewline = true;
    }
    for (const line of lines) {
      if (line.kind === "add") added++;
      else if (line.kind === "remove") removed++;
    }
  }
  const ambiguity = checkUnique(path, index, placements);
  if (ambiguity !== undefined) {
    const details = { path, hunk: ambiguity.position + 1, line: hunks[ambiguity.position]?.patchLine };
    return { ok: false, error: withDefaults(ambiguity.error, details) };
  }
  const bom = bomAfterHunks(document, placements, replacements);
  replacements.sort((left, right) => left.start - right.start);
  const rendered = document.renderContent(replacements, finalNewline, !bom.drop);
  return succeed({ content: rendered, added, removed, hunks: hunks.length });
}

/** The byte-order mark, as text. */
const BOM = "\ufeff";

/**
 * A UTF-8 byte-order mark is kept out of line 1 (the document keeps it). A hunk at line 1 whose
 * first old line spells it (`-\ufeffa`, or as context) edits it: it stays only when the first new
 * line spells it too. Any other hunk keeps it. A leading mark on an added first line is taken off
 * (the document's own is written): `-\ufeffa` / `+\ufeffb` wrote two.
 */
function bomAfterHunks(
  document: LineDocument,
  placements: readonly Located[],
  replacements: LineReplacement[],
): { readonly drop: boolean } {
  if (document.bom === "") return { drop: false };
  const at = placements.findIndex((placement) => placement.start === 0);
  const placement = placements[at];
  const replacement = replacements[at];
  if (placement === undefined || replacement === undefined) return { drop: false };
  const oldFirst = placement.lines.find((line) => line.kind !== "add");
  const newFirst = placement.lines.find((line) => line.kind !== "remove");
  const first = replacement.lines[0];
  if (first !== undefined && "text" in first && first.text.startsWith(BOM)) {
    replacements[at] = { ...replacement, lines: [{ ...first, text: first.text.slice(1) }, ...replacement.lines.slice(1)] };
  }
  const spelled = oldFirst?.text.startsWith(BOM) === true;
  return { drop: spelled && newFirst?.text.startsWith(BOM) !== true };
}

/** Context lines keep the file's line (text and ending); removed lines go; added lines are new. */
function buildReplacement(lines: readonly HunkLine[], start: number): LineReplacement {
  const output: OutputLine[] = [];
  let at = start;
  for (const line of lines) {
    if (line.kind === "add") output.push({ text: line.text, ending: undefined });
    else {
      // Kept as the file has it (its bytes, not its text decoded and encoded again).
      if (line.kind === "context") output.push({ kept: at });
      at++;
    }
  }
  return { start, deleteCount: at - start, lines: output };
}

/** The hunk's lines, then (like Codex) the same without trailing blank context lines, which models add by accident. */
function variants(lines: readonly HunkLine[]): (readonly HunkLine[])[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]?.kind === "context" && lines[end - 1]?.text.trim() === "") end--;
  // Most hunks end in a line with text: no copy to make and look at.
  if (end === lines.length) return [lines];
  const trimmed = lines.slice(0, end);
  return oldSide(trimmed).length > 0 ? [lines, trimmed] : [lines];
}

function locateCodexHunk(target: Target, hunk: Hunk, cursor: number): Outcome<Located> {
  let from = cursor;
  const anchored = hunk.context !== undefined;
  if (hunk.context !== undefined) {
    const found = findFirst(target.index, [hunk.context], cursor);
    if (found === undefined) return contextLineMissing(target, hunk.context, cursor);
    from = found;
  }
  if (oldSide(hunk.lines).length === 0) {
    const at = anchored && !hunk.endOfFile ? from + 1 : appendPosition(target.document, hunk.endOfFile);
    return succeed({ start: at, lines: hunk.lines, nextCursor: anchored ? at : cursor });
  }
  for (const lines of variants(hunk.lines)) {
    const pattern = oldSide(lines);
    if (hunk.endOfFile) {
      const start = findAtEnd(target.index, pattern, from);
      if (start !== undefined) return succeed({ start, lines, nextCursor: start + pattern.length });
      continue;
    }
    const found = findCodex(target.index, pattern, from);
    if (found === undefined) continue;
    const placed = { start: found.start, lines, nextCursor: found.start + pattern.length };
    return succeed(anchored ? placed : { ...placed, unanchored: { from, level: found.level } });
  }
  return linesMissing(target, oldSide(hunk.lines), from, hunk.endOfFile);
}

/** Where Codex appends a chunk with nothing to match: at the end, but (like Codex) before a last blank line unless End of File says so. */
function appendPosition(document: LineDocument, endOfFile: boolean): number {
  const length = document.length;
  return !endOfFile && length > 0 && document.lineAt(length - 1) === "" ? length - 1 : length;
}

function locateUnifiedHunk(target: Target, hunk: Hunk, cursor: number): Outcome<Located> {
  const length = target.document.length;
  for (const lines of variants(hunk.lines)) {
    const pattern = oldSide(lines);
    const stated = hunk.oldStart ?? cursor + 1;
    const expected = Math.min(Math.max(pattern.length === 0 ? stated : stated - 1, cursor), length);
    if (pattern.length === 0) return succeed({ start: expected, lines, nextCursor: expected });
    const found = findNearest(target.index, pattern, cursor, expected);
    if (found !== undefined) return succeed({ start: found, lines, nextCursor: found + pattern.length });
  }
  return linesMissing(target, oldSide(hunk.lines), cursor, false);
}

/** First match at or after `from`, at the strictest level that has one. */
function findFirst(index: LineIndex, pattern: readonly string[], from: number): number | undefined {
  for (const level of MATCH_LEVELS) {
    const [first] = index.find(pattern, level, from, 1);
    if (first !== undefined) return first;
  }
  return undefined;
}

/** The match ending at the file's end, when it does not reach back before `from`. */
function findAtEnd(index: LineIndex, pattern: readonly string[], from: number): number | undefined {
  const start = index.length - pattern.length;
  if (start < from) return undefined;
  return MATCH_LEVELS.some((level) => index.matchesAt(pattern, level, start)) ? start : undefined;
}

/** The match at `expected`, else the one nearest to it, at the strictest level that has any. */
function findNearest(index: LineIndex, pattern: readonly string[], from: number, expected: number): number | undefined {
  for (const level of MATCH_LEVELS) {
    if (index.matchesAt(pattern, level, expected)) return expected;
    let best: number | undefined;
    for (const start of index.find(pattern, level, from, MATCH_LIMIT)) {
      if (best === undefined || Math.abs(start - expected) < Math.abs(best - expected)) best = start;
    }
    if (best !== undefined) return best;
  }
  return undefined;
}

/** A Codex chunk's first match at or after `from`, at the strictest level that has one. */
function findCodex(index: LineIndex, pattern: readonly string[], from: number): { start: number; level: MatchLevel } | undefined {
  for (const level of MATCH_LEVELS) {
    const [start] = index.find(pattern, level, from, 1);
    if (start !== undefined) return { start, level };
  }
  return undefined;
}

/**
 * A Codex chunk without an `@@` line goes to its first match after the previous chunk; it is
 * ambiguous when it matches again (at the same level) before the next chunk's place, or before
 * the end of the file for the last chunk. So repeated identical chunks still apply in order,
 * while a lone chunk that fits two places is refused instead of silently taking the first.
 */
function checkUnique(
  path: string,
  index: LineIndex,
  placements: readonly Located[],
): { position: number; error: PatchError } | undefined {
  for (const [position, placement] of placements.entries()) {
    if (placement.unanchored === undefined) continue;
    const pattern = oldSide(placement.lines);
    const end = placement.start + pattern.length;
    const limit = placements
      .slice(position + 1)
      .reduce((least, later) => (later.start >= end ? Math.min(least, later.start) : least), index.length);
    const starts = index
      .find(pattern, placement.unanchored.level, placement.unanchored.from, MATCH_LIMIT)
      .filter((start) => start + pattern.length <= limit);
    if (starts.length > 1) return { position, error: ambiguous(path, position + 1, starts) };
  }
  return undefined;
}

function ambiguous(path: string, hunkNumber: number, starts: readonly number[]): PatchError {
  const shown = starts.slice(0, SHOWN_MATCHES).map((start) => start + 1);
  const count = starts.length >= MATCH_LIMIT ? `${MATCH_LIMIT} or more` : String(starts.length);
  return patchError(
    "ambiguous_match",
    `Hunk ${hunkNumber} of ${path} matches ${count} places (lines ${shown.join(", ")}${starts.length > shown.length ? ", ..." : ""}); it must match exactly one.`,
    {
      matches: shown,
      count: starts.length,
      hint: "Add an '@@ <line>' naming the enclosing function or class (the chunk is then searched after it), or include more unchanged lines around the change.",
    },
  );
}

function contextLineMissing(target: Target, context: string, from: number): Outcome<never> {
  const closest = closestLine(target.document.lines, context, from);
  const after = from > 0 ? ` after line ${from}` : "";
  return fail(
    "context_not_found",
    `The '@@ ${shorten(context)}' line of hunk ${target.hunkNumber} was not found in ${target.path}${after}.`,
    {
      closest,
      hint:
        closest === undefined
          ? "Use an '@@' line copied from the file (a function or class line), or a bare '@@'."
          : `Line ${closest.line} is the closest: '${closest.text}'. Copy the '@@' line from the file as it is now.`,
    },
  );
}

function linesMissing(target: Target, pattern: readonly string[], from: number, endOfFile: boolean): Outcome<never> {
  const where = endOfFile ? " at the end of the file" : from > 0 ? ` after line ${from}` : "";
  const shown = pattern.slice(0, SHOWN_LINES).map((line) => `  ${shorten(line)}`);
  if (pattern.length > SHOWN_LINES) shown.push(`  ... (${pattern.length - SHOWN_LINES} more)`);
  const first = pattern.find((line) => line.trim() !== "") ?? pattern[0] ?? "";
  const closest = closestLine(target.document.lines, first, from);
  const elsewhere = findFirst(target.index, pattern, 0);
  let hint = "Read the file again and copy the context (' ') and removed ('-') lines exactly as they are now.";
  if (elsewhere !== undefined && endOfFile) {
    hint = `These lines are at line ${elsewhere + 1}, not at the end of the file; drop '*** End of File' or fix the lines.`;
  } else if (elsewhere !== undefined && elsewhere < from) {
    hint = `These lines are at line ${elsewhere + 1}, before the previous chunk or '@@' line; chunks must follow the file's order.`;
  } else if (closest !== undefined) {
    hint = `Line ${closest.line} is the closest: '${closest.text}'. ${hint}`;
  }
  const message = `Hunk ${target.hunkNumber}: ${countOf(pattern.length, "line")} ${pattern.length === 1 ? "was" : "were"} not found in ${target.path}${where}:\n${shown.join("\n")}`;
  return fail("context_not_found", message, { closest, hint });
}
