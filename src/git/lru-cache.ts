/**
 * A map that forgets its least recently used entries once their total weight passes a budget.
 * Git objects never change once written, so a cached object is never stale; the budget is the
 * only reason to forget one.
 *
 * Two generations rather than an exact LRU list: new and recently used entries go to the young
 * map; when it holds half the budget it becomes the old map and the previous old map is dropped
 * whole. A hit in the old map moves the entry to the young one. Lookups are one or two `Map.get`s
 * and nothing is ever deleted one by one, which on a history walk (hundreds of thousands of
 * lookups in maps of tens of thousands of entries) cost more than the reads the cache saved.
 */
export class LruCache<Key, Value> {
  private young = new Map<Key, Value>();
  private old = new Map<Key, Value>();
  private youngWeight = 0;
  private readonly half: number;

  /**
   * @param budget - largest total weight kept (bytes, roughly); one value may weigh half of it
   * @param weigh - the weight of one value
   */
  constructor(
    budget: number,
    private readonly weigh: (value: Value) => number,
  ) {
    this.half = budget / 2;
  }

  /**
   * Whether a value of this weight would be kept at all (one heavier than half the budget never is):
   * a caller that builds such a value only to pass it on can build it in memory it reuses.
   */
  keeps(weight: number): boolean {
    return weight <= this.half;
  }

  /** The value for `key`, marked as used; `undefined` when absent. */
  get(key: Key): Value | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const old = this.old.get(key);
    if (old !== undefined) this.add(key, old);
    return old;
  }

  /** Stores a value; when the young half is full, the old half is forgotten. */
  set(key: Key, value: Value): void {
    this.add(key, value);
  }

  private add(key: Key, value: Value): void {
    const weight = this.weigh(value);
    if (weight > this.half) return;
    const young = this.young;
    const size = young.size;
    // One hash lookup, not `has` then `set` (a walk stores thousands of objects). A key already
    // young is not weighed twice; its value is replaced, by an equal object (objects never change)
    // or, where a cache keys by part of an id, by another object that every hit checks by id.
    young.set(key, value);
    if (young.size === size) return;
    this.youngWeight += weight;
    if (this.youngWeight > this.half) {
      this.old = this.young;
      this.young = new Map();
      this.youngWeight = 0;
    }
  }

  /** Entries kept now (an entry used in both halves counts twice). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** Forgets everything. */
  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngWeight = 0;
  }
}
