import type { SearchHit } from "../tool/tool-context.js";
import { forEachAsciiWord, WordTable } from "./ascii-words.js";
import { querySpans } from "./query-arguments.js";
import { type RelatedWords, relatedWords } from "./related-words.js";
import { isStopWord, rawWords, stemWord, tokenize } from "./tokenize.js";
import { TopK } from "./top-k.js";

/**
 * What the index knows of a tool.
 *
 * @public
 */
export interface SearchDocument {
  /** The document's key in the index, and the `name` of its hits. @defaultValue `name` */
  readonly id?: string;
  /** The tool name; split on `_`, `-` and case changes. */
  readonly name: string;
  /** The description. */
  readonly description: string;
  /** A human title (MCP `annotations.title`). */
  readonly title?: string | undefined;
  /** Tags, e.g. `["git", "mcp_server:github"]`. */
  readonly tags?: readonly string[];
  /**
   * The server or package the tool comes from. @defaultValue the `mcp_server:<name>` tag, else
   * the part of the name before `__` or `.` (`github__create_issue`).
   */
  readonly server?: string | undefined;
  /** Parameter names and descriptions, from the input schema. */
  readonly parameters?: readonly { readonly name: string; readonly description?: string | undefined }[];
}

/**
 * Weight and length normalisation of one field in BM25F.
 *
 * @public
 */
export interface FieldWeight {
  /** How much one occurrence in this field counts. */
  readonly weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  readonly lengthNormalization: number;
}

/**
 * The fields of a {@link SearchDocument}.
 *
 * @public
 */
export type SearchField = "name" | "server" | "title" | "tags" | "description" | "parameters";

/**
 * Options of a {@link SearchIndex}.
 *
 * @public
 */
export interface SearchIndexOptions {
  /** Per-field weights (the default fields for the rest). */
  readonly fields?: Partial<Record<SearchField, FieldWeight>>;
  /**
   * BM25 term-frequency saturation.
   * @defaultValue 4
   */
  readonly k1?: number;
  /**
   * Split a query word that no tool contains into two that tools do contain (`readfile` →
   * `read file`), as names are split.
   * @defaultValue true
   */
  readonly splitCompounds?: boolean;
  /**
   * How far (relative) an average field length may drift from the one the stored term weights were
   * computed with before they are all recomputed, at the next search. 0 recomputes after every
   * change that moves an average (exact BM25F, slow for large catalogs under churn).
   * @defaultValue 0.01
   */
  readonly statisticsTolerance?: number;
  /**
   * How much a word related to a query word counts (see `related-words.ts`: "tell" also looks up
   * "send", "post", "notify"), as a fraction of an exact match's weight; 0 turns it off.
   * @defaultValue 0.4
   */
  readonly relatedWeight?: number;
  /**
   * More groups of related words, for a catalog's own vocabulary: each a space-separated list of
   * words that mean the same thing to its users (`"invoice bill receipt"`, `"pod container"`).
   * Added to the built-in groups.
   */
  readonly relatedWords?: readonly string[];
  /**
   * Read URLs, paths and file names in a query as values: their words count half (they name what
   * to act on, not the action: `https://kubernetes.io/...` should not pull the kubernetes tools)
   * and the kind of value (`url`, `file`, `path`) counts as a word of the request. `false` reads
   * them as plain words.
   * @defaultValue true
   */
  readonly queryValues?: boolean;
}

/**
 * The default BM25F fields. Field weights were chosen on the MCP servers development set
 * (bench/data/mcp-servers); the length normalisation of descriptions and parameters, with k1 and
 * the related-word weight, on the mean nDCG@10 of that set and both MetaTool sets
 * (bench/results/search-quality.json lists every configuration tried): the name says what a tool
 * is, the server which system it acts on; descriptions and parameters add evidence at plain
 * weight, and a long description (usage examples, JSON samples) does not outweigh a short exact one.
 */
export const DEFAULT_SEARCH_FIELDS: Readonly<Record<SearchField, FieldWeight>> = Object.freeze({
  name: { weight: 5, lengthNormalization: 0.75 },
  server: { weight: 3, lengthNormalization: 0.3 },
  title: { weight: 2, lengthNormalization: 0.75 },
  tags: { weight: 1, lengthNormalization: 0.5 },
  description: { weight: 1, lengthNormalization: 0.9 },
  parameters: { weight: 1, lengthNormalization: 0.75 },
});
const FIELDS: readonly SearchField[] = ["name", "server", "title", "tags", "description", "parameters"];
const FIELD_COUNT = FIELDS.length;
const NAME = 0;
const SERVER = 1;
const TITLE = 2;
const TAGS = 3;
const DESCRIPTION = 4;
const PARAMETERS = 5;
/** Distinct surface words remembered with their term id; the cache is emptied when it reaches this. */
const WORD_CACHE_LIMIT = 200_000;
const NON_ASCII = /[^\u0020-\u007e\t\n\r]/;
/** Query words this long or longer may be split in two; each part at least `MIN_PART` letters. */
const MIN_COMPOUND = 6;
const MIN_PART = 3;
/** Longer words are not split: real compounds of two name words are short, and each try stems. */
const MAX_COMPOUND = 32;
const MAX_TF = 255;
/** Postings the store starts with room for; each compaction leaves it twice the room it needs. */
const INITIAL_STORE = 4096;
/** Terms with more postings than this are copied by a compaction through array views. */
const COPY_BY_VIEW = 16;
/**
 * A posting is walked rather than looked up in each remaining candidate's term list when it is
 * shorter than this many times the candidates (a term list is a short sequential scan; a posting
 * walk touches scattered scores).
 */
