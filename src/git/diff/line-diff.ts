import { NO_NEWLINE } from "./text.js";

/**
 * Which lines of two versions of a file changed: the shape every consumer needs (line counts,
 * unified hunks, blame's line mapping), two flag arrays as git's xdiff keeps them (`rchg`).
 */
export interface LineDiff {
  /** 1 for each old line that is not in the new version. */
  readonly removed: Uint8Array;
  /** 1 for each new line that is not in the old version. */
  readonly added: Uint8Array;
}

/** Edit cost after which the search settles for a good split instead of the best (as xdiff does). */
const MIN_COST_LIMIT = 256;
/** Larger than any line index; the backward vector's "not reached" value. */
const LINE_MAX = 0x7fffffff;

interface Sequences {
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly forward: Int32Array;
  readonly backward: Int32Array;
  /** Index of diagonal 0 in the two vectors. */
  readonly origin: number;
  readonly costLimit: number;
}

interface Split {
  readonly x: number;
  readonly y: number;
}

function furthestSplit(s: Sequences, box: readonly [number, number, number, number], bounds: readonly number[]): Split {
  const [xlo, xhi, ylo, yhi] = box;
  const [fmin, fmax, bmin, bmax] = bounds as [number, number, number, number];
  let forwardBest = -1;
  let forwardX = xlo;
  for (let d = fmax; d >= fmin; d -= 2) {
    let x = Math.min(s.forward[s.origin + d] ?? xlo, xhi);
    let y = x - d;
    if (yhi < y) {
      x = yhi + d;
      y = yhi;
    }
    if (forwardBest < x + y) {
      forwardBest = x + y;
      forwardX = x;
    }
  }
  let backwardBest = LINE_MAX;
  let backwardX = xhi;
  for (let d = bmax; d >= bmin; d -= 2) {
    let x = Math.max(xlo, s.backward[s.origin + d] ?? xhi);
    let y = x - d;
    if (y < ylo) {
      x = ylo + d;
      y = ylo;
    }
    if (x + y < backwardBest) {
      backwardBest = x + y;
      backwardX = x;
    }
  }
  return xhi + yhi - backwardBest < forwardBest - (xlo + ylo)
    ? { x: forwardX, y: forwardBest - forwardX }
    : { x: backwardX, y: backwardBest - backwardX };
}

/** The search frontier: the diagonal ranges the forward and backward passes have reached. */
interface Frontier {
  fmin: number;
  fmax: number;
  bmin: number;
  bmax: number;
}

type Box = readonly [xlo: number, xhi: number, ylo: number, yhi: number];

/** One more edit of the forward pass; the split when it meets the backward pass. */
function forwardStep(s: Sequences, box: Box, f: Frontier, odd: boolean): Split | undefined {
  const { x, y, forward, backward, origin } = s;
  const xlo = box[0];
  const xhi = box[1];
  const ylo = box[2];
  const yhi = box[3];
  if (f.fmin > xlo - yhi) forward[origin + --f.fmin - 1] = -1;
  else ++f.fmin;
  if (f.fmax < xhi - ylo) forward[origin + ++f.fmax + 1] = -1;
  else --f.fmax;
  for (let d = f.fmax; d >= f.fmin; d -= 2) {
    const left = forward[origin + d - 1] ?? -1;
    const right = forward[origin + d + 1] ?? -1;
    let i = left >= right ? left + 1 : right;
    let j = i - d;
    while (i < xhi && j < yhi && x[i] === y[j]) {
      i++;
      j++;
    }
    forward[origin + d] = i;
    if (odd && f.bmin <= d && d <= f.bmax && (backward[origin + d] ?? 0) <= i) return { x: i, y: j };
  }
  return undefined;
}

