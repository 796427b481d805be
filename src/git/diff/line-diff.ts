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
    if (yhi < y) [x, y] = [yhi + d, yhi];
    if (forwardBest < x + y) [forwardBest, forwardX] = [x + y, x];
  }
  let backwardBest = LINE_MAX;
  let backwardX = xhi;
  for (let d = bmax; d >= bmin; d -= 2) {
    let x = Math.max(xlo, s.backward[s.origin + d] ?? xhi);
    let y = x - d;
    if (y < ylo) [x, y] = [ylo + d, ylo];
    if (x + y < backwardBest) [backwardBest, backwardX] = [x + y, x];
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
  const [xlo, xhi, ylo, yhi] = box;
  if (f.fmin > xlo - yhi) forward[origin + --f.fmin - 1] = -1;
  else ++f.fmin;
  if (f.fmax < xhi - ylo) forward[origin + ++f.fmax + 1] = -1;
  else --f.fmax;
  for (let d = f.fmax; d >= f.fmin; d -= 2) {
    const left = forward[origin + d - 1] ?? -1;
    const right = forward[origin + d + 1] ?? -1;
    let i = left >= right ? left + 1 : right;
    let j = i - d;
    while (i < xhi && j < yhi && x[i] === y[j]) [i, j] = [i + 1, j + 1];
    forward[origin + d] = i;
    if (odd && f.bmin <= d && d <= f.bmax && (backward[origin + d] ?? 0) <= i) return { x: i, y: j };
  }
  return undefined;
}

/** One more edit of the backward pass; the split when it meets the forward pass. */
function backwardStep(s: Sequences, box: Box, f: Frontier, odd: boolean): Split | undefined {
  const { x, y, forward, backward, origin } = s;
  const [xlo, xhi, ylo, yhi] = box;
  if (f.bmin > xlo - yhi) backward[origin + --f.bmin - 1] = LINE_MAX;
  else ++f.bmin;
  if (f.bmax < xhi - ylo) backward[origin + ++f.bmax + 1] = LINE_MAX;
  else --f.bmax;
  for (let d = f.bmax; d >= f.bmin; d -= 2) {
    const left = backward[origin + d - 1] ?? 0;
    const right = backward[origin + d + 1] ?? 0;
    let i = left < right ? left : right - 1;
    let j = i - d;
    while (i > xlo && j > ylo && x[i - 1] === y[j - 1]) [i, j] = [i - 1, j - 1];
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
    let [xlo, xhi, ylo, yhi] = box;
    while (xlo < xhi && ylo < yhi && s.x[xlo] === s.y[ylo]) [xlo, ylo] = [xlo + 1, ylo + 1];
    while (xlo < xhi && ylo < yhi && s.x[xhi - 1] === s.y[yhi - 1]) [xhi, yhi] = [xhi - 1, yhi - 1];
    if (xlo === xhi) changedY.fill(1, ylo, yhi);
    else if (ylo === yhi) changedX.fill(1, xlo, xhi);
    else {
      const middle = split(s, xlo, xhi, ylo, yhi);
      stack.push([middle.x, xhi, middle.y, yhi], [xlo, middle.x, ylo, middle.y]);
    }
  }
}

/** Keeps the lines of one side whose id also occurs on the other side; marks the rest changed. */
function reduce(ids: Int32Array, from: number, to: number, otherCounts: Int32Array, changed: Uint8Array) {
  const kept: number[] = [];
  const positions: number[] = [];
  for (let index = from; index < to; index++) {
    const id = ids[index] ?? 0;
    if ((otherCounts[id] ?? 0) === 0) changed[index] = 1;
    else {
      kept.push(id);
      positions.push(index);
    }
  }
  return { ids: Int32Array.from(kept), positions };
}

function countIds(ids: Int32Array, from: number, to: number, size: number): Int32Array {
  const counts = new Int32Array(size);
  for (let index = from; index < to; index++) counts[ids[index] ?? 0] = (counts[ids[index] ?? 0] ?? 0) + 1;
  return counts;
}

interface Side {
  readonly lines: Int32Array;
  readonly flags: Uint8Array;
}

/**
 * Slides the changed group that starts at `start` in `side` down while the line after it equals
 * its first line and the other side has no change there; returns the group's end and the slide.
 */
function slideDown(side: Side, other: Side, start: number, otherAt: number): { end: number; slid: number } {
  const { lines, flags } = side;
  let first = start;
  let end = start;
  while (end < lines.length && flags[end] === 1) end++;
  let slid = 0;
  while (end < lines.length && flags[end] === 0 && other.flags[otherAt + slid] !== 1 && lines[first] === lines[end]) {
    flags[first++] = 0;
    flags[end++] = 1;
    slid++;
    while (end < lines.length && flags[end] === 1) end++;
  }
  return { end, slid };
}

/**
 * Slides each pure insertion or deletion down as far as lines allow, the position git's xdiff
 * settles on without its indent heuristic (e.g. an added `}` block goes after, not before, an
 * identical one).
 */
function compact(a: Int32Array, b: Int32Array, removed: Uint8Array, added: Uint8Array): void {
  const old: Side = { lines: a, flags: removed };
  const now: Side = { lines: b, flags: added };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const deleting = i < a.length && removed[i] === 1;
    const inserting = j < b.length && added[j] === 1;
    if (deleting && inserting) {
      while (i < a.length && removed[i] === 1) i++;
      while (j < b.length && added[j] === 1) j++;
    } else if (deleting) {
      const { end, slid } = slideDown(old, now, i, j);
      [i, j] = [end, j + slid];
    } else if (inserting) {
      const { end, slid } = slideDown(now, old, j, i);
      [i, j] = [i + slid, end];
    } else {
      i++;
      j++;
    }
  }
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
  const removed = new Uint8Array(a.length);
  const added = new Uint8Array(b.length);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix])
    suffix++;
  const [aEnd, bEnd] = [a.length - suffix, b.length - suffix];
  const x = reduce(a, prefix, aEnd, countIds(b, prefix, bEnd, numbering.size), removed);
  const y = reduce(b, prefix, bEnd, countIds(a, prefix, aEnd, numbering.size), added);
  if (x.ids.length > 0 || y.ids.length > 0) {
    const size = x.ids.length + y.ids.length + 3;
    const sequences: Sequences = {
      x: x.ids,
      y: y.ids,
      forward: new Int32Array(size),
      backward: new Int32Array(size),
      origin: y.ids.length + 1,
      costLimit: Math.max(MIN_COST_LIMIT, Math.ceil(Math.sqrt(size))),
    };
    const changedX = new Uint8Array(x.ids.length);
    const changedY = new Uint8Array(y.ids.length);
    compareSequences(sequences, changedX, changedY);
    changedX.forEach((flag, index) => {
      if (flag === 1) removed[x.positions[index] ?? 0] = 1;
    });
    changedY.forEach((flag, index) => {
      if (flag === 1) added[y.positions[index] ?? 0] = 1;
    });
  }
  compact(a, b, removed, added);
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
