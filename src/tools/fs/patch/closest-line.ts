import { foldPunctuation } from "./fold-punctuation.js";
import type { PatchErrorLine } from "./patch-error.js";

const MINIMUM_SIMILARITY = 0.4;
const MAXIMUM_TEXT = 200;

function normalize(text: string): string {
  const trimmed = foldPunctuation(text).trim();
  return (/\s\s|\t/.test(trimmed) ? trimmed.replace(/\s+/g, " ") : trimmed).toLowerCase();
}

function bigramAt(text: string, index: number): number {
  return text.charCodeAt(index) * 65_536 + text.charCodeAt(index + 1);
}

/**
 * Dice similarity of character bigrams against one fixed target, with no allocation per
 * candidate: each distinct target bigram gets a slot, and per-candidate use counts are reset
 * lazily by a generation stamp.
 */
class BigramScorer {
  private readonly slots = new Map<number, number>();
  private readonly available: number[] = [];
  private readonly used: Int32Array;
  private readonly stamp: Int32Array;
  private generation = 0;

  constructor(private readonly target: string) {
    for (let index = 0; index < target.length - 1; index++) {
      const key = bigramAt(target, index);
      const slot = this.slots.get(key);
      if (slot === undefined) {
        this.slots.set(key, this.available.length);
        this.available.push(1);
      } else this.available[slot] = (this.available[slot] ?? 0) + 1;
    }
    this.used = new Int32Array(this.available.length);
    this.stamp = new Int32Array(this.available.length);
  }

  score(candidate: string): number {
    if (candidate === this.target) return 1;
    if (candidate.length < 2) return 0;
    this.generation++;
    let shared = 0;
    for (let index = 0; index < candidate.length - 1; index++) {
      const slot = this.slots.get(bigramAt(candidate, index));
      if (slot === undefined) continue;
      if (this.stamp[slot] !== this.generation) {
        this.stamp[slot] = this.generation;
        this.used[slot] = 0;
      }
      if ((this.used[slot] as number) < (this.available[slot] as number)) {
        this.used[slot] = (this.used[slot] as number) + 1;
        shared++;
      }
    }
    return (2 * shared) / (this.target.length - 1 + candidate.length - 1);
  }
}

/**
 * The file line (at or after `from`) most like `target`, for "did you mean line 42?" in an error;
 * `undefined` when no line is reasonably close. Lines are compared ignoring case, whitespace runs
 * and typographic punctuation; lines of very different length are skipped unscored. Runs only
 * when a patch fails, as one linear pass over the file.
 */
export function closestLine(lines: readonly string[], target: string, from = 0): PatchErrorLine | undefined {
  const wanted = normalize(target);
  if (wanted.length < 2) return undefined;
  const scorer = new BigramScorer(wanted);
  let best: { index: number; score: number } | undefined;
  for (let index = Math.max(0, from); index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.length * 3 < wanted.length) continue;
    const candidate = normalize(line);
    if (candidate.length * 3 < wanted.length || candidate.length > wanted.length * 3) continue;
    const score = scorer.score(candidate);
    if (score >= MINIMUM_SIMILARITY && (best === undefined || score > best.score)) best = { index, score };
    if (score === 1) break;
  }
  if (best === undefined) return undefined;
  return { line: best.index + 1, text: shorten(lines[best.index] as string) };
}

/** Cuts a line shown in an error to a readable length. */
export function shorten(text: string): string {
  return text.length > MAXIMUM_TEXT ? `${text.slice(0, MAXIMUM_TEXT)}…` : text;
}