/** One more edit of the backward pass; the split when it meets the forward pass. */
function backwardStep(s: Sequences, box: Box, f: Frontier, odd: boolean): Split | undefined {
  const { x, y, forward, backward, origin } = s;
  const xlo = box[0];
  const xhi = box[1];
  const ylo = box[2];
  const yhi = box[3];
  if (f.bmin > xlo - yhi) backward[origin + --f.bmin - 1] = LINE_MAX;
  else ++f.bmin;
  if (f.bmax < xhi - ylo) backward[origin + ++f.bmax + 1] = LINE_MAX;
  else --f.bmax;
  for (let d = f.bmax; d >= f.bmin; d -= 2) {
    const left = backward[origin + d - 1] ?? 0;
    const right = backward[origin + d + 1] ?? 0;
    let i = left < right ? left : right - 1;
    let j = i - d;
    while (i > xlo && j > ylo && x[i - 1] === y[j - 1]) {
      i--;
      j--;
    }
    backward[origin + d] = i;
    if (!odd && f.fmin <= d && d <= f.fmax && i <= (forward[origin + d] ?? 0)) return { x: i, y: j };
  }
  return undefined;
}

/** The middle snake of the box (Myers' linear-space split, the same walk as xdiff's `xdl_split`). */
function split(s: Sequences, xlo: number, xhi: number, ylo: number, yhi: number): Split {
  const box: Box = [xlo, xhi, ylo, yhi];
  const fmid = xlo - ylo;
  const bmid = xhi - yhi;
  const odd = ((fmid - bmid) & 1) !== 0;
  const frontier: Frontier = { fmin: fmid, fmax: fmid, bmin: bmid, bmax: bmid };
  s.forward[s.origin + fmid] = xlo;
  s.backward[s.origin + bmid] = xhi;
  for (let cost = 1; ; cost++) {
    const met = forwardStep(s, box, frontier, odd) ?? backwardStep(s, box, frontier, odd);
    if (met !== undefined) return met;
    if (cost >= s.costLimit) return furthestSplit(s, box, [frontier.fmin, frontier.fmax, frontier.bmin, frontier.bmax]);
  }
}

/** Marks the changed entries of `x` and `y` (already reduced to lines the other side has). */
function compareSequences(s: Sequences, changedX: Uint8Array, changedY: Uint8Array): void {
  const stack: [number, number, number, number][] = [[0, s.x.length, 0, s.y.length]];
  for (let box = stack.pop(); box !== undefined; box = stack.pop()) {
    let xlo = box[0];
    let xhi = box[1];
    let ylo = box[2];
    let yhi = box[3];
    while (xlo < xhi && ylo < yhi && s.x[xlo] === s.y[ylo]) {
      xlo++;
      ylo++;
    }
    while (xlo < xhi && ylo < yhi && s.x[xhi - 1] === s.y[yhi - 1]) {
      xhi--;
      yhi--;
    }
    if (xlo === xhi) changedY.fill(1, ylo, yhi);
    else if (ylo === yhi) changedX.fill(1, xlo, xhi);
    else {
      const middle = split(s, xlo, xhi, ylo, yhi);
      stack.push([middle.x, xhi, middle.y, yhi], [xlo, middle.x, ylo, middle.y]);
    }
  }
}

/** xdiff's `XDL_MAX_EQLIMIT`, `XDL_SIMSCAN_WINDOW` and `XDL_KPDIS_RUN`. */
const MAX_EQUAL_LIMIT = 1024;
const SIMILAR_SCAN_WINDOW = 100;
const DISCARD_RUN_FACTOR = 4;

/** xdiff's `xdl_bogosqrt`: a power of two near the square root. */
function bogoSqrt(n: number): number {
  let root = 1;
  for (let rest = n; rest > 0; rest = Math.floor(rest / 4)) root *= 2;
  return root;
}

/**
 * xdiff's `xdl_clean_mmatch`: a line with many matches is discarded (treated as changed before the
 * search) when it sits in a run of lines that have no match, so repeated lines like `}` do not
 * anchor the diff in the middle of rewritten code.
 */
