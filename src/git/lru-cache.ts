/**
 * A map that forgets its least recently used entries once their total weight passes a budget.
 * Git objects never change once written, so a cached object is never stale; the budget is the
 * only reason to forget one.
 */
export class LruCache<Key, Value> {
  private readonly entries = new Map<Key, { readonly value: Value; readonly weight: number; stamp: number }>();
  private total = 0;
  private clock = 0;

  /**
   * @param budget - largest total weight kept (bytes, roughly)
   * @param weigh - the weight of one value
   */
  constructor(
    private readonly budget: number,
    private readonly weigh: (value: Value) => number,
  ) {}

  /**
   * The value for `key`, marked as used; `undefined` when absent. An entry is moved to the young
   * end only once it has drifted into the older half, which keeps hot lookups to one `Map.get`.
   */
  get(key: Key): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.clock - entry.stamp > this.entries.size / 2) {
      this.entries.delete(key);
      entry.stamp = ++this.clock;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  /** Stores a value, then forgets the oldest entries until the budget holds again. */
  set(key: Key, value: Value): void {
    const weight = this.weigh(value);
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.total -= previous.weight;
      this.entries.delete(key);
    }
    if (weight > this.budget) return;
    this.entries.set(key, { value, weight, stamp: ++this.clock });
    this.total += weight;
    if (this.total <= this.budget) return;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.budget) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }

  /** Entries kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
