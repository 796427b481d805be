import type { PatchErrorLine } from "./patch-error.js";
import { foldPunctuation } from "./fold-punctuation.js";

const MINIMUM_SIMILARITY = 0.4;
const MAXIMUM_TEXT = 200;

function normalize(text: string): string {
  return foldPunctuation(text).trim().replace(/\s+/g, " ").toLowerCase();
}

function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index++) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

/** Dice coefficient of the character bigrams of two normalised strings (1 = same, 0 = nothing shared). */
function similarity(target: Map<string, number>, targetPairs: number, candidate: string): number {
  if (candidate.length < 2) return 0;
  const used = new Map<string, number>();
  let shared = 0;
  for (let index = 0; index < candidate.length - 1; index++) {
    const pair = candidate.slice(index, index + 2);
    const available = target.get(pair) ?? 0;
    const taken = used.get(pair) ?? 0;
    if (taken < available) {
      shared++;
      used.set(pair, taken + 1);
    }
  }
  return (2 * shared) / (targetPairs + candidate.length - 1);
}

/**
 * The file line (at or after `from`) most like `target`, for "did you mean line 42?" in an error;
 * `undefined` when no line is reasonably close. Lines are compared ignoring case, whitespace runs
 * and typographic punctuation; lines of very different length are skipped unscored. Runs only
 * when a patch fails, so a linear pass over the file is fine.
 */
export function closestLine(lines: readonly string[], target: string, from = 0): PatchErrorLine | undefined {
  const wanted = normalize(target);
  if (wanted.length < 2) return undefined;
  const pairs = bigrams(wanted);
  let best: { index: number; score: number } | undefined;
  for (let index = Math.max(0, from); index < lines.length; index++) {
    const candidate = normalize(lines[index] as string);
    if (candidate.length * 3 < wanted.length || candidate.length > wanted.length * 3) continue;
    const score = candidate === wanted ? 1 : similarity(pairs, wanted.length - 1, candidate);
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