function discardMultimatch(dis: Uint8Array, i: number, start: number, end: number): boolean {
  const s = i - start > SIMILAR_SCAN_WINDOW ? i - SIMILAR_SCAN_WINDOW : start;
  const e = end - i > SIMILAR_SCAN_WINDOW ? i + SIMILAR_SCAN_WINDOW : end;
  let before = 0;
  let multiBefore = 1;
  for (let r = 1; i - r >= s; r++) {
    const flag = dis[i - r];
    if (flag === 0) before++;
    else if (flag === 2) multiBefore++;
    else break;
  }
  if (before === 0) return false;
  let after = 0;
  let multiAfter = 1;
  for (let r = 1; i + r <= e; r++) {
    const flag = dis[i + r];
    if (flag === 0) after++;
    else if (flag === 2) multiAfter++;
    else break;
  }
  if (after === 0) return false;
  const multi = multiAfter + multiBefore;
  return multi * DISCARD_RUN_FACTOR < multi + after + before;
}

/**
 * xdiff's `xdl_cleanup_records` for one side: lines in `from..to` with no match anywhere in the
 * other file are changed; lines with at least sqrt(n) matches may be discarded too; the rest go
 * to the search.
 */
function reduce(ids: Int32Array, from: number, to: number, otherCounts: Int32Array, changed: Uint8Array) {
  const limit = Math.min(bogoSqrt(ids.length), MAX_EQUAL_LIMIT);
  const dis = new Uint8Array(ids.length);
  for (let index = from; index < to; index++) {
    const matches = otherCounts[ids[index] ?? 0] ?? 0;
    dis[index] = matches === 0 ? 0 : matches >= limit ? 2 : 1;
  }
  const kept: number[] = [];
  const positions: number[] = [];
  for (let index = from; index < to; index++) {
    const flag = dis[index];
    if (flag === 1 || (flag === 2 && !discardMultimatch(dis, index, from, to - 1))) {
      kept.push(ids[index] ?? 0);
      positions.push(index);
    } else changed[index] = 1;
  }
  return { ids: Int32Array.from(kept), positions };
}

function countIds(ids: Int32Array, size: number): Int32Array {
  const counts = new Int32Array(size);
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index] as number;
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

/** One file as xdiff's `xdl_change_compact` sees it: line ids, their text, and the changed flags. */
interface Side {
  readonly ids: Int32Array;
  readonly lines: readonly string[];
  readonly changed: Uint8Array;
}

/** A run of changed lines `start..end` (exclusive), possibly empty (xdiff's `xdlgroup`). */
interface Group {
  start: number;
  end: number;
}

const isChanged = (side: Side, index: number) => index >= 0 && index < side.ids.length && side.changed[index] === 1;

function groupInit(side: Side): Group {
  const group = { start: 0, end: 0 };
  while (isChanged(side, group.end)) group.end++;
  return group;
}

function groupNext(side: Side, group: Group): boolean {
  if (group.end === side.ids.length) return false;
  group.start = group.end + 1;
  for (group.end = group.start; isChanged(side, group.end); group.end++);
  return true;
}

function groupPrevious(side: Side, group: Group): boolean {
  if (group.start === 0) return false;
  group.end = group.start - 1;
  for (group.start = group.end; isChanged(side, group.start - 1); group.start--);
  return true;
}

function slideDown(side: Side, group: Group): boolean {
  if (group.end < side.ids.length && side.ids[group.start] === side.ids[group.end]) {
    side.changed[group.start++] = 0;
    side.changed[group.end++] = 1;
    while (isChanged(side, group.end)) group.end++;
    return true;
  }
  return false;
}

function slideUp(side: Side, group: Group): boolean {
  if (group.start > 0 && side.ids[group.start - 1] === side.ids[group.end - 1]) {
    side.changed[--group.start] = 1;
    side.changed[--group.end] = 0;
    while (isChanged(side, group.start - 1)) group.start--;
    return true;
  }
  return false;
}

const MAX_INDENT = 200;
const MAX_BLANKS = 20;
const INDENT_HEURISTIC_MAX_SLIDING = 100;

/** xdiff's `get_indent`: columns of leading space (tabs to 8), or -1 for a blank line. */
function indentOf(line: string): number {
  let indent = 0;
  const end = line.endsWith(NO_NEWLINE) ? line.length - 1 : line.length;
  for (let index = 0; index < end; index++) {
    const c = line.charCodeAt(index);
    if (c === 0x20) indent += 1;
    else if (c === 0x09) indent += 8 - (indent % 8);
    else if (c !== 0x0a && c !== 0x0b && c !== 0x0c && c !== 0x0d) return indent;
    if (indent >= MAX_INDENT) return MAX_INDENT;
  }
  return -1;
}

