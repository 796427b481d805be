import { foldPunctuation } from "./fold-punctuation.js";

/**
 * How strictly two lines must agree, from strictest to most tolerant: exactly, ignoring trailing
 * whitespace, ignoring surrounding whitespace (indentation), and additionally with typographic
 * punctuation folded to ASCII. A hunk is placed at the first level where it matches at all.
 */
export type MatchLevel = "exact" | "trim_end" | "trim" | "punctuation";

/** The levels in the order they are tried. */
export const MATCH_LEVELS: readonly MatchLevel[] = ["exact", "trim_end", "trim", "punctuation"];

/** The form of `line` that is compared at `level`. */
export function lineKey(line: string, level: MatchLevel): string {
  switch (level) {
    case "exact":
      return line;
    case "trim_end":
      return line.trimEnd();
    case "trim":
      return line.trim();
    case "punctuation":
      return foldPunctuation(line).trim();
  }
}

/** Lines to search: an array, or a document that cuts each line when asked (see `LineDocument`). */
export type SearchedLines =
  | readonly string[]
  | { readonly length: number; lineAt(index: number): string; readonly lines: readonly string[] };

/**
 * An index of a file's lines that finds where a run of lines occurs without scanning the whole
 * file per hunk: for each level it maps a line's key to the (ascending) positions holding it,
 * and a search only visits the positions of the pattern's rarest line. Built lazily per level,
 * so a patch that matches exactly never computes the tolerant keys.
 */
export class LineIndex {
  private readonly keys = new Map<MatchLevel, readonly string[]>();
  private readonly positions = new Map<MatchLevel, Map<string, number[]>>();

  constructor(private readonly source: SearchedLines) {}

  /** Number of lines in the file. */
  get length(): number {
    return this.source.length;
  }

  /**
   * True when `pattern` matches the file at `start` at `level`. Only the lines compared are
   * looked at (a hunk at its stated place costs its own lines, not a pass over the file).
   */
  matchesAt(pattern: readonly string[], level: MatchLevel, start: number): boolean {
    if (start < 0 || start + pattern.length > this.source.length) return false;
    const keys = this.keys.get(level);
    if (keys !== undefined) {
      for (let offset = 0; offset < pattern.length; offset++)
        if (keys[start + offset] !== lineKey(pattern[offset] as string, level)) return false;
      return true;
    }
    // One plain loop, no closure per call: a 500-file patch places thousands of hunks here, most
    // at their stated line and most exactly, in a process whose code is still warming up.
    const source = this.source;
    const array = isLineArray(source) ? source : undefined;
    const document = array === undefined ? (source as Exclude<SearchedLines, readonly string[]>) : undefined;
    for (let offset = 0; offset < pattern.length; offset++) {
      const text =
        array !== undefined
          ? (array[start + offset] as string)
          : (document as NonNullable<typeof document>).lineAt(start + offset);
      const line = pattern[offset] as string;
      if (level === "exact" ? text !== line : lineKey(text, level) !== lineKey(line, level)) return false;
    }
    return true;
  }

  /**
   * Start positions (ascending, at or after `from`) where `pattern` matches at `level`, at most
   * `limit` of them. An empty pattern matches nowhere.
   */
  find(pattern: readonly string[], level: MatchLevel, from: number, limit: number): number[] {
    if (pattern.length === 0 || limit <= 0) return [];
    const wanted = pattern.map((line) => lineKey(line, level));
    const index = this.positionsFor(level);
    let anchor = 0;
    let anchorPositions: readonly number[] | undefined;
    for (const [offset, key] of wanted.entries()) {
      const found = index.get(key);
      if (found === undefined) return [];
      if (anchorPositions === undefined || found.length < anchorPositions.length) {
        anchor = offset;
        anchorPositions = found;
      }
    }
    const keys = this.keysFor(level);
    const starts: number[] = [];
    const candidates = anchorPositions ?? [];
    for (let at = lowerBound(candidates, from + anchor); at < candidates.length; at++) {
      const start = (candidates[at] as number) - anchor;
      if (start + wanted.length > keys.length) break;
      if (wanted.every((key, offset) => keys[start + offset] === key)) {
        starts.push(start);
        if (starts.length >= limit) break;
      }
    }
    return starts;
  }

  private keysFor(level: MatchLevel): readonly string[] {
    let keys = this.keys.get(level);
    if (keys === undefined) {
      const lines = isLineArray(this.source) ? this.source : this.source.lines;
      keys = level === "exact" ? lines : lines.map((line) => lineKey(line, level));
      this.keys.set(level, keys);
    }
    return keys;
  }

  private positionsFor(level: MatchLevel): Map<string, number[]> {
    let index = this.positions.get(level);
    if (index === undefined) {
      index = new Map();
      for (const [position, key] of this.keysFor(level).entries()) {
        const list = index.get(key);
        if (list === undefined) index.set(key, [position]);
        else list.push(position);
      }
      this.positions.set(level, index);
    }
    return index;
  }
}

function isLineArray(source: SearchedLines): source is readonly string[] {
  return Array.isArray(source);
}

/** First index in the ascending `values` whose value is at least `target`. */
function lowerBound(values: readonly number[], target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}
