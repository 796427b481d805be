/** Trigram postings longer than this carry too little to rank by; they are skipped. */
const MAX_POSTING = 2000;
/**
 * A posting that grows past this many names stops holding them (only its size is kept): it is
 * skipped by every lookup anyway, and a trigram every name shares (`srv`, `too`) would otherwise
 * hold the whole registry. It holds names again, rebuilt from the name list, once removals bring
 * it back to `MAX_POSTING`; the gap between the two bounds makes such a rebuild (one pass over the
 * names) happen at most once per `MAX_POSTING` removals.
 */
const DROP_POSTING = 2 * MAX_POSTING;
/** Names of this length or more are not matched (tool names have at most 64 characters). */
const MAX_TARGET_LENGTH = 128;

/**
 * The distinct trigrams of a name, lower-cased, with a boundary mark at each end, as numbers
 * (three UTF-16 code units: no string per trigram). A name has a few dozen: a linear check dedupes.
 * Three code units below 1024 (any ASCII name) pack into 30 bits, a small integer that a `Map`
 * hashes fast; others take `2^30` plus all 48 bits (a float, never equal to a packed one).
 */
function trigramsOf(name: string): number[] {
  const lower = name.toLowerCase();
  const out: number[] = [];
  let first = BOUNDARY;
  let second = lower.charCodeAt(0);
  for (let index = 1; index <= lower.length; index++) {
    const third = index < lower.length ? lower.charCodeAt(index) : BOUNDARY;
    const gram =
      first < 1024 && second < 1024 && third < 1024
        ? (first << 20) | (second << 10) | third
        : PACKED_LIMIT + (first * 65536 + second) * 65536 + third;
    if (!out.includes(gram)) out.push(gram);
    first = second;
    second = third;
  }
  return out;
}

/** The code unit that marks the start and the end of a name. */
const BOUNDARY = 1;
const PACKED_LIMIT = 2 ** 30;

/** The ids of the names having one trigram: `ids` is dropped while `size` exceeds {@link DROP_POSTING}. */
interface Posting {
  size: number;
  ids: Int32Array | undefined;
}

/**
 * One distinct name: its id in the postings, how many times it was added, and where each of its
 * trigrams' postings holds it (in `trigramsOf` order), so that removing it costs its own trigrams.
 */
interface NameRecord {
  readonly id: number;
  count: number;
  readonly positions: number[];
}

/**
 * The tool names of a registry by character trigram, so that "did you mean" costs about the
 * same at 100,000 tools as at 100: a misspelled name is compared (by edit distance) only with the
 * few names that share the most trigrams with it, never with every name. Adding or removing a
 * name costs its own trigrams (amortized, each posting at most {@link DROP_POSTING} long),
 * whatever the number of names.
 */
export class NameIndex {
  private readonly postings = new Map<number, Posting>();
  private readonly records = new Map<string, NameRecord>();
  /** Names by id; a removed name's id is free for reuse. */
  private readonly names: (string | undefined)[] = [];
  private readonly freeIds: number[] = [];
  private steps = 0;

  /** Elementary steps taken so far (posting entries written or scanned): tests check it stays linear. */
  get operations(): number {
    return this.steps;
  }

  /** Adds a name (names may be added several times: two runs' private tools). */
  add(name: string): void {
    const known = this.records.get(name);
    if (known !== undefined) {
      known.count++;
      return;
    }
    const id = this.freeIds.pop() ?? this.names.length;
    this.names[id] = name;
    const grams = trigramsOf(name);
    const positions: number[] = new Array<number>(grams.length).fill(0);
    this.records.set(name, { id, count: 1, positions });
    for (let k = 0; k < grams.length; k++) {
      const gram = grams[k] as number;
      this.steps++;
      let posting = this.postings.get(gram);
      if (posting === undefined) {
        posting = { size: 0, ids: new Int32Array(4) };
        this.postings.set(gram, posting);
      }
      const size = posting.size++;
      let ids = posting.ids;
      if (ids === undefined) continue;
      if (posting.size > DROP_POSTING) {
        posting.ids = undefined;
        continue;
      }
      if (size === ids.length) {
        ids = new Int32Array(size * 2);
        ids.set(posting.ids as Int32Array);
        posting.ids = ids;
      }
      ids[size] = id;
      positions[k] = size;
    }
  }

  /** Removes one addition of a name. */
  remove(name: string): void {
    const record = this.records.get(name);
    if (record === undefined) return;
    if (--record.count > 0) return;
    this.records.delete(name);
    this.names[record.id] = undefined;
    this.freeIds.push(record.id);
    for (const [k, gram] of trigramsOf(name).entries()) {
      this.steps++;
      const posting = this.postings.get(gram);
      if (posting === undefined) continue;
      const ids = posting.ids;
      const last = --posting.size;
      if (last === 0) this.postings.delete(gram);
      else if (ids !== undefined) {
        // Swap-remove (a posting's order carries no meaning); the moved name learns its new place.
        const at = record.positions[k] as number;
        if (at === last) continue;
        const moved = ids[last] as number;
        ids[at] = moved;
        const movedName = this.names[moved] as string;
        const movedGrams = trigramsOf(movedName);
        this.steps += movedGrams.length;
        (this.records.get(movedName) as NameRecord).positions[movedGrams.indexOf(gram)] = at;
      } else if (last <= MAX_POSTING) posting.ids = this.idsWith(gram, last);
    }
  }

  /** Up to `limit` names sharing the most trigrams with `target`, most first. Bounded work. */
  near(target: string, limit: number): string[] {
    if (target.length === 0 || target.length >= MAX_TARGET_LENGTH) return [];
    const shared = new Map<number, number>();
    for (const gram of trigramsOf(target)) {
      const posting = this.postings.get(gram);
      if (posting?.ids === undefined || posting.size > MAX_POSTING) continue;
      const { ids, size } = posting;
      for (let at = 0; at < size; at++) {
        const id = ids[at] as number;
        shared.set(id, (shared.get(id) ?? 0) + 1);
      }
    }
    return [...shared]
      .map(([id, count]) => [this.names[id] as string, count] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([name]) => name);
  }

  /** The ids of every name having `gram` (`size` of them): one pass over the names. */
  private idsWith(gram: number, size: number): Int32Array {
    const ids = new Int32Array(Math.max(4, size));
    let at = 0;
    for (const [name, record] of this.records) {
      this.steps++;
      const k = trigramsOf(name).indexOf(gram);
      if (k < 0) continue;
      record.positions[k] = at;
      ids[at++] = record.id;
    }
    return ids;
  }
}
