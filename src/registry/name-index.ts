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
/** The code unit that marks the start and the end of a name. */
const BOUNDARY = 1;
const PACKED_LIMIT = 2 ** 30;
/** Room the stores start with. */
const INITIAL_ROOM = 1024;

/**
 * Writes the distinct trigrams of a name into `out` (grown as needed, returned with the count),
 * lower-cased, with a boundary mark at each end, as numbers (three UTF-16 code units: no string
 * per trigram). A name has a few dozen: a linear check dedupes. Three code units below 1024 (any
 * ASCII name) pack into 30 bits, a small integer that a `Map` hashes fast; others take `2^30`
 * plus all 48 bits (a float, never equal to a packed one).
 */
function trigramsOf(name: string, out: Float64Array<ArrayBuffer>): { grams: Float64Array<ArrayBuffer>; count: number } {
  const lower = name.toLowerCase();
  let grams = out.length >= lower.length + 1 ? out : new Float64Array(2 * (lower.length + 1));
  let count = 0;
  let first = BOUNDARY;
  let second = lower.charCodeAt(0);
  for (let index = 1; index <= lower.length; index++) {
    const third = index < lower.length ? lower.charCodeAt(index) : BOUNDARY;
    const gram =
      first < 1024 && second < 1024 && third < 1024
        ? (first << 20) | (second << 10) | third
        : PACKED_LIMIT + (first * 65536 + second) * 65536 + third;
    let seen = false;
    for (let k = 0; k < count; k++) {
      if (grams[k] === gram) {
        seen = true;
        break;
      }
    }
    if (!seen) {
      if (count === grams.length) {
        const grown = new Float64Array(2 * count);
        grown.set(grams);
        grams = grown;
      }
      grams[count++] = gram;
    }
    first = second;
    second = third;
  }
  return { grams, count };
}

/** A copy of `from` with room for `capacity` entries. */
function grownInt(from: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const to = new Int32Array(capacity);
  to.set(from.subarray(0, Math.min(from.length, capacity)));
  return to;
}

/**
 * The tool names of a registry by character trigram, so that "did you mean" costs about the
 * same at 100,000 tools as at 100: a misspelled name is compared (by edit distance) only with the
 * few names that share the most trigrams with it, never with every name. Adding or removing a
 * name costs its own trigrams (amortized, each posting at most {@link DROP_POSTING} long),
 * whatever the number of names.
 *
 * Everything is held in a few typed arrays (postings in one store, each name's trigram list in
 * one arena), not in objects per name and per trigram: a registry of 100,000 tools made half a
 * million of those, and the garbage collector's work on them was most of this index's cost.
 */
export class NameIndex {
  /** Trigram → its posting's id. Posting ids are never reused (a trigram keeps its id). */
  private readonly postingOf = new Map<number, number>();
  private postings = 0;
  /** Per posting: how many names have the trigram, and whether the names are held (1: dropped). */
  private postingSize = new Int32Array(INITIAL_ROOM);
  private postingDropped = new Uint8Array(INITIAL_ROOM);
  /** Per posting: where its name ids are in `store`, and the room it has there. */
  private postingStart = new Int32Array(INITIAL_ROOM);
  private postingRoom = new Int32Array(INITIAL_ROOM);
  private store = new Int32Array(INITIAL_ROOM * 4);
  private storeUsed = 0;
  private storeReserved = 0;
  /** Name → its id; ids of removed names are reused. */
  private readonly idOf = new Map<string, number>();
  private names: (string | undefined)[] = [];
  private readonly freeIds: number[] = [];
  /** Per name id: how many times it was added, and its trigram list in the arena. */
  private nameCount = new Int32Array(INITIAL_ROOM);
  private listStart = new Int32Array(INITIAL_ROOM);
  private listLength = new Int32Array(INITIAL_ROOM);
  /** The names' trigram lists: the posting of each trigram, and the name's place in it. */
  private arenaPosting = new Int32Array(INITIAL_ROOM * 8);
  private arenaPlace = new Int32Array(INITIAL_ROOM * 8);
  private arenaUsed = 0;
  private arenaLive = 0;
  private scratch = new Float64Array(64);
  private steps = 0;

  /** Elementary steps taken so far (posting entries written or scanned): tests check it stays linear. */
  get operations(): number {
    return this.steps;
  }

