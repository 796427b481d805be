import { countOf } from "../errors/count-of.js";
import { pairSafeEnd, pairSafeStart } from "./well-formed-text.js";

/**
 * Cuts `text` over `maxLength` characters to its head and tail with a marker in between that
 * says how much was left out, so a long output never floods the context and is never dropped
 * silently. Cuts fall on line breaks when one is near, and never inside a surrogate pair (half an
 * emoji is a lone surrogate, which providers refuse).
 */
export function condenseText(text: string, maxLength: number): string {
  return condenseKnowingLines(text, maxLength, undefined);
}

/** The number of line breaks in `text` from `start` up to (not including) `end`. */
export function countLineBreaks(text: string, start = 0, end = text.length): number {
  let count = 0;
  for (let at = text.indexOf("\n", start); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/**
 * {@link condenseText}, given the number of line breaks in the whole `text` (`countLineBreaks`)
 * when it is known: the omitted lines are then counted in the head and tail only, not in the
 * omitted middle, so cutting one long text to several lengths scans it once, not once per length.
 */
export function condenseKnowingLines(text: string, maxLength: number, lineBreaks: number | undefined): string {
  if (text.length <= maxLength) return text;
  const headLength = Math.floor(maxLength * 0.6);
  const tailLength = maxLength - headLength;
  let headEnd = headLength;
  const headBreak = text.lastIndexOf("\n", headLength);
  if (headBreak > headLength * 0.8) headEnd = headBreak + 1;
  let tailStart = text.length - tailLength;
  const tailBreak = text.indexOf("\n", tailStart);
  if (tailBreak !== -1 && tailBreak < tailStart + tailLength * 0.2) tailStart = tailBreak + 1;
  headEnd = pairSafeEnd(text, headEnd);
  tailStart = pairSafeStart(text, tailStart);
  // Counted in place: splitting a long output's omitted middle made one string per line.
  const omittedLines =
    lineBreaks === undefined
      ? countLineBreaks(text, headEnd, tailStart)
      : lineBreaks - countLineBreaks(text, 0, headEnd) - countLineBreaks(text, tailStart);
  const marker = `\n[... ${countOf(tailStart - headEnd, "character")} (${countOf(omittedLines, "line")}) omitted; showing the first ${headEnd} and the last ${text.length - tailStart} characters ...]\n`;
  return text.slice(0, headEnd) + marker + text.slice(tailStart);
}