interface Score {
  effectiveIndent: number;
  penalty: number;
}

interface Measurement {
  readonly endOfFile: boolean;
  readonly indent: number;
  readonly preBlank: number;
  readonly preIndent: number;
  readonly postBlank: number;
  readonly postIndent: number;
}

/** Blank lines and the indent of the first non-blank line from `from` in direction `step` (xdiff's scan). */
function scanBlanks(side: Side, from: number, step: 1 | -1): { blanks: number; indent: number } {
  let blanks = 0;
  for (let index = from; index >= 0 && index < side.lines.length; index += step) {
    const indent = indentOf(side.lines[index] ?? "");
    if (indent !== -1) return { blanks, indent };
    if (++blanks === MAX_BLANKS) return { blanks, indent: 0 };
  }
  return { blanks, indent: -1 };
}

/** xdiff's `measure_split`: the surroundings of a split above line `split`. */
function measureSplit(side: Side, split: number): Measurement {
  const endOfFile = split >= side.lines.length;
  const before = scanBlanks(side, split - 1, -1);
  const after = scanBlanks(side, split + 1, 1);
  return {
    endOfFile,
    indent: endOfFile ? -1 : indentOf(side.lines[split] ?? ""),
    preBlank: before.blanks,
    preIndent: before.indent,
    postBlank: after.blanks,
    postIndent: after.indent,
  };
}

/** xdiff's `score_add_split` (weights from git's xdiffi.c). */
function scoreSplit(side: Side, split: number, score: Score): void {
  const m = measureSplit(side, split);
  if (m.preIndent === -1 && m.preBlank === 0) score.penalty += 1;
  if (m.endOfFile) score.penalty += 21;
  const postBlank = m.indent === -1 ? 1 + m.postBlank : 0;
  const totalBlank = m.preBlank + postBlank;
  score.penalty += -30 * totalBlank + 6 * postBlank;
  const effective = m.indent !== -1 ? m.indent : m.postIndent;
  const anyBlanks = totalBlank !== 0;
  score.effectiveIndent += effective;
  if (effective === -1 || m.preIndent === -1 || effective === m.preIndent) return;
  if (effective > m.preIndent) score.penalty += anyBlanks ? 10 : -4;
  else if (m.postIndent !== -1 && m.postIndent > effective) score.penalty += anyBlanks ? 17 : 24;
  else score.penalty += anyBlanks ? 17 : 23;
}

function compareScores(x: Score, y: Score): number {
  const indents = Number(x.effectiveIndent > y.effectiveIndent) - Number(x.effectiveIndent < y.effectiveIndent);
  return 60 * indents + (x.penalty - y.penalty);
}

/** The indent heuristic's choice among the group's possible positions (its end index). */
function bestShift(side: Side, group: Group, earliestEnd: number, size: number): number {
  let shift = Math.max(earliestEnd, group.end - size - 1, group.end - INDENT_HEURISTIC_MAX_SLIDING);
  let best = -1;
  let bestScore: Score = { effectiveIndent: 0, penalty: 0 };
  for (; shift <= group.end; shift++) {
    const score: Score = { effectiveIndent: 0, penalty: 0 };
    scoreSplit(side, shift, score);
    scoreSplit(side, shift - size, score);
    if (best === -1 || compareScores(score, bestScore) <= 0) {
      bestScore = score;
      best = shift;
    }
  }
  return best;
}

/** Slides a non-empty group up then down as far as it goes, merging groups it meets; see {@link changeCompact}. */
function slideGroup(side: Side, other: Side, group: Group, otherGroup: Group) {
  let size: number;
  let earliestEnd: number;
  let endMatchingOther: number;
  do {
    size = group.end - group.start;
    endMatchingOther = -1;
    while (slideUp(side, group)) groupPrevious(other, otherGroup);
    earliestEnd = group.end;
    if (otherGroup.end > otherGroup.start) endMatchingOther = group.end;
    while (slideDown(side, group)) {
      groupNext(other, otherGroup);
      if (otherGroup.end > otherGroup.start) endMatchingOther = group.end;
    }
  } while (size !== group.end - group.start);
  return { size, earliestEnd, endMatchingOther };
}