  /** Adds a name (names may be added several times: two runs' private tools). */
  add(name: string): void {
    const known = this.idOf.get(name);
    if (known !== undefined) {
      this.nameCount[known] = (this.nameCount[known] as number) + 1;
      return;
    }
    const id = this.freeIds.pop() ?? this.newNameId();
    this.names[id] = name;
    this.idOf.set(name, id);
    this.nameCount[id] = 1;
    const { grams, count } = trigramsOf(name, this.scratch);
    this.scratch = grams;
    const start = this.reserveList(count);
    this.listStart[id] = start;
    this.listLength[id] = count;
    for (let k = 0; k < count; k++) {
      this.steps++;
      const gram = grams[k] as number;
      let posting = this.postingOf.get(gram);
      if (posting === undefined) {
        posting = this.newPosting();
        this.postingOf.set(gram, posting);
      }
      this.arenaPosting[start + k] = posting;
      this.arenaPlace[start + k] = this.append(posting, id);
    }
  }

  /** Removes one addition of a name. */
  remove(name: string): void {
    const id = this.idOf.get(name);
    if (id === undefined) return;
    const remaining = (this.nameCount[id] as number) - 1;
    this.nameCount[id] = remaining;
    if (remaining > 0) return;
    this.idOf.delete(name);
    this.names[id] = undefined;
    this.freeIds.push(id);
    const start = this.listStart[id] as number;
    const end = start + (this.listLength[id] as number);
    for (let k = start; k < end; k++) {
      this.steps++;
      const posting = this.arenaPosting[k] as number;
      const last = (this.postingSize[posting] as number) - 1;
      this.postingSize[posting] = last;
      if (this.postingDropped[posting] === 1) {
        if (last <= MAX_POSTING) this.rebuild(posting, last);
        continue;
      }
      // Swap-remove (a posting's order carries no meaning); the moved name learns its new place.
      const at = this.arenaPlace[k] as number;
      if (at === last) continue;
      const base = this.postingStart[posting] as number;
      const moved = this.store[base + last] as number;
      this.store[base + at] = moved;
      let m = this.listStart[moved] as number;
      while (this.arenaPosting[m] !== posting) {
        m++;
        this.steps++;
      }
      this.arenaPlace[m] = at;
    }
    this.arenaLive -= end - start;
    this.listLength[id] = 0;
  }

  /** Up to `limit` names sharing the most trigrams with `target`, most first. Bounded work. */
  near(target: string, limit: number): string[] {
    if (target.length === 0 || target.length >= MAX_TARGET_LENGTH) return [];
    const shared = new Map<number, number>();
    const { grams, count } = trigramsOf(target, this.scratch);
    this.scratch = grams;
    for (let k = 0; k < count; k++) {
      const posting = this.postingOf.get(grams[k] as number);
      if (posting === undefined || this.postingDropped[posting] === 1) continue;
      const size = this.postingSize[posting] as number;
      if (size > MAX_POSTING) continue;
      const base = this.postingStart[posting] as number;
      for (let at = base; at < base + size; at++) {
        const id = this.store[at] as number;
        shared.set(id, (shared.get(id) ?? 0) + 1);
      }
    }
    return [...shared]
      .map(([id, count]) => [this.names[id] as string, count] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([name]) => name);
  }

  /** Appends name `id` to a posting; returns its place there (0 for a dropped posting: not held). */
  private append(posting: number, id: number): number {
    const size = this.postingSize[posting] as number;
    this.postingSize[posting] = size + 1;
    if (this.postingDropped[posting] === 1) return 0;
    if (size + 1 > DROP_POSTING) {
      // Too common to rank by: keep the count, let go of the names (their room is reclaimed by
      // the next compaction).
      this.postingDropped[posting] = 1;
      this.storeReserved -= this.postingRoom[posting] as number;
      this.postingRoom[posting] = 0;
      return 0;
    }
    if (size === this.postingRoom[posting]) this.movePosting(posting, size === 0 ? 2 : size * 2);
    this.store[(this.postingStart[posting] as number) + size] = id;
    return size;
  }

