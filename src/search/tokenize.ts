import { stem } from "./porter-stemmer.js";

// Words that carry no meaning in a tool request ("I want to ...", "can you find me ...").
const STOP_WORDS = new Set(
  (
    "a about above after again all also am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or " +
    "other our ours ourselves out over own please same she should so some such than that the their theirs them themselves " +
    "then there these they this those through to too under until up us very was we were what when where which while who " +
    "whom why will with would you your yours yourself yourselves want need like get give show tell know help im id ive"
  ).split(" "),
);

const NON_ASCII = /[^\u0020-\u007e\t\n\r]/;
const HAS_UPPER = /\p{Lu}/u;
const STEM_CACHE_LIMIT = 100_000;
// Tool catalogs repeat the same few thousand words; stemming each once makes indexing 2-3x faster.
const stemCache = new Map<string, string>();

function cachedStem(word: string): string {
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, stemmed);
  }
  return stemmed;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /[a-z0-9]+/g;

/** Splits `camelCase`, `PascalCase`, `HTTPServer` and `v2Api` into their words. */
function splitCamelCase(text: string): string {
  return text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2").replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2");
}

/** The same for ASCII text, with cheaper non-Unicode expressions. */
function splitAsciiCamelCase(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z])([A-Z][a-z])/g, "$1 $2");
}

/**
 * Options of {@link tokenize}.
 *
 * @public
 */
export interface TokenizeOptions {
  /** Keep stop words (for names, where every word counts). */
  readonly keepStopWords?: boolean;
}

/**
 * Turns text into search terms: camel/snake/kebab case split, lower-cased, accents folded,
 * stop words dropped, Porter-stemmed. Scripts written without spaces (Chinese, Japanese, Korean)
 * become overlapping character pairs, so a search can match inside them.
 * @internal
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  // ASCII text (most tool catalogs) takes a fast path: no Unicode normalisation, no CJK check.
  if (!NON_ASCII.test(text)) {
    const lower = (/[A-Z]/.test(text) ? splitAsciiCamelCase(text) : text).toLowerCase();
    const words = lower.match(ASCII_WORD);
    if (words === null) return [];
    // In place: no match object per word (indexing 100,000 tools tokenizes millions of words).
    const keepStopWords = options.keepStopWords === true;
    let kept = 0;
    for (const word of words) if (keepStopWords || !STOP_WORDS.has(word)) words[kept++] = cachedStem(word);
    words.length = kept;
    return words;
  }
  const composed = text.normalize("NFKC");
  const normalized = (HAS_UPPER.test(composed) ? splitCamelCase(composed) : composed)
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "");
  const terms: string[] = [];
  for (const match of normalized.matchAll(WORD)) {
    const word = match[0];
    if (CJK.test(word)) {
      pushCharacterPairs(word, terms);
      continue;
    }
    if (options.keepStopWords !== true && STOP_WORDS.has(word)) continue;
    terms.push(cachedStem(word));
  }
  return terms;
}

function pushCharacterPairs(word: string, terms: string[]): void {
  const characters = [...word];
  if (characters.length === 1) {
    terms.push(word);
    return;
  }
  for (let i = 0; i + 1 < characters.length; i++) terms.push(`${characters[i]}${characters[i + 1]}`);
}

/**
 * The lower-cased words of `text` before stemming, split and accent-folded like {@link tokenize}
 * splits them, stop words included; no words of scripts written without spaces. The index uses it
 * to split run-together query words (`readfile`), join split ones (`Circle CI`) and correct typos,
 * in a query with accents ("¿falló el flujo de CircleCI?") as in a plain ASCII one.
 */
export function rawWords(text: string): string[] {
  if (!NON_ASCII.test(text)) {
    const lower = (/[A-Z]/.test(text) ? splitAsciiCamelCase(text) : text).toLowerCase();
    return lower.match(ASCII_WORD) ?? [];
  }
  const composed = text.normalize("NFKC");
  const normalized = (HAS_UPPER.test(composed) ? splitCamelCase(composed) : composed)
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "");
  const words: string[] = [];
  for (const match of normalized.matchAll(WORD)) if (!CJK.test(match[0])) words.push(match[0]);
  return words;
}

/** True for a word {@link tokenize} drops. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** The stem {@link tokenize} gives one lower-case word. */
export function stemWord(word: string): string {
  return cachedStem(word);
}
