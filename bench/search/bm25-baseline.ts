/**
 * Plain Okapi BM25 over one text field (k1 = 1.2, b = 0.75), with the simplest tokenizer:
 * lower-case, split on anything that is not a letter or digit. No stemming, no stop words, no
 * field weights: the floor the catalog's search must beat.
 */
export class Bm25Baseline {
  private readonly names: string[] = [];
  private readonly termFrequencies: Map<string, number>[] = [];
  private readonly lengths: number[] = [];
  private readonly documentFrequency = new Map<string, number>();
  private averageLength = 0;

  constructor(documents: readonly { readonly name: string; readonly text: string }[]) {
    for (const document of documents) {
      const terms = baselineTokens(document.text);
      const frequencies = new Map<string, number>();
      for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      for (const term of frequencies.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      this.names.push(document.name);
      this.termFrequencies.push(frequencies);
      this.lengths.push(terms.length);
    }
    this.averageLength = this.lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, this.lengths.length);
  }

  /** The names of the best `limit` documents, best first (ties by name). */
  search(query: string, limit: number): string[] {
    const k1 = 1.2;
    const b = 0.75;
    const n = this.names.length;
    const terms = [...new Set(baselineTokens(query))];
    const scored: { name: string; score: number }[] = [];
    this.termFrequencies.forEach((frequencies, index) => {
      let score = 0;
      for (const term of terms) {
        const tf = frequencies.get(term);
        if (tf === undefined) continue;
        const df = this.documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * (this.lengths[index] ?? 0)) / this.averageLength));
      }
      if (score > 0) scored.push({ name: this.names[index] as string, score });
    });
    scored.sort((x, y) => y.score - x.score || x.name.localeCompare(y.name));
    return scored.slice(0, limit).map((entry) => entry.name);
  }
}

/** Lower-cased runs of letters and digits. */
export function baselineTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