/**
 * xdiff's `xdl_change_compact` with `XDF_INDENT_HEURISTIC` (git's default since 2.14): each group
 * of changed lines is slid as far as identical lines allow, merged with groups it bumps into,
 * aligned with a change on the other side when it can be, and otherwise placed where the indent
 * heuristic scores best. This decides which of several identical lines a diff calls changed.
 */
function changeCompact(side: Side, other: Side): void {
  const group = groupInit(side);
  const otherGroup = groupInit(other);
  for (;;) {
    if (group.end !== group.start) {
      const { size, earliestEnd, endMatchingOther } = slideGroup(side, other, group, otherGroup);
      if (group.end !== earliestEnd) {
        // Align with a change on the other side when possible, else take the indent heuristic's choice.
        const target = endMatchingOther !== -1 ? -1 : bestShift(side, group, earliestEnd, size);
        while (target === -1 ? otherGroup.end === otherGroup.start : group.end > target) {
          slideUp(side, group);
          groupPrevious(other, otherGroup);
        }
      }
    }
    if (!groupNext(side, group)) break;
    groupNext(other, otherGroup);
  }
}

/**
 * Marks the changed lines of two files given as line ids (equal lines, equal ids, all below
 * `idCount`): the common prefix and suffix are left alone, lines are reduced as xdiff's
 * `xdl_cleanup_records` does, and the rest goes to the Myers search. Groups of changed lines are
 * not slid yet (see {@link changeCompact}): sliding moves changes, it never changes how many
 * lines changed, so line counts can stop here.
 */
export function markChangedLines(a: Int32Array, b: Int32Array, idCount: number): LineDiff {
  const removed = new Uint8Array(a.length);
  const added = new Uint8Array(b.length);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix])
    suffix++;
  const aEnd = a.length - suffix;
  const bEnd = b.length - suffix;
  const x = reduce(a, prefix, aEnd, countIds(b, idCount), removed);
  const y = reduce(b, prefix, bEnd, countIds(a, idCount), added);
  if (x.ids.length > 0 || y.ids.length > 0) {
    const size = x.ids.length + y.ids.length + 3;
    const sequences: Sequences = {
      x: x.ids,
      y: y.ids,
      forward: new Int32Array(size),
      backward: new Int32Array(size),
      origin: y.ids.length + 1,
      costLimit: Math.max(MIN_COST_LIMIT, bogoSqrt(size)),
    };
    const changedX = new Uint8Array(x.ids.length);
    const changedY = new Uint8Array(y.ids.length);
    compareSequences(sequences, changedX, changedY);
    for (let index = 0; index < changedX.length; index++) if (changedX[index] === 1) removed[x.positions[index] ?? 0] = 1;
    for (let index = 0; index < changedY.length; index++) if (changedY[index] === 1) added[y.positions[index] ?? 0] = 1;
  }
  return { removed, added };
}

/** Diffs two line arrays (Myers, minimal for files of ordinary size) into {@link LineDiff} flags. */
export function diffLines(oldLines: readonly string[], newLines: readonly string[]): LineDiff {
  const numbering = new Map<string, number>();
  const number = (line: string) => {
    const known = numbering.get(line);
    if (known !== undefined) return known;
    const id = numbering.size;
    numbering.set(line, id);
    return id;
  };
  const a = Int32Array.from(oldLines, number);
  const b = Int32Array.from(newLines, number);
  const { removed, added } = markChangedLines(a, b, numbering.size);
  const old: Side = { ids: a, lines: oldLines, changed: removed };
  const now: Side = { ids: b, lines: newLines, changed: added };
  changeCompact(old, now);
  changeCompact(now, old);
  return { removed, added };
}

/** Lines added and removed. */
export function countChanges(diff: LineDiff): { readonly added: number; readonly removed: number } {
  let added = 0;
  let removed = 0;
  for (const flag of diff.added) added += flag;
  for (const flag of diff.removed) removed += flag;
  return { added, removed };
}
