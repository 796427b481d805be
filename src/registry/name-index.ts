/** Trigram postings longer than this carry too little to rank by; they are skipped. */
const MAX_POSTING = 2000;
/** Names of this length or more are not matched (tool names have at most 64 characters). */
const MAX_TARGET_LENGTH = 128;

function trigramsOf(name: string): Set<string> {
  const padded = `\u0001${name.toLowerCase()}\u0001`;
  const out = new Set<string>();
  for (let index = 0; index + 3 <= padded.length; index++) out.add(padded.slice(index, index + 3));
  return out;
}

/**
 * The tool names of a registry by character trigram, so that "did you mean" costs about the
 * same at 100,000 tools as at 100: a misspelled name is compared (by edit distance) only with the
 * few names that share the most trigrams with it, never with every name.
 */
export class NameIndex {
  private readonly postings = new Map<string, Set<string>>();
  private readonly counts = new Map<string, number>();

  /** Adds a name (names may be added several times: two runs' private tools). */
  add(name: string): void {
    const count = this.counts.get(name) ?? 0;
    this.counts.set(name, count + 1);
    if (count > 0) return;
    for (const gram of trigramsOf(name)) {
      let set = this.postings.get(gram);
      if (set === undefined) {
        set = new Set();
        this.postings.set(gram, set);
      }
      set.add(name);
    }
  }

  /** Removes one addition of a name. */
  remove(name: string): void {
    const count = this.counts.get(name) ?? 0;
    if (count > 1) {
      this.counts.set(name, count - 1);
      return;
    }
    if (count === 0) return;
    this.counts.delete(name);
    for (const gram of trigramsOf(name)) {
      const set = this.postings.get(gram);
      set?.delete(name);
      if (set?.size === 0) this.postings.delete(gram);
    }
  }

  /** Up to `limit` names sharing the most trigrams with `target`, most first. Bounded work. */
  near(target: string, limit: number): string[] {
    if (target.length === 0 || target.length >= MAX_TARGET_LENGTH) return [];
    const shared = new Map<string, number>();
    for (const gram of trigramsOf(target)) {
      const set = this.postings.get(gram);
      if (set === undefined || set.size > MAX_POSTING) continue;
      for (const name of set) shared.set(name, (shared.get(name) ?? 0) + 1);
    }
    return [...shared]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([name]) => name);
  }
}
