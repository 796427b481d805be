import type { SearchHit } from "../tool/tool-context.js";

/**
 * Keeps the `k` best-scored names seen, in a min-heap: O(n log k) over n candidates.
 * Ties are broken by name so results are stable across runs.
 */
export class TopK {
  private readonly heap: SearchHit[] = [];

  constructor(private readonly k: number) {}

  /** True when a candidate with this score and name would be kept now (check it before costly work). */
  admits(name: string, score: number): boolean {
    const heap = this.heap;
    return heap.length < this.k || worse(heap[0] as SearchHit, name, score);
  }

  /** The lowest kept score once `k` are kept (what a candidate must reach), else 0. */
  floor(): number {
    return this.heap.length < this.k ? 0 : (this.heap[0] as SearchHit).score;
  }

  /** Considers one candidate. */
  offer(name: string, score: number): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push({ name, score });
      this.siftUp(heap.length - 1);
    } else if (worse(heap[0] as SearchHit, name, score)) {
      heap[0] = { name, score };
      this.siftDown(0);
    }
  }

  /** The kept candidates, best first. */
  sorted(): SearchHit[] {
    return [...this.heap].sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private siftUp(start: number): void {
    const heap = this.heap;
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >>> 1;
      if (!isLess(heap[index] as SearchHit, heap[parent] as SearchHit)) break;
      [heap[index], heap[parent]] = [heap[parent] as SearchHit, heap[index] as SearchHit];
      index = parent;
    }
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && isLess(heap[left] as SearchHit, heap[smallest] as SearchHit)) smallest = left;
      if (right < heap.length && isLess(heap[right] as SearchHit, heap[smallest] as SearchHit)) smallest = right;
      if (smallest === index) return;
      [heap[index], heap[smallest]] = [heap[smallest] as SearchHit, heap[index] as SearchHit];
      index = smallest;
    }
  }
}

/** a ranks below b: lower score, or equal score and later name. */
function isLess(a: SearchHit, b: SearchHit): boolean {
  return a.score < b.score || (a.score === b.score && a.name > b.name);
}

function worse(top: SearchHit, name: string, score: number): boolean {
  return top.score < score || (top.score === score && top.name > name);
}
