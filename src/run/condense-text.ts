import { pairSafeEnd, pairSafeStart } from "./well-formed-text.js";

/**
 * Cuts `text` over `maxLength` characters to its head and tail with a marker in between that
 * says how much was left out, so a long output never floods the context and is never dropped
 * silently. Cuts fall on line breaks when one is near, and never inside a surrogate pair (half an
 * emoji is a lone surrogate, which providers refuse).
 */
export function condenseText(text: string, maxLength: number): string {
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
  let omittedLines = 0;
  for (let at = text.indexOf("\n", headEnd); at !== -1 && at < tailStart; at = text.indexOf("\n", at + 1)) omittedLines++;
  const marker = `\n[... ${tailStart - headEnd} characters (${omittedLines} lines) omitted; showing the first ${headEnd} and the last ${text.length - tailStart} characters ...]\n`;
  return text.slice(0, headEnd) + marker + text.slice(tailStart);
}