const LOOKUP_COST = 8;
const SERVER_TAG = "mcp_server:";
/**
 * The words of a URL or path in a query count half (they name what to act on, not the action);
 * the kind of value (`url`, `file`, `path`) counts as a word of the request. Chosen on the
 * development sets (bench/results/search-quality.json).
 */
const VALUE_WEIGHT = 0.5;
const KIND_WEIGHT = 1;

/**
 * A BM25F keyword index over tool documents that updates in place: adding, replacing or removing a
 * document touches only that document's terms (about one document of work), and scores are
 * computed at query time from per-field term counts, so the collection statistics (document
 * frequencies, average field lengths) are always current without any rebuild.
 * @public
 */
export class SearchIndex {
  /** The store's first size; tests lower it to make small indexes move and compact postings. */
  private static initialStore = INITIAL_STORE;
  /** Per field (in `FIELDS` order): its weight and its length normalisation. */
  private readonly fieldWeight = new Float64Array(FIELD_COUNT);
  private readonly fieldNormalization = new Float64Array(FIELD_COUNT);
  private readonly k1: number;
  private readonly splitCompounds: boolean;
  private readonly relatedWeight: number;
  private readonly extraRelatedWords: readonly string[];
  private readonly queryValues: boolean;
  private related: RelatedWords | undefined;
  /** Slot of each document key; freed slots are reused. */
  private readonly slotOf = new Map<string, number>();
  private keys: (string | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  /**
   * The distinct term ids of each slot's document, to remove it again: `termCount[slot]` of them
   * from `termStart[slot]` in `arenaTerms`. One shared array, not one per document: 100,000
   * small typed arrays cost the garbage collector more than the index itself.
   */
  private termStart = new Int32Array(0);
  private termCount = new Int32Array(0);
  private arenaTerms = new Int32Array(1024);
  /**
   * Where each of those terms' postings holds the slot (parallel to `arenaTerms`), so that
   * removing a document costs its own terms, not a scan of postings as long as the catalog.
   */
  private arenaPositions = new Int32Array(1024);
  /** Entries of the arena written so far, and those still belonging to a document. */
  private arenaUsed = 0;
  private arenaLive = 0;
  /** Field lengths, `FIELD_COUNT` per slot. */
  private fieldLengths = new Float32Array(0);
  private readonly fieldTotals = new Float64Array(FIELD_COUNT);
  /** The average field lengths the stored weights were computed with. */
  private readonly averages = new Float64Array(FIELD_COUNT).fill(1);
  private readonly tolerance: number;
  /**
   * False until the first search, and again whenever stored weights may be stale: adding a
   * document then skips computing its weights, which the next search computes for every posting
   * at once under the averages of that moment. A bulk load (100,000 tools) thus pays one weight
   * per posting, once, instead of one per add and a full recomputation at the first search.
   */
  private weightsCurrent = false;
  /** Per-field counts of the document being added, `FIELD_COUNT` per distinct term (scratch). */
  private scratchCounts = new Uint8Array(64 * FIELD_COUNT);
  /** The distinct term ids of the document being added, in first-seen order (scratch). */
  private scratchTerms = new Int32Array(64);
  /** Per term id: the add that saw it last (`stamp`) and its place in `scratchTerms` then. */
  private seenIn = new Int32Array(0);
  private seenAt = new Int32Array(0);
  private stamp = 0;
  /** Distinct terms of the document being added so far, and terms of its current field. */
  private distinct = 0;
  private fieldTerms = 0;
  /** The text being scanned, its field, and whether its stop words count (names: yes). */
  private scanText = "";
  private scanField = 0;
  private scanKeepStopWords = false;
  /** Lower-case word to term id, negative (`-1 - id`) for a stop word. A cache. */
  private readonly wordTerms = new WordTable(WORD_CACHE_LIMIT);
  private steps = 0;
  private readonly termIds = new Map<string, number>();
  /** Term ids handed out so far (the per-term arrays below hold this many). */
  private terms = 0;
  /**
   * The postings of every term, in one store of three parallel arrays (the slot, its per-field
   * counts, `FIELD_COUNT` bytes each, and its saturated BM25F weight `tf / (k1 + tf)` under
   * `averages`): term `id` holds `postingLengths[id]` postings from `postingStart[id]`, with room
   * for `postingCapacity[id]`. A term that outgrows its room moves to the end of the store with
   * twice the room; the store is compacted whenever it grows. Per-term typed arrays (three for
   * each of 100,000+ terms) made the garbage collector most of the cost of a bulk load.
   */
  private storeSlots = new Int32Array(SearchIndex.initialStore);
  private storeCounts = new Uint8Array(SearchIndex.initialStore * FIELD_COUNT);
  private storeWeights = new Float32Array(SearchIndex.initialStore);
  /** Store entries handed out (live, free room of a term, or left behind by a moved term). */
  private storeUsed = 0;
  /** The room of every term together: what a compaction keeps. */
  private storeReserved = 0;
  private postingStart = new Int32Array(0);
  private postingCapacity = new Int32Array(0);
  private postingLengths = new Int32Array(0);
  /**
   * Per term: at least its largest posting weight (an upper bound: exact after a refresh, raised by
   * additions, left as is by removals). Searches bound what a term can add to a score with it.
   */
  private postingMax = new Float32Array(0);
  /** Per term: how many documents have it in their name (compound splits use only such words). */
  private nameFrequency = new Int32Array(0);
  private scores = new Float64Array(0);
  /**
   * The tools a search has touched so far (`touchedCount` of them), in a buffer as long as the
   * slots: a search at 100,000 tools touches tens of thousands, and a growing array was a fifth
   * of its time. Once the search closes, dropped tools leave it (their scores back to 0).
   */
  private touched = new Int32Array(0);
  private touchedCount = 0;
  /** Postings not walked by searches so far (looked up in the few remaining candidates instead); tests read it. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by the pruning test (element access)
  private postingsSkipped = 0;
  /** Candidates read by the passes of searches so far (each pass finds a k-th best score); tests read it. */
  private candidatesRead = 0;
  /** The slots of the k best candidates found by the last pass of a search (`topFilled` of them). */
  private topSlots = new Int32Array(16);
  private topFilled = 0;

  constructor(options: SearchIndexOptions = {}) {
    const fields: Record<SearchField, FieldWeight> = { ...DEFAULT_SEARCH_FIELDS, ...options.fields };
    FIELDS.forEach((field, f) => {
      this.fieldWeight[f] = fields[field].weight;
      this.fieldNormalization[f] = fields[field].lengthNormalization;
    });
    this.k1 = options.k1 ?? 4;
    this.splitCompounds = options.splitCompounds ?? true;
    this.tolerance = options.statisticsTolerance ?? 0.01;
    this.relatedWeight = options.relatedWeight ?? 0.4;
    if (!(this.relatedWeight >= 0 && this.relatedWeight <= 1))
      throw new RangeError(`relatedWeight must be between 0 and 1, got ${String(options.relatedWeight)}.`);
    this.extraRelatedWords = [...(options.relatedWords ?? [])];
    this.queryValues = options.queryValues ?? true;
  }

  /** The number of documents. */
  get size(): number {
    return this.slotOf.size;
  }

  /**
   * Elementary steps of index maintenance taken so far (terms read, postings written, moved or
   * reweighted). Deterministic: tests use it to check that maintenance grows with the documents
   * changed, never with the size of the index.
   */
  get operations(): number {
    return this.steps;
  }

  /** Adds or replaces a document. */
  set(document: SearchDocument): void {
    const key = document.id ?? document.name;
    this.delete(key);
    const slot = this.freeSlots.pop() ?? this.grow();
    this.keys[slot] = key;
    this.slotOf.set(key, slot);
    // A new stamp marks every term id unseen for this document, without clearing anything.
    this.stamp++;
    this.distinct = 0;
    const server = serverOf(document);
    // One field at a time: `fieldTerms` counts the field's terms (its length).
    this.fieldTerms = 0;
    this.addText(ownName(document.name, server), NAME, true);
    this.closeField(slot, NAME);
    if (server !== undefined) this.addText(server, SERVER, true);
    this.closeField(slot, SERVER);
    if (document.title !== undefined) this.addText(document.title, TITLE, true);
    this.closeField(slot, TITLE);
    for (const tag of document.tags ?? []) if (!tag.startsWith(SERVER_TAG)) this.addText(tag, TAGS, true);
    this.closeField(slot, TAGS);
    this.addText(document.description, DESCRIPTION, false);
    this.closeField(slot, DESCRIPTION);
    for (const parameter of document.parameters ?? []) {
      this.addText(parameter.name, PARAMETERS, true);
      if (parameter.description !== undefined) this.addText(parameter.description, PARAMETERS, false);
    }
    this.closeField(slot, PARAMETERS);
    const distinct = this.distinct;
    const start = this.reserveArena(distinct);
    const terms = this.arenaTerms;
    const positions = this.arenaPositions;
    for (let at = 0; at < distinct; at++) {
      const id = this.scratchTerms[at] as number;
      terms[start + at] = id;
      positions[start + at] = this.addPosting(id, slot, at * FIELD_COUNT);
    }
    this.termStart[slot] = start;
    this.termCount[slot] = distinct;
  }

  /** Ends field `f` of the document being added: its length is the terms counted since the last field. */
  private closeField(slot: number, f: number): void {
    this.fieldLengths[slot * FIELD_COUNT + f] = this.fieldTerms;
    this.fieldTotals[f] = (this.fieldTotals[f] as number) + this.fieldTerms;
    this.fieldTerms = 0;
  }

  /**
   * The terms of one text, as `tokenize` gives them, counted into the scratch. ASCII text (nearly
   * every catalog) is scanned in place and each word looked up once in `wordTerms` (surface form to
   * term id): no lower-cased copy, no array of words, no separate stem and term look-ups.
   */
  private addText(text: string, f: number, keepStopWords: boolean): void {
    if (NON_ASCII.test(text)) {
      for (const term of tokenize(text, { keepStopWords })) this.count(this.termId(term), f);
      return;
    }
    this.scanText = text;
    this.scanField = f;
    this.scanKeepStopWords = keepStopWords;
    forEachAsciiWord(text, this.visitWord);
    this.scanText = "";
  }

  /** `forEachAsciiWord`'s visitor: counts one word of `scanText`. */
  private readonly visitWord = (start: number, end: number, hash: number): void => {
    let coded = this.wordTerms.get(this.scanText, start, end, hash);
    if (coded === undefined) {
      const lower = this.scanText.slice(start, end).toLowerCase();
      const id = this.termId(stemWord(lower));
      // A stop word is coded negative: kept in names, dropped from descriptions.
      coded = isStopWord(lower) ? -1 - id : id;
      this.wordTerms.set(lower, hash, coded);
    }
    if (coded >= 0) this.count(coded, this.scanField);
    else if (this.scanKeepStopWords) this.count(-1 - coded, this.scanField);
  };

  /** One occurrence of term `id` in field `f` of the document being added. */
  private count(id: number, f: number): void {
    this.steps++;
    this.fieldTerms++;
    let at: number;
    if (this.seenIn[id] === this.stamp) at = this.seenAt[id] as number;
    else {
      at = this.distinct++;
      this.seenIn[id] = this.stamp;
      this.seenAt[id] = at;
      if (at === this.scratchTerms.length) {
        const grownTerms = new Int32Array(at * 2);
        grownTerms.set(this.scratchTerms);
        this.scratchTerms = grownTerms;
        const grown = new Uint8Array(at * 2 * FIELD_COUNT);
        grown.set(this.scratchCounts);
        this.scratchCounts = grown;
      }
      this.scratchTerms[at] = id;
      this.scratchCounts.fill(0, at * FIELD_COUNT, (at + 1) * FIELD_COUNT);
    }
    const cell = at * FIELD_COUNT + f;
    if ((this.scratchCounts[cell] as number) < MAX_TF) this.scratchCounts[cell] = (this.scratchCounts[cell] as number) + 1;
  }

  /**
   * Room for `count` entries at the end of the arena; compacts it first when more than half of
   * it belongs to removed documents (a pass over the live entries, paid for by as many removals).
   */
  private reserveArena(count: number): number {
    if (this.arenaUsed > 2 * this.arenaLive + 1024) this.compactArena();
    const needed = this.arenaUsed + count;
    if (needed > this.arenaTerms.length) {
      const capacity = Math.max(needed, this.arenaTerms.length * 2);
      const terms = new Int32Array(capacity);
      terms.set(this.arenaTerms.subarray(0, this.arenaUsed));
      this.arenaTerms = terms;
      const positions = new Int32Array(capacity);
      positions.set(this.arenaPositions.subarray(0, this.arenaUsed));
      this.arenaPositions = positions;
    }
    const start = this.arenaUsed;
    this.arenaUsed = needed;
    this.arenaLive += count;
    return start;
  }

  private compactArena(): void {
    let used = 0;
    const terms = this.arenaTerms;
    const positions = this.arenaPositions;
    // Slots in order of their arena start, so entries only ever move towards the front.
    const live: number[] = [];
    for (let slot = 0; slot < this.keys.length; slot++) if (this.keys[slot] !== undefined) live.push(slot);
    this.steps += this.keys.length + this.arenaLive;
    live.sort((a, b) => (this.termStart[a] as number) - (this.termStart[b] as number));
    for (const slot of live) {
      const start = this.termStart[slot] as number;
      const count = this.termCount[slot] as number;
      terms.copyWithin(used, start, start + count);
      positions.copyWithin(used, start, start + count);
      this.termStart[slot] = used;
      used += count;
    }
    this.arenaUsed = used;
    this.arenaLive = used;
  }

  /** Removes a document; true when it was there. */
  delete(key: string): boolean {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return false;
    this.slotOf.delete(key);
    const start = this.termStart[slot] as number;
    const end = start + (this.termCount[slot] as number);
    for (let at = start; at < end; at++) this.removePosting(this.arenaTerms[at] as number, this.arenaPositions[at] as number);
    this.arenaLive -= end - start;
    for (let f = 0; f < FIELD_COUNT; f++) {
      this.fieldTotals[f] = (this.fieldTotals[f] as number) - (this.fieldLengths[slot * FIELD_COUNT + f] as number);
      this.fieldLengths[slot * FIELD_COUNT + f] = 0;
    }
    this.keys[slot] = undefined;
    this.termCount[slot] = 0;
    this.freeSlots.push(slot);
    return true;
  }

  /** Kept for callers of the former lazily built index: there is nothing to build. */
  build(): void {}

  /** The number of term postings held (for memory reports). */
  get postingCount(): number {
    let total = 0;
    for (let id = 0; id < this.terms; id++) total += this.postingLengths[id] as number;
    return total;
  }

  /**
   * The best matches for `query`, best first. `accept` limits the candidates (e.g. to what a
   * run may activate) before the top `limit` are taken.
   */
  search(query: string, limit = 10, accept?: (name: string) => boolean): SearchHit[] {
    const count = this.slotOf.size;
    if (count === 0 || limit <= 0) return [];
    this.touchedCount = 0;
    const scores = this.scores;
    this.refreshIfDrifted(count);
    // Rarest terms first. What a term can add is bounded by its weight times its largest posting
    // weight. Once the k-th best score so far beats what all the remaining terms
    // together could add, no untouched tool can reach the top k: the remaining (common, long)
    // terms then only update tools already touched (MaxScore). From then on, a touched tool whose
    // score plus what the remaining terms could add stays below the k-th best is dropped, and
    // while few tools remain, a long posting is not walked: each remaining tool's own term list
    // says whether it has the term and where its weight is. Scores are summed in the same term
    // order either way, so the ranking is the exhaustive one to the last bit.
    const weighted = this.queryTerms(query);
    const terms = [...weighted.keys()].sort((a, b) => (this.postingLengths[a] as number) - (this.postingLengths[b] as number));
    const idfs = terms.map((id) => idfOf(count, this.postingLengths[id] as number) * (weighted.get(id) as number));
    // The most each term can add to a score: its weight times its largest posting weight.
    const bounds = terms.map((id, i) => (idfs[i] as number) * (this.postingMax[id] as number));
    let rest = bounds.reduce((sum, bound) => sum + bound, 0);
    let open = true;
    // A check finds a lower bound of the k-th best final score (`kth`: scores only grow) and, once
    // closed, drops the candidates that cannot reach it. A full check is a pass over the
    // candidates, so first the k tools that were the best at the last pass are looked at: the
    // lowest of their current scores is a lower bound too, often enough to close (k reads, not
    // tens of thousands). Once closed, one pass both drops with the bound known and finds the
    // next one. Checks are made when the remaining bound halved since the last one, or (once
    // closed) when the next posting is longer than the candidates.
    this.topFilled = 0;
    let kth = 0;
    let checkBelow = rest / 2;
    for (let i = 0; i < terms.length; i++) {
      const id = terms[i] as number;
      const length = this.postingLengths[id] as number;
      if (this.touchedCount >= limit && (rest <= checkBelow || (!open && this.touchedCount < length))) {
        kth = Math.max(kth, this.recordedKth(limit));
        if (open && !closes(kth, rest)) kth = this.scan(limit, accept, Number.NEGATIVE_INFINITY);
        if (closes(kth, rest)) open = false;
        // Once closed, only the touched tools that may still reach the top k stay.
        if (!open) kth = Math.max(kth, this.scan(limit, accept, kth - rest * (1 + 1e-9) - 1e-9));
        checkBelow = rest / 2;
      }
      if (!open && this.touchedCount * LOOKUP_COST < length) this.accumulateLive(id, idfs[i] as number);
      else this.accumulate(id, idfs[i] as number, open);
      rest -= bounds[i] as number;
    }
    const hits = this.topOf(limit, accept);
    const touched = this.touched;
    for (let at = 0; at < this.touchedCount; at++) scores[touched[at] as number] = 0;
    return hits;
  }

  /** The best `limit` touched tools that `accept` admits, best first. */
  private topOf(limit: number, accept: ((name: string) => boolean) | undefined): SearchHit[] {
    const keys = this.keys;
    const scores = this.scores;
    const touched = this.touched;
    const top = new TopK(limit);
    for (let at = 0; at < this.touchedCount; at++) {
      const slot = touched[at] as number;
      const score = scores[slot] as number;
      const name = keys[slot] as string;
      // The filter (a run's visibility rules) runs only for candidates that would make the top k.
      if (top.admits(name, score) && (accept === undefined || accept(name))) top.offer(name, score);
    }
    return top.sorted();
  }

  /** Adds term `id` to the scores of the touched tools by looking it up in each one's own term list. */
  private accumulateLive(id: number, idf: number): void {
    this.postingsSkipped++;
    const scores = this.scores;
    const weights = this.storeWeights;
    const base = this.postingStart[id] as number;
    const arenaTerms = this.arenaTerms;
    const touched = this.touched;
    for (let at = 0; at < this.touchedCount; at++) {
      const slot = touched[at] as number;
      const start = this.termStart[slot] as number;
      const end = start + (this.termCount[slot] as number);
      for (let k = start; k < end; k++) {
        if (arenaTerms[k] !== id) continue;
        scores[slot] = (scores[slot] as number) + idf * (weights[base + (this.arenaPositions[k] as number)] as number);
        break;
      }
    }
  }

  /**
   * The distinct term ids of a query with their weight: 1 for the query's words (run-together words
   * split where the parts are indexed), `relatedWeight` for words related to them.
   */
  private queryTerms(query: string): Map<number, number> {
    const ids = new Map<number, number>();
    const add = (term: string, weight = 1): boolean => {
      const id = this.termIds.get(term);
      if (id === undefined || this.postingLengths[id] === 0) return false;
      ids.set(id, Math.max(weight, ids.get(id) ?? 0));
      return true;
    };
    const spans = this.queryValues ? querySpans(query) : [{ text: query }];
    for (const span of spans) {
      const weight = span.kind === undefined ? 1 : VALUE_WEIGHT;
      for (const term of tokenize(span.text)) add(term, weight);
      if (span.kind !== undefined) add(span.kind, KIND_WEIGHT);
    }
    const plain = spans
      .filter((span) => span.kind === undefined)
      .map((span) => span.text)
      .join(" ");
    if (this.relatedWeight > 0) {
      this.related ??= relatedWords(this.extraRelatedWords);
      const related = this.related;
      // Stop words too: "who", "where" and "when" ask for users, places and times.
      for (const term of tokenize(plain, { keepStopWords: true }))
        for (const other of related.get(term) ?? []) add(other, this.relatedWeight);
    }
    if (this.splitCompounds) this.addCompoundParts(plain, add);
    return ids;
  }

  /** Adds the parts of `text`'s run-together words that no tool contains (`readfile` → `read`, `file`). */
  private addCompoundParts(text: string, add: (term: string) => boolean): void {
    for (const word of rawWords(text)) {
      if (word.length < MIN_COMPOUND || word.length > MAX_COMPOUND || isStopWord(word) || this.known(stemWord(word))) continue;
      const parts = this.compoundParts(word);
      if (parts !== undefined) for (const part of parts) add(part);
    }
  }

  private known(term: string): boolean {
    const id = this.termIds.get(term);
    return id !== undefined && (this.postingLengths[id] as number) > 0;
  }

  private inSomeName(term: string): boolean {
    const id = this.termIds.get(term);
    return id !== undefined && (this.nameFrequency[id] as number) > 0;
  }

  /**
   * The split of `word` into two words that tool names use (`readfile` → `read`, `file`), the most
   * balanced first. Only name words: splitting into any indexed words finds false compounds
   * (`suitable` → `suit` + `able`).
   */
  private compoundParts(word: string): [string, string] | undefined {
    let best: [string, string] | undefined;
    let bestBalance = Number.POSITIVE_INFINITY;
    for (let at = MIN_PART; at <= word.length - MIN_PART; at++) {
      const left = stemWord(word.slice(0, at));
      const right = stemWord(word.slice(at));
      if (!this.inSomeName(left) || !this.inSomeName(right)) continue;
      const balance = Math.abs(word.length - 2 * at);
      if (balance < bestBalance) {
        best = [left, right];
        bestBalance = balance;
      }
    }
    return best;
  }

  /**
   * Recomputes every stored weight when an average field length moved past the tolerance, or
   * when documents were added since the last search without their weights (a bulk load).
   */
  private refreshIfDrifted(count: number): void {
    let drifted = !this.weightsCurrent;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const current = Math.max((this.fieldTotals[f] as number) / count, 1);
      const stored = this.averages[f] as number;
      if (Math.abs(current - stored) > this.tolerance * stored) drifted = true;
    }
    if (!drifted) return;
    for (let f = 0; f < FIELD_COUNT; f++) this.averages[f] = Math.max((this.fieldTotals[f] as number) / count, 1);
    const slots = this.storeSlots;
    const counts = this.storeCounts;
    const weights = this.storeWeights;
    for (let id = 0; id < this.terms; id++) {
      const start = this.postingStart[id] as number;
      const length = this.postingLengths[id] as number;
      let max = 0;
      for (let i = start; i < start + length; i++) {
        weights[i] = this.weightOf(slots[i] as number, counts, i * FIELD_COUNT);
        max = Math.max(max, weights[i] as number);
      }
      this.postingMax[id] = max;
      this.steps += length;
    }
    this.weightsCurrent = true;
  }

