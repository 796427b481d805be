/** Character classes of the ASCII scanner. */
const OTHER = 0;
const LOWER = 1;
const DIGIT = 2;
const UPPER = 3;

function kindOf(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  return OTHER;
}

/**
 * Writes the words of an ASCII text into `spans`, three numbers each (`start`, `end`, `hash`),
 * split exactly as `tokenize` splits them (runs of letters and digits; `camelCase`, `PascalCase`,
 * `HTTPServer` and `v2Api` into their words), in order, with `hash` a 32-bit hash of the
 * lower-cased word ({@link hashWord}); returns how many words, or -1 when the text holds a
 * character outside printable ASCII, tab, line feed and carriage return (the text `tokenize`
 * reads on its Unicode path, in the part scanned). Scans from `from`; once `spans` is full (and a
 * further word ends) it stops: the caller scans on from the end of the last word it got, which
 * splits the rest exactly as one scan would (a word ends before a separator or an upper-case
 * letter, and the scan then starts afresh there).
 * No regular expression, no lower-cased copy, no string per word and no call per word: indexing
 * 100,000 tools reads millions of words, and those were most of its cost.
 * The boundaries inside a run are the two rules of `splitAsciiCamelCase`: before an upper-case
 * letter that follows a lower-case letter or a digit, and before an upper-case letter that
 * follows an upper-case letter and precedes a lower-case one.
 * @internal
 */
export function asciiWordSpans(text: string, spans: Int32Array, from = 0): number {
  const length = text.length;
  const room = Math.floor(spans.length / 3);
  let words = 0;
  let start = -1;
  let previous = OTHER;
  let hash = 0;
  for (let at = from; at < length; at++) {
    const code = text.charCodeAt(at);
    const kind = kindOf(code);
    if (kind === OTHER && refused(code)) return -1;
    if (start >= 0 && endsWordBefore(text, at, kind, previous)) {
      if (words === room) return words;
      writeSpan(spans, words++, start, at, hash);
      start = -1;
    }
    previous = kind;
    if (kind === OTHER) continue;
    if (start < 0) {
      start = at;
      hash = HASH_SEED;
    }
    hash = Math.imul(hash ^ (kind === UPPER ? code + 32 : code), HASH_PRIME);
  }
  if (start >= 0) {
    if (words === room) return words;
    writeSpan(spans, words++, start, length, hash);
  }
  return words;
}

/** A character outside printable ASCII, tab, line feed and carriage return. */
function refused(code: number): boolean {
  return code > 126 || (code < 32 && code !== 9 && code !== 10 && code !== 13);
}

/** True when the word under way ends before `text[at]` (of class `kind`, after one of class `previous`). */
function endsWordBefore(text: string, at: number, kind: number, previous: number): boolean {
  if (kind === OTHER) return true;
  return kind === UPPER && (previous !== UPPER || (at + 1 < text.length && kindOf(text.charCodeAt(at + 1)) === LOWER));
}

function writeSpan(spans: Int32Array, word: number, start: number, end: number, hash: number): void {
  spans[3 * word] = start;
  spans[3 * word + 1] = end;
  spans[3 * word + 2] = hash;
}

/**
 * Calls `visit(start, end, hash)` for each word of an ASCII text, as {@link asciiWordSpans} finds
 * them, through `spans` however long the text (a text longer than it holds is checked whole first,
 * then scanned piece by piece); false (and no call) when the text is not ASCII in its sense.
 * @internal
 */
export function forEachAsciiWord(
  text: string,
  visit: (start: number, end: number, hash: number) => void,
  spans = new Int32Array(3 * 64),
): boolean {
  if (3 * text.length > spans.length && NOT_ASCII.test(text)) return false;
  for (let from = 0; ; ) {
    const words = asciiWordSpans(text, spans, from);
    if (words < 0) return false;
    for (let w = 0; w < words; w++) visit(spans[3 * w] as number, spans[3 * w + 1] as number, spans[3 * w + 2] as number);
    if (3 * words < spans.length) return true;
    from = spans[3 * words - 2] as number;
  }
}

/** The characters {@link asciiWordSpans} refuses (what `tokenize` reads on its Unicode path). */
const NOT_ASCII = /[^\u0020-\u007e\t\n\r]/;

const HASH_SEED = 0x811c9dc5 | 0;
const HASH_PRIME = 0x01000193;

/** The hash {@link forEachAsciiWord} gives a lower-case ASCII word (FNV-1a over its code units). */
export function hashWord(word: string): number {
  let hash = HASH_SEED;
  for (let at = 0; at < word.length; at++) hash = Math.imul(hash ^ word.charCodeAt(at), HASH_PRIME);
  return hash;
}

