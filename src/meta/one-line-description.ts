/**
 * Full stops that close an abbreviation rather than a sentence: letter-dot chains (`e.g.`, `U.S.`,
 * `p.m.`) and the Latin short forms tool descriptions use (`vs.`, `cf.`, `approx.`). Without this,
 * the glob tool's row in the listing index read "Find files whose paths match a glob pattern,
 * e.g." — the spec's "first sentence" cut mid-sentence. `etc.` is not here: it ends sentences as
 * often as not. Tested on the last {@link ABBREVIATION_WINDOW} characters up to the stop only.
 */
const ABBREVIATION = /(?:^|[\s(["'])(?:(?:\p{L}\.){2,}|vs\.|cf\.|approx\.)$/iu;

/**
 * The abbreviations that introduce what follows (examples, a comparison, a reference, a number),
 * so a capital after them starts a name, not a sentence: "e.g. Python".
 */
const INTRODUCING = /(?:^|[\s(["'])(?:e\.g\.|i\.e\.|a\.k\.a\.|vs\.|cf\.|approx\.)$/iu;

/** Whitespace and then an uppercase letter: what begins a new sentence after "U.S." or "p.m.". */
const NEW_SENTENCE = /\s+\p{Lu}/uy;

/**
 * How many characters up to a full stop are tested for an abbreviation: testing all the text
 * before every stop made a long line quadratic ("x a.b. " x 80,000 took 42 s).
 */
const ABBREVIATION_WINDOW = 24;

/** Index of the character that ends the first sentence of `line`, or -1 when it has one sentence. */
function firstSentenceEnd(line: string): number {
  const ends = /[.!?](?=\s|$)/g;
  for (let match = ends.exec(line); match !== null; match = ends.exec(line)) {
    const end = match.index;
    if (line[end] === "." && closesAbbreviation(line, end)) continue;
    return end;
  }
  return -1;
}

/** Whether the full stop at `end` closes an abbreviation inside the sentence. */
function closesAbbreviation(line: string, end: number): boolean {
  const tail = line.slice(Math.max(0, end + 1 - ABBREVIATION_WINDOW), end + 1);
  if (!ABBREVIATION.test(tail)) return false;
  if (INTRODUCING.test(tail)) return true;
  NEW_SENTENCE.lastIndex = end + 1;
  return !NEW_SENTENCE.test(line);
}

/**
 * The first sentence of the first non-empty line of a description, cut to `maxLength`
 * characters (counting the trailing `...` when it is cut).
 *
 * A full stop ends a sentence when whitespace or the end of the line follows it, unless it
 * closes an abbreviation. After `e.g.`, `i.e.`, `a.k.a.`, `vs.`, `cf.` and `approx.` the sentence
 * always goes on (a capital there starts an example or a name: "e.g. Python"). After another
 * letter-dot chain (`U.S.`, `p.m.`) it ends when the next word starts with an uppercase letter
 * ("Works in the U.S. It also..." is "Works in the U.S."), and goes on otherwise ("at 5 p.m. on
 * weekdays"). Only the first `maxLength` characters or so are scanned: a sentence end further on
 * is cut away anyway.
 * @internal
 */
export function oneLineDescription(description: string, maxLength = 160): string {
  const firstLine =
    description
      .split(/\r?\n/)
      .find((line) => line.trim() !== "")
      ?.trim() ?? "";
  // maxLength + 1 characters are at most twice as many UTF-16 units: a stop beyond them makes a
  // sentence longer than maxLength, which is cut exactly as the whole line is.
  const head = firstLine.slice(0, 2 * maxLength + 2);
  const sentenceEnd = firstSentenceEnd(head);
  const sentence = sentenceEnd === -1 ? firstLine : firstLine.slice(0, sentenceEnd + 1);
  const characters = [...sentence.slice(0, 2 * maxLength + 2)];
  if (characters.length <= maxLength) return sentence;
  return `${characters
    .slice(0, Math.max(0, maxLength - 3))
    .join("")
    .trimEnd()}...`;
}