  /** The saturated BM25F weight of one posting: per-field counts at `counts[at ..]`, under `averages`. */
  private weightOf(slot: number, counts: Uint8Array, at: number): number {
    let tf = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const n = counts[at + f] as number;
      if (n === 0) continue;
      const weight = this.fieldWeight[f] as number;
      const b = this.fieldNormalization[f] as number;
      const length = this.fieldLengths[slot * FIELD_COUNT + f] as number;
      tf += (n * weight) / (1 - b + (b * length) / (this.averages[f] as number));
    }
    return tf / (this.k1 + tf);
  }

  /**
   * One pass over the touched tools: those below `dropBelow` leave them (their scores back to 0,
   * so that the remaining postings pass them by as untouched); of the others, the k best that
   * `accept` admits are recorded (`topSlots`). Returns the k-th best score (0 when fewer).
   * `dropBelow` is a lower bound of the final k-th best minus what the remaining terms can add,
   * less a margin far above any rounding of the sums.
   */
  private scan(k: number, accept: ((name: string) => boolean) | undefined, dropBelow: number): number {
    this.candidatesRead += this.touchedCount;
    if (this.topSlots.length < k) this.topSlots = new Int32Array(k);
    const best = this.topSlots;
    let filled = 0;
    let floor = 0;
    let lowest = 0;
    const touched = this.touched;
    const scores = this.scores;
    let kept = 0;
    for (let at = 0; at < this.touchedCount; at++) {
      const slot = touched[at] as number;
      const score = scores[slot] as number;
      if (score < dropBelow) {
        scores[slot] = 0;
        continue;
      }
      touched[kept++] = slot;
      if (filled === k && score <= floor) continue;
      // The filter runs only for the few slots that beat the current floor.
      if (accept !== undefined && !accept(this.keys[slot] as string)) continue;
      if (filled < k) best[filled++] = slot;
      else best[lowest] = slot;
      if (filled === k) {
        lowest = 0;
        for (let j = 1; j < k; j++)
          if ((scores[best[j] as number] as number) < (scores[best[lowest] as number] as number)) lowest = j;
        floor = scores[best[lowest] as number] as number;
      }
    }
    this.touchedCount = kept;
    this.topFilled = filled;
    return filled === k ? floor : 0;
  }

  /**
   * The lowest current score of the k tools recorded by the last pass (0 when fewer): a lower
   * bound of the k-th best, since scores only grow (a recorded tool dropped since reads 0).
   */
  private recordedKth(k: number): number {
    if (this.topFilled < k) return 0;
    const scores = this.scores;
    let lowest = Number.POSITIVE_INFINITY;
    for (let j = 0; j < k; j++) lowest = Math.min(lowest, scores[this.topSlots[j] as number] as number);
    return lowest;
  }

  private accumulate(id: number, idf: number, open: boolean): void {
    const start = this.postingStart[id] as number;
    const end = start + (this.postingLengths[id] as number);
    const slots = this.storeSlots;
    const weights = this.storeWeights;
    const scores = this.scores;
    const touched = this.touched;
    let count = this.touchedCount;
    if (!open) {
      // Closed: only the touched tools (a non-zero score) take the term.
      for (let i = start; i < end; i++) {
        const slot = slots[i] as number;
        const previous = scores[slot] as number;
        if (previous !== 0) scores[slot] = previous + idf * (weights[i] as number);
      }
      return;
    }
    for (let i = start; i < end; i++) {
      const added = idf * (weights[i] as number);
      // A zero weight (a field weighted 0 by the host) adds nothing: it must not touch the tool
      // either, since a score of 0 is how an untouched tool is told apart (it would be listed twice).
      if (added === 0) continue;
      const slot = slots[i] as number;
      const previous = scores[slot] as number;
      // Without a branch on whether the tool was touched before (as likely as not in a long
      // posting: a mispredicted branch was most of the cost of a posting): the slot is written
      // past the end of the list and kept there only when it is new.
      touched[count] = slot;
      count += previous === 0 ? 1 : 0;
      scores[slot] = previous + added;
    }
    this.touchedCount = count;
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms++;
      this.termIds.set(term, id);
      if (id === this.postingStart.length) this.growTerms(Math.max(1024, id * 2));
    }
    return id;
  }

  /** Room for `capacity` term ids in every per-term array. */
  private growTerms(capacity: number): void {
    const grownInt = (from: Int32Array) => {
      const to = new Int32Array(capacity);
      to.set(from);
      return to;
    };
    this.postingStart = grownInt(this.postingStart);
    this.postingCapacity = grownInt(this.postingCapacity);
    this.postingLengths = grownInt(this.postingLengths);
    this.nameFrequency = grownInt(this.nameFrequency);
    this.seenIn = grownInt(this.seenIn);
    this.seenAt = grownInt(this.seenAt);
    const max = new Float32Array(capacity);
    max.set(this.postingMax);
    this.postingMax = max;
  }

  /** Appends `slot` to a term's postings; returns its place there. */
  private addPosting(id: number, slot: number, from: number): number {
    const length = this.postingLengths[id] as number;
    if (length === this.postingCapacity[id]) this.moveTerm(id, length === 0 ? 1 : length * 2);
    const at = (this.postingStart[id] as number) + length;
    this.storeSlots[at] = slot;
    this.steps++;
    const counts = this.storeCounts;
    const scratch = this.scratchCounts;
    if ((scratch[from] as number) > 0) this.nameFrequency[id] = (this.nameFrequency[id] as number) + 1;
    const cell = at * FIELD_COUNT;
    for (let f = 0; f < FIELD_COUNT; f++) counts[cell + f] = scratch[from + f] as number;
    // Before the first search (a bulk load) the weight waits for the averages of that search.
    if (this.weightsCurrent) {
      const weight = this.weightOf(slot, counts, cell);
      this.storeWeights[at] = weight;
      this.postingMax[id] = Math.max(this.postingMax[id] as number, this.storeWeights[at] as number);
    }
    this.postingLengths[id] = length + 1;
    return length;
  }

  /**
   * Gives term `id` room for `capacity` postings at the end of the store, its postings copied
   * there (they keep their places relative to the term's start, which the documents' term lists
   * hold); the room it leaves is reclaimed by the next compaction.
   */
  private moveTerm(id: number, capacity: number): void {
    const room = this.postingCapacity[id] as number;
    if (this.storeUsed + capacity > this.storeSlots.length) this.compactStore(this.storeReserved + capacity);
    const from = this.postingStart[id] as number;
    const length = this.postingLengths[id] as number;
    const to = this.storeUsed;
    this.storeSlots.copyWithin(to, from, from + length);
    this.storeCounts.copyWithin(to * FIELD_COUNT, from * FIELD_COUNT, (from + length) * FIELD_COUNT);
    this.storeWeights.copyWithin(to, from, from + length);
    this.steps += length;
    this.postingStart[id] = to;
    this.postingCapacity[id] = capacity;
    this.storeUsed = to + capacity;
    this.storeReserved += capacity - room;
  }

  /**
   * Copies every term's postings, in term order with its room, into new arrays with room for
   * twice `needed` entries: one pass over the live postings, paid for by the
   * growth (or the moves) since the last compaction.
   */
  private compactStore(needed: number): void {
    const capacity = Math.max(SearchIndex.initialStore, 2 * needed);
    const slots = new Int32Array(capacity);
    const counts = new Uint8Array(capacity * FIELD_COUNT);
    const weights = new Float32Array(capacity);
    const oldSlots = this.storeSlots;
    const oldCounts = this.storeCounts;
    const oldWeights = this.storeWeights;
    const starts = this.postingStart;
    const lengths = this.postingLengths;
    const rooms = this.postingCapacity;
    let used = 0;
    let copied = 0;
    for (let id = 0; id < this.terms; id++) {
      const from = starts[id] as number;
      const length = lengths[id] as number;
      if (length > COPY_BY_VIEW) {
        slots.set(oldSlots.subarray(from, from + length), used);
        counts.set(oldCounts.subarray(from * FIELD_COUNT, (from + length) * FIELD_COUNT), used * FIELD_COUNT);
        weights.set(oldWeights.subarray(from, from + length), used);
      } else {
        // Most terms hold a posting or two: element copies, no view objects.
        for (let k = 0; k < length; k++) {
          slots[used + k] = oldSlots[from + k] as number;
          weights[used + k] = oldWeights[from + k] as number;
        }
        for (let k = 0; k < length * FIELD_COUNT; k++)
          counts[used * FIELD_COUNT + k] = oldCounts[from * FIELD_COUNT + k] as number;
      }
      starts[id] = used;
      used += rooms[id] as number;
      copied += length;
    }
    this.steps += this.terms + copied;
    this.storeSlots = slots;
    this.storeCounts = counts;
    this.storeWeights = weights;
    this.storeUsed = used;
  }

  /**
   * Swap-removes the posting at `at` from a term's postings (their order carries no meaning); the
   * document moved into its place learns its new position.
   */
  private removePosting(id: number, at: number): void {
    const last = (this.postingLengths[id] as number) - 1;
    this.steps++;
    const base = this.postingStart[id] as number;
    const slots = this.storeSlots;
    const counts = this.storeCounts;
    if ((counts[(base + at) * FIELD_COUNT] as number) > 0) this.nameFrequency[id] = (this.nameFrequency[id] as number) - 1;
    if (at !== last) {
      const moved = slots[base + last] as number;
      slots[base + at] = moved;
      counts.copyWithin((base + at) * FIELD_COUNT, (base + last) * FIELD_COUNT, (base + last + 1) * FIELD_COUNT);
      this.storeWeights[base + at] = this.storeWeights[base + last] as number;
      let k = this.termStart[moved] as number;
      while (this.arenaTerms[k] !== id) {
        k++;
        this.steps++;
      }
      this.arenaPositions[k] = at;
    }
    this.postingLengths[id] = last;
  }

  /** A new slot at the end, growing the per-slot arrays by doubling. */
  private grow(): number {
    const slot = this.keys.length;
    this.keys.push(undefined);
    if ((slot + 1) * FIELD_COUNT > this.fieldLengths.length) {
      const capacity = Math.max(16, slot * 2);
      const lengths = new Float32Array(capacity * FIELD_COUNT);
      lengths.set(this.fieldLengths);
      this.fieldLengths = lengths;
      const scores = new Float64Array(capacity);
      scores.set(this.scores);
      this.scores = scores;
      this.touched = new Int32Array(capacity);
      const termStart = new Int32Array(capacity);
      termStart.set(this.termStart);
      this.termStart = termStart;
      const termCount = new Int32Array(capacity);
      termCount.set(this.termCount);
      this.termCount = termCount;
    }
    return slot;
  }
}