/**
 * Lower-case words and a number for each (a term id), found by the span of a text they occur in
 * and its hash, so a word read in a text is looked up without making a string of it. Open
 * addressing over one typed array, the words' characters in another; emptied when it reaches
 * `limit` words (it is a cache).
 * @internal
 */
export class WordTable {
  /**
   * `ENTRY` numbers per slot: the word's hash, its value, where its characters start in `pool` and
   * its length plus one (0: an empty slot). One look-up reads one slot and the word's characters:
   * an array of strings beside it cost two more cache misses per word (the array, then the
   * string), and indexing 100,000 tools looks up millions of words.
   */
  private table = new Int32Array(INITIAL_SLOTS * ENTRY);
  private pool = new Uint16Array(INITIAL_POOL);
  private poolUsed = 0;
  private words = 0;
  /** The slot (times `ENTRY`) the last successful {@link WordTable.get} found. */
  private found = -1;

  constructor(private readonly limit = 200_000) {}

  /** The value of the word `text[start, end)` (compared lower-cased) with hash `hash`, or `undefined`. */
  get(text: string, start: number, end: number, hash: number): number | undefined {
    const table = this.table;
    const pool = this.pool;
    const mask = (table.length >> ENTRY_SHIFT) - 1;
    const length = end - start;
    for (let probe = hash & mask; ; probe = (probe + 1) & mask) {
      const at = probe << ENTRY_SHIFT;
      const stored = table[at + LENGTH] as number;
      if (stored === 0) return undefined;
      if (table[at] !== hash || stored !== length + 1) continue;
      const offset = table[at + OFFSET] as number;
      let same = true;
      for (let k = 0; k < length; k++) {
        let code = text.charCodeAt(start + k);
        if (code >= 65 && code <= 90) code += 32;
        if (code !== pool[offset + k]) {
          same = false;
          break;
        }
      }
      if (same) {
        this.found = at;
        return table[at + VALUE] as number;
      }
    }
  }

  /** Adds a lower-case word (not present) with its hash ({@link hashWord}) and value. */
  set(word: string, hash: number, value: number): void {
    if (this.words >= this.limit) this.clear();
    if (2 * (this.words + 1) > this.table.length >> ENTRY_SHIFT) this.rehash(this.table.length * 2);
    const offset = this.poolUsed;
    if (offset + word.length > this.pool.length) {
      const pool = new Uint16Array(Math.max(2 * this.pool.length, offset + word.length));
      pool.set(this.pool.subarray(0, offset));
      this.pool = pool;
    }
    for (let k = 0; k < word.length; k++) this.pool[offset + k] = word.charCodeAt(k);
    this.poolUsed = offset + word.length;
    this.words++;
    this.place(this.table, hash, value, offset, word.length + 1);
  }

  /** Sets the value of the word the last successful {@link WordTable.get} found. */
  replaceFound(value: number): void {
    this.table[this.found + VALUE] = value;
  }

  private place(table: Int32Array, hash: number, value: number, offset: number, stored: number): void {
    const mask = (table.length >> ENTRY_SHIFT) - 1;
    let at = (hash & mask) << ENTRY_SHIFT;
    while (table[at + LENGTH] !== 0) at = (at + ENTRY) & (table.length - 1);
    table[at] = hash;
    table[at + VALUE] = value;
    table[at + OFFSET] = offset;
    table[at + LENGTH] = stored;
  }

  private rehash(length: number): void {
    const old = this.table;
    const table = new Int32Array(length);
    for (let at = 0; at < old.length; at += ENTRY) {
      const stored = old[at + LENGTH] as number;
      if (stored !== 0) this.place(table, old[at] as number, old[at + VALUE] as number, old[at + OFFSET] as number, stored);
    }
    this.table = table;
    this.found = -1;
  }

  /** Forgets every word. */
  clear(): void {
    this.table = new Int32Array(INITIAL_SLOTS * ENTRY);
    this.pool = new Uint16Array(INITIAL_POOL);
    this.poolUsed = 0;
    this.words = 0;
    this.found = -1;
  }
}

/** A slot of the word table: hash, value, offset in the pool, length plus one. */
const ENTRY_SHIFT = 2;
const ENTRY = 1 << ENTRY_SHIFT;
const VALUE = 1;
const OFFSET = 2;
const LENGTH = 3;
const INITIAL_SLOTS = 1024;
const INITIAL_POOL = 4096;
