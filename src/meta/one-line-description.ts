/**
 * Abbreviations whose full stop does not end a sentence: letter-dot chains (`e.g.`, `i.e.`,
 * `a.k.a.`) and the Latin short forms tool descriptions use (`vs.`, `cf.`, `approx.`). Without
 * this, the glob tool's row in the listing index read "Find files whose paths match a glob
 * pattern, e.g." — the spec's "first sentence" cut mid-sentence. `etc.` is not here: it ends
 * sentences as often as not.
 */
const ABBREVIATION = /(?:^|[\s(["'])(?:(?:\p{L}\.){2,}|vs\.|cf\.|approx\.)$/iu;

/** Index of the character that ends the first sentence of `line`, or -1 when it has one sentence. */
function firstSentenceEnd(line: string): number {
  const ends = /[.!?](?=\s|$)/g;
  for (let match = ends.exec(line); match !== null; match = ends.exec(line)) {
    const end = match.index;
    if (line[end] === "." && ABBREVIATION.test(line.slice(0, end + 1))) continue;
    return end;
  }
  return -1;
}

/**
 * The first sentence of the first non-empty line of a description, cut to `maxLength`
 * characters (counting the trailing `...` when it is cut). A full stop ends a sentence when
 * whitespace or the end of the line follows it, and it does not close an abbreviation such as
 * `e.g.`, `i.e.` or `vs.`.
 * @internal
 */
export function oneLineDescription(description: string, maxLength = 160): string {
  const firstLine =
    description
      .split(/\r?\n/)
      .find((line) => line.trim() !== "")
      ?.trim() ?? "";
  const sentenceEnd = firstSentenceEnd(firstLine);
  const sentence = sentenceEnd === -1 ? firstLine : firstLine.slice(0, sentenceEnd + 1);
  const characters = [...sentence];
  if (characters.length <= maxLength) return sentence;
  return `${characters
    .slice(0, Math.max(0, maxLength - 3))
    .join("")
    .trimEnd()}...`;
}
