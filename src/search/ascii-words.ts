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
 * Calls `visit(start, end, hash)` for each word of an ASCII text, split exactly as `tokenize`
 * splits it (runs of letters and digits; `camelCase`, `PascalCase`, `HTTPServer` and `v2Api` into
 * their words), in order, with `hash` a 32-bit hash of the lower-cased word ({@link hashWord}):
 * no regular expression, no lower-cased copy, no string per word. Indexing 100,000 tools reads
 * millions of words, and those copies were most of its cost.
 * The boundaries inside a run are the two rules of `splitAsciiCamelCase`: before an upper-case
 * letter that follows a lower-case letter or a digit, and before an upper-case letter that
 * follows an upper-case letter and precedes a lower-case one.
 * @internal
 */
export function forEachAsciiWord(text: string, visit: (start: number, end: number, hash: number) => void): void {
  const length = text.length;
  let start = -1;
  let previous = OTHER;
  let hash = 0;
  for (let at = 0; at < length; at++) {
    const code = text.charCodeAt(at);
    const kind = kindOf(code);
    if (kind === OTHER) {
      if (start >= 0) visit(start, at, hash);
      start = -1;
      previous = kind;
      continue;
    }
    if (start >= 0 && kind === UPPER && (previous !== UPPER || (at + 1 < length && kindOf(text.charCodeAt(at + 1)) === LOWER))) {
      visit(start, at, hash);
      start = -1;
    }
    if (start < 0) {
      start = at;
      hash = HASH_SEED;
    }
    hash = Math.imul(hash ^ (kind === UPPER ? code + 32 : code), HASH_PRIME);
    previous = kind;
  }
  if (start >= 0) visit(start, length, hash);
}

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
 * addressing; emptied when it reaches `limit` words (it is a cache).
 * @internal
 */
export class WordTable {
  private slots = new Int32Array(1024);
  private words: string[] = [];
  /**
   * Per entry, its hash and value, in typed arrays sized with `slots` (half of it): JavaScript
   * arrays grown by push left copies of themselves in the old generation for the next full
   * collection to walk (a catalog of 100,000 tools has about as many distinct words).
   */
  private hashes = new Int32Array(512);
  private values = new Int32Array(512);
  /** The entry the last successful {@link WordTable.get} found. */
  private found = -1;

  constructor(private readonly limit = 200_000) {}

  /** The value of the word `text[start, end)` (compared lower-cased) with hash `hash`, or `undefined`. */
  get(text: string, start: number, end: number, hash: number): number | undefined {
    const mask = this.slots.length - 1;
    const length = end - start;
    for (let probe = hash & mask; ; probe = (probe + 1) & mask) {
      const entry = (this.slots[probe] as number) - 1;
      if (entry < 0) return undefined;
      if (this.hashes[entry] !== hash) continue;
      const word = this.words[entry] as string;
      if (word.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        let code = text.charCodeAt(start + k);
        if (code >= 65 && code <= 90) code += 32;
        if (code !== word.charCodeAt(k)) {
          same = false;
          break;
        }
      }
      if (same) {
        this.found = entry;
        return this.values[entry] as number;
      }
    }
  }

  /** Adds a lower-case word (not present) with its hash ({@link hashWord}) and value. */
  set(word: string, hash: number, value: number): void {
    if (this.words.length >= this.limit) this.clear();
    if (2 * (this.words.length + 1) > this.slots.length) this.rehash(this.slots.length * 2);
    const entry = this.words.length;
    this.words.push(word);
    this.hashes[entry] = hash;
    this.values[entry] = value;
    this.place(entry);
  }

  /** Sets the value of the word the last successful {@link WordTable.get} found. */
  replaceFound(value: number): void {
    this.values[this.found] = value;
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let probe = (this.hashes[entry] as number) & mask;
    while (this.slots[probe] !== 0) probe = (probe + 1) & mask;
    this.slots[probe] = entry + 1;
  }

  private rehash(capacity: number): void {
    this.slots = new Int32Array(capacity);
    const hashes = new Int32Array(capacity >> 1);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const values = new Int32Array(capacity >> 1);
    values.set(this.values);
    this.values = values;
    for (let entry = 0; entry < this.words.length; entry++) this.place(entry);
  }

  /** Forgets every word. */
  clear(): void {
    this.slots = new Int32Array(1024);
    this.words = [];
    this.hashes = new Int32Array(512);
    this.values = new Int32Array(512);
  }
}