/** True when a k-th best score of `kth` closes the search: no untouched tool can reach it (margin for rounding). */
function closes(kth: number, rest: number): boolean {
  return kth > rest * (1 + 1e-9) + 1e-9;
}

function idfOf(count: number, frequency: number): number {
  return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
}

/** The server of a document: given, from its `mcp_server:` tag, or the name's `server__` / `server.` prefix. */
export function serverOf(document: SearchDocument): string | undefined {
  if (document.server !== undefined) return document.server;
  for (const tag of document.tags ?? []) if (tag.startsWith(SERVER_TAG)) return tag.slice(SERVER_TAG.length);
  const match = /^([A-Za-z0-9-]+)(?:__|\.)/.exec(document.name);
  return match?.[1];
}

/** The tool's own name: without the `mcp_<server>_` or `<server>__` prefix that names its server. */
function ownName(name: string, server: string | undefined): string {
  if (server === undefined) return name;
  // Checked in place, in the order `mcp_<safe>_`, `<server>__`, `<server>.`: no prefix strings per
  // document (registering 100,000 tools built 300,000 of them).
  const safe = UNSAFE_SERVER.test(server) ? server.replace(UNSAFE_SERVER_ALL, "_") : server;
  if (name.startsWith("mcp_") && name.startsWith(safe, 4) && name.charCodeAt(4 + safe.length) === UNDERSCORE) {
    if (name.length > safe.length + 5) return name.slice(safe.length + 5);
  }
  if (name.startsWith(server)) {
    const after = server.length;
    if (name.charCodeAt(after) === UNDERSCORE && name.charCodeAt(after + 1) === UNDERSCORE && name.length > after + 2)
      return name.slice(after + 2);
    if (name.charCodeAt(after) === DOT && name.length > after + 1) return name.slice(after + 1);
  }
  return name;
}

const UNSAFE_SERVER = /[^a-zA-Z0-9_-]/;
const UNSAFE_SERVER_ALL = /[^a-zA-Z0-9_-]/g;
const UNDERSCORE = 95;
const DOT = 46;
