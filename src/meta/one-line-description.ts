/**
 * Full stops that may close an abbreviation rather than a sentence: letter-dot chains (`e.g.`,
 * `U.S.`, `p.m.`) and the short forms tool descriptions use (`vs.`, `cf.`, `approx.`, `etc.`). Without this, the glob tool's row in the listing index read "Find files
 * whose paths match a glob pattern, e.g." — the spec's "first sentence" cut mid-sentence. Tested
 * on the last {@link ABBREVIATION_WINDOW} characters up to the stop only.
 */
const ABBREVIATION = /(?:^|[\s(["'])(?:(?:\p{L}\.){2,}|vs\.|cf\.|approx\.|etc\.)$/iu;

/**
 * The abbreviations that introduce what follows (examples, a comparison, a reference, a number, a
 * name), so a capital after them starts a name, not a sentence: "e.g. Python", "Dr. Smith".
 */
const INTRODUCING = /(?:^|[\s(["'])(?:e\.g\.|i\.e\.|a\.k\.a\.|vs\.|cf\.|approx\.)$/iu;

/** Titles before a name, capitalised only: "Dr. Smith" goes on, "in 40 ms. Then" does not. */
const TITLE = /(?:^|[\s(["'])(?:Dr|Mrs?|Ms|Prof)\.$/u;

/**
 * An upper-case letter chain (`U.S.`, `U.K.`, `E.U.`) or `St.`: mostly a name's first word, "the
 * U.S. Army", "St. Louis".
 */
const NAME_START = /(?:^|[\s(["'])(?:(?:\p{Lu}\.){2,}|St\.)$/u;

/** Whitespace and then an uppercase letter: what begins a new sentence after "p.m." or "etc.". */
const NEW_SENTENCE = /\s+\p{Lu}/uy;

/**
 * Whitespace and then a word that starts sentences far more often than it follows a name: after
 * "U.S." a capitalised word goes on ("the U.S. Army"), one of these starts a new sentence ("in the
 * U.S. It also..."). Pronouns, articles, conjunctions, and the verbs a tool description's second
 * sentence starts with.
 */
const SENTENCE_STARTER =
  /\s+(?:It|Its|It's|This|That|These|Those|There|Then|They|We|You|I|He|She|The|A|An|In|On|At|For|If|When|While|But|And|Or|So|Also|See|Use|Note|Returns?|Otherwise|However)(?![\p{L}\p{N}])/uy;

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
  if (TITLE.test(tail)) return true;
  if (!ABBREVIATION.test(tail) && !NAME_START.test(tail)) return false;
  if (INTRODUCING.test(tail)) return true;
  const next = NAME_START.test(tail) ? SENTENCE_STARTER : NEW_SENTENCE;
  next.lastIndex = end + 1;
  return !next.test(line);
}

/**
 * Every line break a reader of the text may split on, not only `\n`: a description (an untrusted MCP
 * server's) whose first line held CR, VT, FF, NEL or U+2028/U+2029 put a second line, a forged
 * `- <other tool>: ...` row, into the index and find_tool's results (red team round 37).
 */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * The first sentence of the first non-empty line of a description, cut to `maxLength`
 * characters (counting the trailing `...` when it is cut). Lines end at any line break: CRLF,
 * LF, CR, VT, FF, NEL, U+2028 and U+2029.
 *
 * A full stop ends a sentence when whitespace or the end of the line follows it, unless it
 * closes an abbreviation. After `e.g.`, `i.e.`, `a.k.a.`, `vs.`, `cf.`, `approx.` and the titles
 * `Dr.`, `Mr.`, `Mrs.`, `Ms.`, `Prof.` the sentence always goes on (a capital there starts an
 * example or a name: "e.g. Python", "Dr. Smith"). After an upper-case letter chain (`U.S.`,
 * `U.K.`) or `St.` it goes on unless the next word is one that starts sentences (a pronoun, an
 * article, a conjunction, `Use`, `Returns`...): "the U.S. Army trains" is one sentence, "Works in
 * the U.S. It also..." ends at "U.S.". After another letter-dot chain (`p.m.`) or `etc.` it ends when
 * the next word starts with an uppercase letter ("Runs at 5 p.m. Then...", "tar, zip, etc. Use
 * it...") and goes on otherwise ("at 5 p.m. on weekdays", "tar, zip, etc. and more"). Only the
 * first `maxLength` characters or so are scanned: a sentence end further on is cut away anyway.
 * @internal
 */
export function oneLineDescription(description: string, maxLength = 160): string {
  const firstLine =
    description
      .split(LINE_BREAK)
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
