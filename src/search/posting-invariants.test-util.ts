import type { SearchIndex } from "./search-index.js";

/**
 * What the search walk relies on: every term's postings sorted by slot (strictly, one per
 * document) and every posting's weight within its block's bound. Counts the postings that break
 * either (`faults`) of those checked.
 */
export function postingOrderAndBoundFaults(index: SearchIndex): { faults: number; checked: number } {
  const get = (name: string) => Reflect.get(index, name);
  const terms = get("terms") as number;
  const starts = get("postingStart") as Int32Array;
  const lengths = get("postingLengths") as Int32Array;
  const slots = get("storeSlots") as Int32Array;
  const weights = get("storeWeights") as Float32Array;
  const blockMax = get("storeBlockMax") as Float32Array;
  const shift = get("blockShift") as number;
  let faults = 0;
  let checked = 0;
  for (let id = 0; id < terms; id++) {
    const start = starts[id] as number;
    for (let at = start; at < start + (lengths[id] as number); at++) {
      if (at > start && (slots[at] as number) <= (slots[at - 1] as number)) faults++;
      if ((weights[at] as number) > (blockMax[at >> shift] as number)) faults++;
      checked++;
    }
  }
  return { faults, checked };
}