  /** Holds a dropped posting's names again: one pass over the names' trigram lists. */
  private rebuild(posting: number, size: number): void {
    this.postingDropped[posting] = 0;
    this.movePosting(posting, Math.max(2, size));
    const base = this.postingStart[posting] as number;
    let at = 0;
    for (let id = 0; id < this.names.length; id++) {
      if (this.names[id] === undefined) continue;
      const start = this.listStart[id] as number;
      const end = start + (this.listLength[id] as number);
      for (let k = start; k < end; k++) {
        this.steps++;
        if (this.arenaPosting[k] !== posting) continue;
        this.arenaPlace[k] = at;
        this.store[base + at++] = id;
        break;
      }
    }
  }

  /** Gives a posting room for `room` names at the end of the store, its names copied there. */
  private movePosting(posting: number, room: number): void {
    const held = this.postingRoom[posting] as number;
    if (this.storeUsed + room > this.store.length) this.compactStore(this.storeReserved + room);
    const from = this.postingStart[posting] as number;
    const size = this.postingDropped[posting] === 1 ? 0 : Math.min(this.postingSize[posting] as number, held);
    const to = this.storeUsed;
    this.store.copyWithin(to, from, from + size);
    this.steps += size;
    this.postingStart[posting] = to;
    this.postingRoom[posting] = room;
    this.storeUsed = to + room;
    this.storeReserved += room - held;
  }

  /** Copies every posting's names, with its room, into a new store twice the room `needed`. */
  private compactStore(needed: number): void {
    const store = new Int32Array(Math.max(INITIAL_ROOM * 4, 2 * needed));
    let used = 0;
    for (let posting = 0; posting < this.postings; posting++) {
      const room = this.postingRoom[posting] as number;
      const from = this.postingStart[posting] as number;
      const size = Math.min(this.postingSize[posting] as number, room);
      for (let k = 0; k < size; k++) store[used + k] = this.store[from + k] as number;
      this.postingStart[posting] = used;
      used += room;
      this.steps += size;
    }
    this.store = store;
    this.storeUsed = used;
  }

  /**
   * Room for a trigram list of `count` entries at the end of the arena; compacts it first when
   * more than half of it belongs to removed names (paid for by as many removals).
   */
  private reserveList(count: number): number {
    if (this.arenaUsed > 2 * this.arenaLive + INITIAL_ROOM) this.compactArena();
    const needed = this.arenaUsed + count;
    if (needed > this.arenaPosting.length) {
      const capacity = Math.max(needed, 2 * this.arenaPosting.length);
      this.arenaPosting = grownInt(this.arenaPosting, capacity);
      this.arenaPlace = grownInt(this.arenaPlace, capacity);
    }
    const start = this.arenaUsed;
    this.arenaUsed = needed;
    this.arenaLive += count;
    return start;
  }

  /** Moves the live names' trigram lists to the front of the arena, in the order they lie. */
  private compactArena(): void {
    const live: number[] = [];
    for (let id = 0; id < this.names.length; id++) if (this.names[id] !== undefined) live.push(id);
    live.sort((a, b) => (this.listStart[a] as number) - (this.listStart[b] as number));
    let used = 0;
    for (const id of live) {
      const start = this.listStart[id] as number;
      const length = this.listLength[id] as number;
      this.arenaPosting.copyWithin(used, start, start + length);
      this.arenaPlace.copyWithin(used, start, start + length);
      this.listStart[id] = used;
      used += length;
    }
    this.steps += this.names.length + used;
    this.arenaUsed = used;
    this.arenaLive = used;
  }

  private newNameId(): number {
    const id = this.names.length;
    this.names.push(undefined);
    if (id === this.nameCount.length) {
      const capacity = 2 * id;
      this.nameCount = grownInt(this.nameCount, capacity);
      this.listStart = grownInt(this.listStart, capacity);
      this.listLength = grownInt(this.listLength, capacity);
    }
    return id;
  }

  private newPosting(): number {
    const posting = this.postings++;
    if (posting === this.postingSize.length) {
      const capacity = 2 * posting;
      this.postingSize = grownInt(this.postingSize, capacity);
      this.postingStart = grownInt(this.postingStart, capacity);
      this.postingRoom = grownInt(this.postingRoom, capacity);
      const dropped = new Uint8Array(capacity);
      dropped.set(this.postingDropped);
      this.postingDropped = dropped;
    }
    return posting;
  }
}
