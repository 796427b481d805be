import { checkNumberOption } from "../errors/check-number-option.js";
import type { SearchHit } from "../tool/tool-context.js";
import { asciiWordSpans, WordTable } from "./ascii-words.js";
import { stem } from "./porter-stemmer.js";
import { querySpans } from "./query-arguments.js";
import { type RelatedWords, relatedWords } from "./related-words.js";
import { isStopWord, rawWords, stemWord, tokenize } from "./tokenize.js";
import { TopK } from "./top-k.js";
import { forEachOneEdit } from "./typo.js";

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
   * `read file`), as names are split; and join two neighbouring query words that a tool name has
   * run together (`heap snapshot` → `heapsnapshot`).
   * @defaultValue true
   */
  readonly splitCompounds?: boolean;
  /**
   * How much a correction of a misspelt query word counts, as a fraction of an exact match's
   * weight; 0 turns it off. A query word of 5 or more letters that no tool contains (and that does
   * not split into two name words) also looks up every indexed word one edit away from it (a
   * letter changed, added, dropped, or two neighbours swapped: `reflgo` → `reflog`, `comit` →
   * `commit`), at most 4 of them, the most common first; at most 3 such words a query, none with a
   * digit.
   * @defaultValue 0.5
   */
  readonly typoWeight?: number;
  /**
   * How far (relative) an average field length may drift from the one the last search used before
   * the stored term weights are all recomputed, at the next search. 0 recomputes after every
   * change that moves an average (exact BM25F, slow for large catalogs under churn).
   * @defaultValue 0.01
   */
  readonly statisticsTolerance?: number;
  /**
   * How much a word related to a query word counts (see `related-words.ts`: "tell" also looks up
   * "send", "post", "notify"), as a fraction of an exact match's weight; 0 turns it off. The
   * related words of one query word count as one: a tool scores the best of them, not their sum.
   * @defaultValue 0.6
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
/** Words scanned at a time (a longer text is scanned piece by piece). */
const SPAN_WORDS = 1024;
/** Text that `tokenize` reads on its Unicode path. */
const NON_ASCII = /[^\u0020-\u007e\t\n\r]/;
/** Distinct surface words remembered with their term id; the cache is emptied when it reaches this. */
const WORD_CACHE_LIMIT = 200_000;
/** Query words this long or longer may be split in two; each part at least `MIN_PART` letters. */
const MIN_COMPOUND = 6;
const MIN_PART = 3;
/** Longer words are not split: real compounds of two name words are short, and each try stems. */
const MAX_COMPOUND = 32;
const MAX_TF = 255;
/** Postings the store starts with room for; each compaction leaves it twice the room it needs. */
const INITIAL_STORE = 4096;
/** Dead terms whose ids are freed together (also at least half the live terms). */
const FREE_TERMS_MIN = 1024;
/** Staged postings that a commit first compacts the store for (also at least an eighth of it). */
const COMMIT_COMPACT_MIN = 4096;
/** Terms with more postings than this are copied by a compaction through array views. */
const COPY_BY_VIEW = 16;
/**
 * Postings per block of the store whose largest weight is kept (`2 ** BLOCK_SHIFT`): a search
 * skips the slots where no block of any query term can lift a tool into the top k.
 */
const BLOCK_SHIFT = 6;
/**
 * The terms a search window does not walk may bound together at most this share of the k-th best
 * score (not all of it): fewer tools then pass on their walked terms alone, and each that passes
 * costs a look-up in every term not walked (walking a posting costs far less). Chosen by A/B on
 * the bench catalogs (0.2-1; 0.5 best).
 */
const UNWALKED_SHARE = 0.5;
/** Slots a search scores together (one window: block bounds, then the candidates in slot order). */
const WINDOW_SLOTS = 4096;
/**
 * Removed documents' slots are not reused at once (postings stay sorted by slot only if new slots
 * come last): once this many, and as many as the live ones, the slots are renumbered in order.
 */
const RENUMBER_MIN = 1024;
/** A term's postings are purged of removed documents once they are at least this many and half of it. */
const PURGE_MIN = 8;
/** Postings of the rarest query terms a search adds up first to find a k-th best score to start from. */
const SEED_POSTINGS = 2048;
/** Searches for more than this many tools start from no k-th best score. */
const MAX_SEEDED = 64;
const SERVER_TAG = "mcp_server:";
/**
 * The words of a URL or path in a query count half (they name what to act on, not the action);
 * the kind of value (`url`, `file`, `path`) counts as a word of the request. Chosen on the
 * development sets (bench/results/search-quality.json).
 */
const VALUE_WEIGHT = 0.5;
const KIND_WEIGHT = 1;
/**
 * Query words shorter than this are not corrected: one edit away from a 4-letter word lie too many
 * other words (`mark` / `park`, `pods` / `pode`). Corrections of one word: at most this many.
 */
const MIN_TYPO = 5;
const MAX_CORRECTIONS = 4;
/**
 * Unknown words of one query corrected at most (each costs about 54 look-ups per letter, and its
 * corrections' postings): a query with more unknown words is mostly words the catalog lacks, not typos.
 */
const MAX_TYPO_WORDS = 3;
/** A word with a digit is a value (an id, a size, a port), not a misspelt word. */
const HAS_DIGIT = /[0-9]/;
/** Default weight of a correction: half an exact match, as a value's words count (not fitted to data). */
const TYPO_WEIGHT = 0.5;

/** Exact equality: weights computed under averages one ulp apart would give other scores. */
function sameValues(a: Float64Array, b: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

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
  /** Block and window sizes (tests lower them so that small indexes have many of each). */
  private static blockShift = BLOCK_SHIFT;
  private static windowSlots = WINDOW_SLOTS;
  private static renumberMin = RENUMBER_MIN;
  /** Tests lower these so that small indexes compact for a commit and free dead terms often. */
  private static commitCompactMin = COMMIT_COMPACT_MIN;
  private static freeTermsMin = FREE_TERMS_MIN;
  private readonly blockShift = SearchIndex.blockShift;
  private readonly windowSlots = SearchIndex.windowSlots;
  private readonly renumberMin = SearchIndex.renumberMin;
  private readonly commitCompactMin = SearchIndex.commitCompactMin;
  private readonly freeTermsMin = SearchIndex.freeTermsMin;
  /** Per field (in `FIELDS` order): its weight and its length normalisation. */
  private readonly fieldWeight = new Float64Array(FIELD_COUNT);
  private readonly fieldNormalization = new Float64Array(FIELD_COUNT);
  private readonly k1: number;
  private readonly splitCompounds: boolean;
  private readonly relatedWeight: number;
  private readonly typoWeight: number;
  private readonly extraRelatedWords: readonly string[];
  private readonly queryValues: boolean;
  private related: RelatedWords | undefined;
  /**
   * Slot of each document key. New documents always take a new slot after every other, so that
   * each term's postings, appended in the order documents come, stay sorted by slot (what lets a
   * search walk them together and skip whole blocks); removed slots are reclaimed by renumbering.
   */
  private readonly slotOf = new Map<string, number>();
  private keys: (string | undefined)[] = [];
  /**
   * The distinct term ids of each slot's document, to remove it again: `termCount[slot]` of them
   * from `termStart[slot]` in `arenaTerms`. One shared array, not one per document: 100,000
   * small typed arrays cost the garbage collector more than the index itself.
   */
  private termStart = new Int32Array(0);
  private termCount = new Int32Array(0);
  private arenaTerms = new Int32Array(1024);
  /** Entries of the arena written so far, and those still belonging to a document. */
  private arenaUsed = 0;
  private arenaLive = 0;
  /** Field lengths, `FIELD_COUNT` per slot. */
  private fieldLengths = new Float32Array(0);
  private readonly fieldTotals = new Float64Array(FIELD_COUNT);
  /** The average field lengths the stored weights were computed with. */
  private readonly averages = new Float64Array(FIELD_COUNT).fill(1);
  /**
   * The average field lengths the last search chose (see {@link SearchIndex.chooseAverages}).
   * Only a search chooses them, so which ones a search uses depends on the changes and searches
   * before it, never on when a host's idle turns wrote postings or weights in between.
   */
  private readonly chosenAverages = new Float64Array(FIELD_COUNT).fill(1);
  private averagesChosen = false;
  /** The averages the next search would choose (scratch). */
  private readonly nextAverages = new Float64Array(FIELD_COUNT);
  private readonly tolerance: number;
  /**
   * False until weights are first computed (by a search, `build` or a commit): adding a
   * document then skips computing its weights, which are computed for every posting at once
   * under the averages of that moment. A bulk load (100,000 tools) thus pays one weight per
   * posting, once, instead of one per add and a full recomputation at the first search.
   */
  private weightsCurrent = false;
  /** Per-field counts of the document being added, `FIELD_COUNT` per distinct term (scratch). */
  private scratchCounts = new Uint8Array(64 * FIELD_COUNT);
  /** The distinct term ids of the document being added, in first-seen order (scratch). */
  private scratchTerms = new Int32Array(64);
  /**
   * Per term id, two numbers side by side (one cache miss per word, not two): the add that saw it
   * last (`stamp`), at `2 * id`, and its place in `scratchTerms` then, at `2 * id + 1`.
   */
  private seen = new Int32Array(0);
  private stamp = 0;
  /** Distinct terms of the document being added so far, and terms of its current field. */
  private distinct = 0;
  private fieldTerms = 0;
  /** The word spans of (a piece of) the text being added (see `asciiWordSpans`; scratch). */
  private readonly spans = new Int32Array(3 * SPAN_WORDS);
  /** Lower-case word to term id, negative (`-1 - id`) for a stop word. A cache. */
  private readonly wordTerms = new WordTable(WORD_CACHE_LIMIT);
  private steps = 0;
  private readonly termIds = new Map<string, number>();
  /**
   * Per term id: its term while it is live or dead but not yet free. A term whose last document
   * is removed dies: it leaves `termIds` and gives up its room in the store at once, and its id
   * waits in `deadTerms` (the word cache may still hand it out: such a hit is redirected by
   * name) until the cache is next emptied; then it joins `freeTerms`, to be reused. Churn with new
   * words (ids in tool names) thus keeps the per-term arrays as long as the live vocabulary.
   */
  private termNames: (string | undefined)[] = [];
  private termDead = new Uint8Array(0);
  private deadTerms: number[] = [];
  private freeTerms: number[] = [];
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
  /**
   * Per store block (`2 ** blockShift` entries, counted from the store's start, so a block may
   * hold the end of one term and the start of the next): at least the largest weight in it.
   */
  private storeBlockMax = new Float32Array(0);
  private postingStart = new Int32Array(0);
  private postingCapacity = new Int32Array(0);
  /**
   * Postings written per term, removed documents' included until the term is purged: a removal
   * zeroes its posting's counts and weight in place, keeping the order by slot.
   */
  private postingLengths = new Int32Array(0);
  /** Postings of live documents per term (the document frequency). */
  private postingLive = new Int32Array(0);
  /** Per term: how many documents have it in their name (compound splits use only such words). */
  private nameFrequency = new Int32Array(0);
  /** Per term: how many documents have it as (a word of) their server: query words join into it too. */
  private serverFrequency = new Int32Array(0);
  /**
   * Documents added by {@link SearchIndex.stage} whose postings are not written yet: slots from
   * `stagedSlot` (-1: none) on, their term ids in the arena from `stagedArena`, and the per-field
   * counts of each arena entry from there in `stagedCounts`. `stagedPostings[id]`: the staged
   * postings of each term, so that one compaction gives every term the room it will need.
   */
  private stagedSlot = -1;
  /** The next staged slot whose postings a commit under way writes (-1: none under way). */
  private commitSlot = -1;
  private stagedArena = 0;
  private stagedCounts = new Uint8Array(0);
  private stagedPostings = new Int32Array(0);
  /** Per slot: a seed's partial score (0 outside searches), whether it was seeded, and the touched ones. */
  private seedScores = new Float64Array(0);
  private seeded = new Uint8Array(0);
  private seedTouched = new Int32Array(0);
  private readonly seedSlots = new Int32Array(2 * MAX_SEEDED);
  /** A window's partial scores (essential terms only), by slot from the window's start. */
  private windowScores: Float64Array;
  /** Which of the window's slots have a partial score (one bit each). */
  private windowBits: Int32Array;
  /** Tools whose full score searches computed so far; tests read it. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by the pruning test (element access)
  private candidatesScored = 0;
  /** Windows that searches skipped whole (no block could reach the k-th best); tests read it. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by the pruning test (element access)
  private windowsSkipped = 0;

  constructor(options: SearchIndexOptions = {}) {
    const fields: Record<SearchField, FieldWeight> = { ...DEFAULT_SEARCH_FIELDS, ...options.fields };
    FIELDS.forEach((field, f) => {
      this.fieldWeight[f] = checkNumberOption(fields[field].weight, `fields.${field}.weight`, { min: 0 }, "search");
      this.fieldNormalization[f] = checkNumberOption(
        fields[field].lengthNormalization,
        `fields.${field}.lengthNormalization`,
        { min: 0, max: 1 },
        "search",
      );
    });
    this.k1 = checkNumberOption(options.k1 ?? 4, "k1", { min: 0 }, "search");
    this.splitCompounds = options.splitCompounds ?? true;
    this.tolerance = checkNumberOption(
      options.statisticsTolerance ?? 0.01,
      "statisticsTolerance",
      { min: 0, infinite: true },
      "search",
    );
    this.relatedWeight = checkNumberOption(options.relatedWeight ?? 0.6, "relatedWeight", { min: 0, max: 1 }, "search");
    this.typoWeight = checkNumberOption(options.typoWeight ?? TYPO_WEIGHT, "typoWeight", { min: 0, max: 1 }, "search");
    this.extraRelatedWords = [...(options.relatedWords ?? [])];
    this.queryValues = options.queryValues ?? true;
    this.windowScores = new Float64Array(this.windowSlots);
    this.windowBits = new Int32Array(Math.ceil(this.windowSlots / 32));
    this.storeBlockMax = new Float32Array((SearchIndex.initialStore >> this.blockShift) + 1);
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
    this.commitStaged();
    const key = document.id ?? document.name;
    this.delete(key);
    this.freeDeadTerms();
    this.renumberIfSparse();
    const slot = this.countTerms(key, document);
    const distinct = this.distinct;
    const start = this.reserveArena(distinct, true);
    const terms = this.arenaTerms;
    for (let at = 0; at < distinct; at++) {
      const id = this.scratchTerms[at] as number;
      terms[start + at] = id;
      this.addPosting(id, slot, this.scratchCounts, at * FIELD_COUNT);
    }
    this.termStart[slot] = start;
    this.termCount[slot] = distinct;
  }

  /**
   * Adds or replaces a document like {@link SearchIndex.set}, but leaves its postings to be
   * written with every other staged document's, by {@link SearchIndex.commitStaged} (which
   * `search`, `set` and a `delete` of a staged document call first). Loading many documents
   * this way places every term's postings in one pass over the store, instead of moving each
   * term to a room twice as large as it grows (at 100,000 tools, most of the loading time).
   */
  stage(document: SearchDocument): void {
    const key = document.id ?? document.name;
    const slotBefore = this.slotOf.get(key);
    if (slotBefore !== undefined) {
      if (this.stagedSlot >= 0 && slotBefore >= this.stagedSlot) this.commitStaged();
      this.delete(key);
    }
    const first = this.stagedSlot < 0;
    if (first) {
      this.freeDeadTerms();
      this.renumberIfSparse();
    }
    const slot = this.countTerms(key, document);
    const distinct = this.distinct;
    // The staged documents' arena entries must stay where they are (their counts are kept by
    // place): the arena is compacted only before the first of them.
    const start = this.reserveArena(distinct, first);
    if (first) {
      this.stagedSlot = slot;
      this.stagedArena = start;
    }
    const from = (start - this.stagedArena) * FIELD_COUNT;
    if (from + distinct * FIELD_COUNT > this.stagedCounts.length) {
      const grown = new Uint8Array(Math.max(4096, 2 * (from + distinct * FIELD_COUNT)));
      grown.set(this.stagedCounts.subarray(0, from));
      this.stagedCounts = grown;
    }
    const terms = this.arenaTerms;
    for (let at = 0; at < distinct; at++) {
      const id = this.scratchTerms[at] as number;
      terms[start + at] = id;
      this.stagedPostings[id] = (this.stagedPostings[id] as number) + 1;
    }
    // Element copies: a view per document was a third of what staging allocated.
    const scratch = this.scratchCounts;
    const counts = this.stagedCounts;
    for (let k = 0; k < distinct * FIELD_COUNT; k++) counts[from + k] = scratch[k] as number;
    this.termStart[slot] = start;
    this.termCount[slot] = distinct;
  }

  /**
   * Writes the postings of staged documents (see {@link SearchIndex.stage}), whole documents in
   * order, until about `limit` postings are written; true when none is left staged. The first
   * call of a commit computes the term weights that are stale, under the averages the next search
   * would choose if nothing changes before it (so the staged postings get theirs as they are
   * written, and that search has none to compute; a search that chooses others recomputes them,
   * so results never depend on when a commit ran) and, for many staged postings
   * (an eighth or more of those held), gives each term in one compaction the room it will hold,
   * so no term moves while they are written. A host can thus spread a commit over several turns
   * of its event loop; a search, `set`, or removal of a staged document finishes it first.
   */
  commitStaged(limit = Number.POSITIVE_INFINITY): boolean {
    if (this.stagedSlot < 0) return true;
    if (this.commitSlot < 0) {
      this.commitSlot = this.stagedSlot;
      this.weighForNextSearch();
      const staged = this.arenaUsed - this.stagedArena;
      if (staged >= Math.max(this.commitCompactMin, this.storeReserved >> 3)) this.reserveStagedRooms();
    }
    const terms = this.arenaTerms;
    const counts = this.stagedCounts;
    const base = this.stagedArena;
    let written = 0;
    let slot = this.commitSlot;
    for (; slot < this.keys.length && written < limit; slot++) {
      if (this.keys[slot] === undefined) continue;
      const start = this.termStart[slot] as number;
      const end = start + (this.termCount[slot] as number);
      for (let at = start; at < end; at++) {
        const id = terms[at] as number;
        this.stagedPostings[id] = (this.stagedPostings[id] as number) - 1;
        this.addPosting(id, slot, counts, (at - base) * FIELD_COUNT);
      }
      written += end - start;
    }
    if (slot < this.keys.length) {
      this.commitSlot = slot;
      return false;
    }
    this.stagedSlot = -1;
    this.commitSlot = -1;
    // The staging counts of a large load are let go (a later load allocates its own).
    if (this.stagedCounts.length > 1 << 16) this.stagedCounts = new Uint8Array(0);
    return true;
  }

  /** Gives every term room for its postings and its staged ones, in one compaction. */
  private reserveStagedRooms(): void {
    const rooms = this.postingCapacity;
    let reserved = 0;
    for (let id = 0; id < this.terms; id++) {
      const needed = (this.postingLengths[id] as number) + (this.stagedPostings[id] as number);
      if (needed > (rooms[id] as number)) rooms[id] = needed;
      reserved += rooms[id] as number;
    }
    this.storeReserved = reserved;
    // A quarter more, not twice: the terms already have the room the load needs, and zeroing and
    // collecting twice the store was most of the commit's first slice at 100,000 tools.
    this.compactStore(reserved, reserved + (reserved >> 2));
  }

  /** Renumbers the slots once as many are removed as live (and at least `renumberMin`). */
  private renumberIfSparse(): void {
    if (this.keys.length - this.slotOf.size >= Math.max(this.renumberMin, this.slotOf.size)) this.renumber();
  }

  /**
   * Takes a new slot for `key` and counts the document's terms into the scratch: `distinct` term
   * ids in `scratchTerms`, their per-field counts in `scratchCounts`; field lengths recorded.
   */
  private countTerms(key: string, document: SearchDocument): number {
    const slot = this.grow();
    this.keys[slot] = key;
    this.slotOf.set(key, slot);
    // A slot taken again after a renumbering may still hold an older document's term list: until
    // this one's is written, it holds none (a throw below must not let a delete remove those terms).
    this.termCount[slot] = 0;
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
    // Index loops, not for-of: unoptimized code made an iterator result per element (indexing
    // 100,000 tools allocated 16 MB of them).
    const tags = document.tags ?? [];
    for (let t = 0; t < tags.length; t++) {
      const tag = tags[t] as string;
      if (!tag.startsWith(SERVER_TAG)) this.addText(tag, TAGS, true);
    }
    this.closeField(slot, TAGS);
    this.addText(document.description, DESCRIPTION, false);
    this.closeField(slot, DESCRIPTION);
    const parameters = document.parameters ?? [];
    for (let p = 0; p < parameters.length; p++) {
      const parameter = parameters[p] as { readonly name: string; readonly description?: string | undefined };
      this.addText(parameter.name, PARAMETERS, true);
      if (parameter.description !== undefined) this.addText(parameter.description, PARAMETERS, false);
    }
    this.closeField(slot, PARAMETERS);
    return slot;
  }

  /** Ends field `f` of the document being added: its length is the terms counted since the last field. */
  private closeField(slot: number, f: number): void {
    this.fieldLengths[slot * FIELD_COUNT + f] = this.fieldTerms;
    this.fieldTotals[f] = (this.fieldTotals[f] as number) + this.fieldTerms;
    this.fieldTerms = 0;
  }

  /**
   * The terms of one text, as `tokenize` gives them, counted into the scratch. ASCII text (nearly
   * every catalog) is scanned in place into word spans and each word looked up once in `wordTerms`
   * (surface form to term id): no lower-cased copy, no array of words, no separate stem and term
   * look-ups, and one pass that also tells ASCII text from the rest.
   */
  private addText(text: string, f: number, keepStopWords: boolean): void {
    const spans = this.spans;
    // A text longer than the buffer holds is scanned piece by piece: checked whole first.
    if (3 * text.length > spans.length && NON_ASCII.test(text)) {
      this.addTokenized(text, f, keepStopWords);
      return;
    }
    for (let from = 0; ; ) {
      const words = asciiWordSpans(text, spans, from);
      if (words < 0) {
        // Only a text the buffer holds whole gets here, before any of its words is counted.
        this.addTokenized(text, f, keepStopWords);
        return;
      }
      for (let w = 0; w < words; w++) {
        const coded = this.wordTerm(text, spans[3 * w] as number, spans[3 * w + 1] as number, spans[3 * w + 2] as number);
        // A stop word is coded negative: kept in names, dropped from descriptions.
        if (coded >= 0) this.count(coded, f);
        else if (keepStopWords) this.count(-1 - coded, f);
      }
      if (3 * words < spans.length) return;
      from = spans[3 * words - 2] as number;
    }
  }

  /** The terms of a text as `tokenize` gives them (its Unicode path), counted into the scratch. */
  private addTokenized(text: string, f: number, keepStopWords: boolean): void {
    for (const term of tokenize(text, { keepStopWords })) this.count(this.termId(term), f);
  }

  /** The term id of the word `text[start, end)` with hash `hash`, coded negative (`-1 - id`) for a stop word. */
  private wordTerm(text: string, start: number, end: number, hash: number): number {
    let coded = this.wordTerms.get(text, start, end, hash);
    if (coded !== undefined && this.termDead[coded < 0 ? -1 - coded : coded] === 1) {
      // A dead term's id (not free yet): the word's term under the id it has now.
      const id = this.termId(this.termNames[coded < 0 ? -1 - coded : coded] as string);
      coded = coded < 0 ? -1 - id : id;
      this.wordTerms.replaceFound(coded);
    }
    if (coded === undefined) {
      const lower = text.slice(start, end).toLowerCase();
      // Not the shared stem cache: this table already stems each surface word once, and a
      // second cache of 100,000 entries emptied when full only made garbage for the collector.
      const id = this.termId(stem(lower));
      coded = isStopWord(lower) ? -1 - id : id;
      this.wordTerms.set(lower, hash, coded);
    }
    return coded;
  }

  /** One occurrence of term `id` in field `f` of the document being added. */
  private count(id: number, f: number): void {
    this.steps++;
    this.fieldTerms++;
    let at: number;
    const seen = this.seen;
    if (seen[2 * id] === this.stamp) at = seen[2 * id + 1] as number;
    else {
      at = this.distinct++;
      seen[2 * id] = this.stamp;
      seen[2 * id + 1] = at;
      if (at === this.scratchTerms.length) {
        const grownTerms = new Int32Array(at * 2);
        grownTerms.set(this.scratchTerms);
        this.scratchTerms = grownTerms;
        const grown = new Uint8Array(at * 2 * FIELD_COUNT);
        grown.set(this.scratchCounts);
        this.scratchCounts = grown;
      }
      this.scratchTerms[at] = id;
      // Element writes, not fill(): a built-in call per distinct term of every document.
      const counts = this.scratchCounts;
      for (let cell = at * FIELD_COUNT; cell < (at + 1) * FIELD_COUNT; cell++) counts[cell] = 0;
    }
    const cell = at * FIELD_COUNT + f;
    if ((this.scratchCounts[cell] as number) < MAX_TF) this.scratchCounts[cell] = (this.scratchCounts[cell] as number) + 1;
  }

  /**
   * Room for `count` entries at the end of the arena; compacts it first when more than half of
   * it belongs to removed documents (a pass over the live entries, paid for by as many removals).
   */
  private reserveArena(count: number, mayCompact: boolean): number {
    if (mayCompact && this.arenaUsed > 2 * this.arenaLive + 1024) this.compactArena();
    const needed = this.arenaUsed + count;
    if (needed > this.arenaTerms.length) {
      const capacity = Math.max(needed, this.arenaTerms.length * 2);
      const terms = new Int32Array(capacity);
      terms.set(this.arenaTerms.subarray(0, this.arenaUsed));
      this.arenaTerms = terms;
    }
    const start = this.arenaUsed;
    this.arenaUsed = needed;
    this.arenaLive += count;
    return start;
  }

  private compactArena(): void {
    let used = 0;
    const terms = this.arenaTerms;
    // Slots in order of their arena start, so entries only ever move towards the front.
    const live: number[] = [];
    for (let slot = 0; slot < this.keys.length; slot++) if (this.keys[slot] !== undefined) live.push(slot);
    this.steps += this.keys.length + this.arenaLive;
    live.sort((a, b) => (this.termStart[a] as number) - (this.termStart[b] as number));
    for (const slot of live) {
      const start = this.termStart[slot] as number;
      const count = this.termCount[slot] as number;
      terms.copyWithin(used, start, start + count);
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
    if (this.stagedSlot >= 0 && slot >= this.stagedSlot) this.commitStaged();
    this.slotOf.delete(key);
    // Marked removed first: a term purged below keeps only the postings of live slots.
    this.keys[slot] = undefined;
    const start = this.termStart[slot] as number;
    const end = start + (this.termCount[slot] as number);
    for (let at = start; at < end; at++) this.removePosting(this.arenaTerms[at] as number, slot);
    this.arenaLive -= end - start;
    for (let f = 0; f < FIELD_COUNT; f++) {
      this.fieldTotals[f] = (this.fieldTotals[f] as number) - (this.fieldLengths[slot * FIELD_COUNT + f] as number);
      this.fieldLengths[slot * FIELD_COUNT + f] = 0;
    }
    this.termCount[slot] = 0;
    return true;
  }

  /**
   * Does now what the next search would do first: writes the staged postings and computes the
   * term weights that are stale (all of them after a bulk load), e.g. in an idle moment. It
   * chooses no averages: the weights are those the next search would use if nothing changes
   * before it, and that search recomputes them if it chooses others.
   */
  build(): void {
    this.commitStaged();
    this.weighForNextSearch();
  }

  /** The number of term postings held (for memory reports). */
  get postingCount(): number {
    this.commitStaged();
    let total = 0;
    for (let id = 0; id < this.terms; id++) total += this.postingLive[id] as number;
    return total;
  }

  /**
   * The best matches for `query`, best first. `accept` limits the candidates (e.g. to what a
   * run may activate) before the top `limit` are taken.
   *
   * Document at a time, by windows of slots (every term's postings are sorted by slot). Per
   * window, what each term can add is bounded by its weight times the largest weight of its
   * blocks there; a window whose bounds together cannot reach the k-th best score so far is
   * skipped. Otherwise the terms whose bounds together stay below it are not walked (block-max
   * MaxScore): a tool that has none of the others cannot reach the top k. The tools the others
   * hold are scored in full, with every term in the order of the exhaustive scorer (rarest
   * first), so scores are the exhaustive ones to the last bit and ties keep their order.
   */
  search(query: string, limit = 10, accept?: (name: string) => boolean): SearchHit[] {
    const count = this.slotOf.size;
    // Chosen before the staged postings are written (their field lengths already count), so
    // those get their weights as they are written.
    if (count > 0) this.chooseAverages(count);
    this.commitStaged();
    if (count === 0 || limit <= 0) return [];
    const plan = this.planQuery(query, count);
    const top = new TopK(limit);
    // The walk leaves its scratch clean when it ends; a filter (`accept`) that throws ends it
    // early, so the scratch is cleared here instead, or the next search would skip or score
    // the slots it left marked.
    try {
      const seeded = limit <= MAX_SEEDED ? this.seed(plan, limit, top, accept) : 0;
      for (let low = this.nextWindowStart(plan); low !== NO_SLOT; low = this.nextWindowStart(plan)) {
        const high = low + this.windowSlots;
        const kth = top.floor();
        if (below(this.boundWindow(plan, high), kth)) this.windowsSkipped++;
        else {
          this.splitNonEssential(plan, kth);
          this.accumulateEssential(plan, low, high);
          this.scoreWindowCandidates(plan, low, seeded > 0, top, accept);
        }
        this.advancePast(plan, high);
      }
      for (let j = 0; j < seeded; j++) this.seeded[this.seedSlots[j] as number] = 0;
      return top.sorted();
    } catch (error) {
      this.windowBits.fill(0);
      this.windowScores.fill(0);
      this.seeded.fill(0);
      throw error;
    }
  }

  /** The query's terms, rarest first, with their weights and where their postings are. */
  private planQuery(query: string, count: number): QueryPlan {
    const { weights: weighted, groups } = this.queryTerms(query);
    const live = this.postingLive;
    const terms = [...weighted.keys()].sort((a, b) => (live[a] as number) - (live[b] as number));
    const plan = new QueryPlan(terms.length, groups.size === 0 ? 0 : Math.max(...groups.values()) + 1);
    for (let i = 0; i < plan.n; i++) {
      const id = terms[i] as number;
      plan.group[i] = groups.get(id) ?? -1;
      plan.idfs[i] = idfOf(count, live[id] as number) * (weighted.get(id) as number);
      plan.position[i] = this.postingStart[id] as number;
      plan.ends[i] = (plan.position[i] as number) + (this.postingLengths[id] as number);
    }
    return plan;
  }

  /** The lowest slot any term has a posting for from its position on (`NO_SLOT` when none has). */
  private nextWindowStart(plan: QueryPlan): number {
    const slots = this.storeSlots;
    const { position, ends, n } = plan;
    let low = NO_SLOT;
    for (let i = 0; i < n; i++) {
      const p = position[i] as number;
      if (p < (ends[i] as number) && (slots[p] as number) < low) low = slots[p] as number;
    }
    return low;
  }

  /**
   * The terms with postings in the window (before slot `high`), ordered by the most each can add
   * there (`plan.bound`, lowest first; `plan.order`: their places in the plan): returns the sum.
   */
  private boundWindow(plan: QueryPlan, high: number): number {
    const slots = this.storeSlots;
    const { bound, order, position, ends, idfs, n } = plan;
    let present = 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const p = position[i] as number;
      if (p >= (ends[i] as number) || (slots[p] as number) >= high) continue;
      const most = (idfs[i] as number) * this.blockBound(p, ends[i] as number, high);
      // Insertion by bound, lowest first (a query has a few dozen terms at most).
      let at = present++;
      while (at > 0 && (bound[at - 1] as number) > most) {
        bound[at] = bound[at - 1] as number;
        order[at] = order[at - 1] as number;
        at--;
      }
      bound[at] = most;
      order[at] = i;
      total += most;
    }
    plan.present = present;
    return total;
  }

  /** The largest block bound of a term's postings from place `p` (before `end`) below slot `high`. */
  private blockBound(p: number, end: number, high: number): number {
    const slots = this.storeSlots;
    const blockMax = this.storeBlockMax;
    const shift = this.blockShift;
    let block = p >> shift;
    let max = blockMax[block] as number;
    for (;;) {
      const next = (block + 1) << shift;
      if (next >= end || (slots[next] as number) >= high) return max;
      block++;
      if ((blockMax[block] as number) > max) max = blockMax[block] as number;
    }
  }

  /**
   * The lowest bounds that together stay below a share of the k-th best: those terms are not
   * walked (`plan.unwalked` of them, first in `plan.order`; `plan.rest` their bounds' sum).
   */
  private splitNonEssential(plan: QueryPlan, kth: number): void {
    let unwalked = 0;
    let rest = 0;
    while (unwalked < plan.present && below(rest + (plan.bound[unwalked] as number), kth * UNWALKED_SHARE))
      rest += plan.bound[unwalked++] as number;
    plan.unwalked = unwalked;
    plan.rest = rest;
  }

  /** Adds up the walked terms' postings in the window into `windowScores`, marking each slot seen. */
  private accumulateEssential(plan: QueryPlan, low: number, high: number): void {
    const slots = this.storeSlots;
    const weights = this.storeWeights;
    const windowScores = this.windowScores;
    const windowBits = this.windowBits;
    const { order, idfs, ends, position } = plan;
    for (let j = plan.unwalked; j < plan.present; j++) {
      const i = order[j] as number;
      const idf = idfs[i] as number;
      const end = ends[i] as number;
      for (let p = position[i] as number; p < end; p++) {
        const slot = slots[p] as number;
        if (slot >= high) break;
        const weight = weights[p] as number;
        // A zero weight (a removed document, or a field weighted 0) adds nothing and must not
        // make the tool a candidate: a score of 0 marks a slot no walked term holds.
        if (weight !== 0) {
          const r = slot - low;
          windowScores[r] = (windowScores[r] as number) + idf * weight;
          windowBits[r >> 5] = (windowBits[r >> 5] as number) | (1 << (r & 31));
        }
      }
    }
  }

  /**
   * The window's candidates in slot order (the set bits, lowest first): each that can still reach
   * the k-th best with the terms not walked is scored in full and offered. Clears the window.
   */
  private scoreWindowCandidates(
    plan: QueryPlan,
    low: number,
    anySeeded: boolean,
    top: TopK,
    accept: ((name: string) => boolean) | undefined,
  ): void {
    const windowScores = this.windowScores;
    const windowBits = this.windowBits;
    const chosen = this.seeded;
    let kth = top.floor();
    plan.cursor.set(plan.position);
    for (let word = 0; word < windowBits.length; word++) {
      let bits = windowBits[word] as number;
      if (bits === 0) continue;
      windowBits[word] = 0;
      for (; bits !== 0; bits &= bits - 1) {
        const r = (word << 5) | (31 - Math.clz32(bits & -bits));
        const partial = windowScores[r] as number;
        windowScores[r] = 0;
        const slot = low + r;
        if (anySeeded && chosen[slot] === 1) continue;
        if (below(partial + plan.rest, kth) || !this.reachesKth(plan, slot, partial, kth)) continue;
        this.candidatesScored++;
        if (this.offerIfAccepted(top, slot, this.exactScore(plan, slot, plan.cursor, true), accept)) kth = top.floor();
      }
    }
  }

  /**
   * True when the tool in `slot`, with `partial` from the walked terms, may still reach `kth`:
   * the terms not walked, the highest bound first, each replace their bound by what they add to
   * it, until it cannot (their cursors move up to the slot).
   */
  private reachesKth(plan: QueryPlan, slot: number, partial: number, kth: number): boolean {
    const slots = this.storeSlots;
    const weights = this.storeWeights;
    const { cursor, order, bound, ends, idfs } = plan;
    let most = partial + plan.rest;
    for (let j = plan.unwalked - 1; j >= 0; j--) {
      const i = order[j] as number;
      most -= bound[j] as number;
      const end = ends[i] as number;
      let c = cursor[i] as number;
      if (c < end && (slots[c] as number) < slot) {
        c = seek(slots, c, end, slot);
        cursor[i] = c;
      }
      if (c < end && slots[c] === slot) most += (idfs[i] as number) * (weights[c] as number);
      if (below(most, kth)) return false;
    }
    return true;
  }

  /**
   * The exhaustive scorer's score of `slot`: every term, rarest first, from its place in `places`
   * (moved up to the slot when `keep`, as a window's cursors are).
   */
  private exactScore(plan: QueryPlan, slot: number, places: Int32Array, keep: boolean): number {
    const slots = this.storeSlots;
    const weights = this.storeWeights;
    const { ends, idfs, n, group, groupBest } = plan;
    let score = 0;
    if (groupBest.length > 0) groupBest.fill(0);
    for (let i = 0; i < n; i++) {
      const end = ends[i] as number;
      let c = places[i] as number;
      if (c < end && (slots[c] as number) < slot) {
        c = seek(slots, c, end, slot);
        if (keep) places[i] = c;
      }
      if (c < end && slots[c] === slot) {
        const weight = weights[c] as number;
        if (weight === 0) continue;
        const g = group[i] as number;
        if (g < 0) score += (idfs[i] as number) * weight;
        else if ((idfs[i] as number) * weight > (groupBest[g] as number)) groupBest[g] = (idfs[i] as number) * weight;
      }
    }
    // The related words of one query word are one concept: the best of them counts, not their sum
    // (a tool that says "post, publish, notify, announce" does not outrank one that says "send").
    // Every bound of the pruned walk is a sum, so it stays an upper bound of this score.
    for (let g = 0; g < groupBest.length; g++) score += groupBest[g] as number;
    return score;
  }

  /**
   * Offers the tool in `slot` when it would make the top k and the filter accepts it (the filter,
   * a run's visibility rules, runs only for such tools); true when offered.
   */
  private offerIfAccepted(top: TopK, slot: number, score: number, accept: ((name: string) => boolean) | undefined): boolean {
    const name = this.keys[slot] as string;
    if (!top.admits(name, score) || (accept !== undefined && !accept(name))) return false;
    top.offer(name, score);
    return true;
  }

  /** Moves every term of the window past it (to its first posting at `high` or later). */
  private advancePast(plan: QueryPlan, high: number): void {
    for (let j = 0; j < plan.present; j++) {
      const i = plan.order[j] as number;
      plan.position[i] = seek(this.storeSlots, plan.position[i] as number, plan.ends[i] as number, high);
    }
  }

  /**
   * Offers the search a first k-th best score, so that it skips from its first window: the
   * postings of the rarest terms (up to `SEED_POSTINGS`) are added up, and the tools they rate
   * best are scored in full and offered (and marked: the walk passes them by). Returns how many.
   */
  private seed(plan: QueryPlan, limit: number, top: TopK, accept: ((name: string) => boolean) | undefined): number {
    const touched = this.seedPartials(plan);
    const filled = this.bestSeeds(touched, 2 * limit);
    for (let j = 0; j < filled; j++) {
      const slot = this.seedSlots[j] as number;
      this.seeded[slot] = 1;
      this.candidatesScored++;
      this.offerIfAccepted(top, slot, this.exactScore(plan, slot, plan.position, false), accept);
    }
    return filled;
  }

  /**
   * Adds up the first `SEED_POSTINGS` postings of the rarest terms into `seedScores`; returns how
   * many slots got a partial score (listed in `seedTouched`).
   */
  private seedPartials(plan: QueryPlan): number {
    const slots = this.storeSlots;
    const weights = this.storeWeights;
    const partial = this.seedScores;
    const touched = this.seedTouched;
    let count = 0;
    let postings = 0;
    for (let i = 0; i < plan.n && postings < SEED_POSTINGS; i++) {
      const idf = plan.idfs[i] as number;
      const start = plan.position[i] as number;
      const end = Math.min(plan.ends[i] as number, start + SEED_POSTINGS - postings);
      for (let p = start; p < end; p++) {
        const weight = weights[p] as number;
        if (weight === 0) continue;
        const slot = slots[p] as number;
        const previous = partial[slot] as number;
        if (previous === 0) touched[count++] = slot;
        partial[slot] = previous + idf * weight;
      }
      postings += end - start;
    }
    return count;
  }

  /**
   * The best `wanted` of the `count` touched slots by partial score, best first, into
   * `seedSlots` (insertion into a short list); clears the partial scores. Returns how many.
   */
  private bestSeeds(count: number, most: number): number {
    const partial = this.seedScores;
    const touched = this.seedTouched;
    const wanted = Math.min(count, most);
    const best = this.seedSlots;
    let filled = 0;
    for (let t = 0; t < count; t++) {
      const slot = touched[t] as number;
      const score = partial[slot] as number;
      if (filled === wanted && score <= (partial[best[filled - 1] as number] as number)) continue;
      let at = filled < wanted ? filled++ : filled - 1;
      while (at > 0 && (partial[best[at - 1] as number] as number) < score) {
        best[at] = best[at - 1] as number;
        at--;
      }
      best[at] = slot;
    }
    for (let t = 0; t < count; t++) partial[touched[t] as number] = 0;
    return filled;
  }

  /**
   * The distinct term ids of a query with their weight: 1 for the query's words (run-together words
   * split where the parts are indexed), `relatedWeight` for words related to them.
   */
  private queryTerms(query: string): { readonly weights: Map<number, number>; readonly groups: Map<number, number> } {
    const ids = new Map<number, number>();
    const add = (term: string, weight = 1): boolean => {
      const id = this.termIds.get(term);
      if (id === undefined || this.postingLive[id] === 0) return false;
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
    const groups = this.relatedWeight > 0 ? this.addRelatedWords(plain, ids, add) : new Map<number, number>();
    const words = rawWords(plain);
    const split = this.splitCompounds ? this.addCompoundParts(words, add) : new Set<string>();
    if (this.splitCompounds) this.addJoinedWords(words, add);
    if (this.typoWeight > 0) this.addCorrections(words, split, add);
    return { weights: ids, groups };
  }

  /**
   * Adds, at `relatedWeight`, the words related to the query's words; returns per related term its
   * group: the query word it came from (a term related to two query words stays in the first one's
   * group; a query word itself is in none). The exact scorer counts the best term of a group, so
   * a query word's related words add at most one related match however many of them a description
   * lists; a related word beside the exact one still corroborates it ("new" for "create a file").
   */
  private addRelatedWords(
    plain: string,
    ids: ReadonlyMap<number, number>,
    add: (term: string, weight?: number) => boolean,
  ): Map<number, number> {
    this.related ??= relatedWords(this.extraRelatedWords);
    const related = this.related;
    const exact = new Set(ids.keys());
    const groups = new Map<number, number>();
    let next = 0;
    // Stop words too: "who", "where" and "when" ask for users, places and times.
    for (const term of tokenize(plain, { keepStopWords: true })) {
      const others = related.get(term);
      if (others === undefined) continue;
      const group = next++;
      for (const other of others) {
        if (!add(other, this.relatedWeight)) continue;
        const id = this.termIds.get(other) as number;
        if (!exact.has(id) && !groups.has(id)) groups.set(id, group);
      }
    }
    return groups;
  }

  /**
   * Adds the parts of run-together words that no tool contains (`readfile` → `read`, `file`);
   * returns the words split.
   */
  private addCompoundParts(words: readonly string[], add: (term: string) => boolean): Set<string> {
    const split = new Set<string>();
    for (const word of words) {
      if (word.length < MIN_COMPOUND || word.length > MAX_COMPOUND || isStopWord(word) || this.known(stemWord(word))) continue;
      const parts = this.compoundParts(word);
      if (parts === undefined) continue;
      split.add(word);
      for (const part of parts) add(part);
    }
    return split;
  }

  /**
   * Adds two neighbouring words run together where a tool name or server has them as one word
   * (`heap snapshot` → `heapsnapshot`, `free busy` → `freebusy`, `CircleCI` → `circle ci` →
   * `circleci`): the reverse of a compound split.
   */
  private addJoinedWords(words: readonly string[], add: (term: string) => boolean): void {
    for (let i = 0; i + 1 < words.length; i++) {
      const left = words[i] as string;
      const right = words[i + 1] as string;
      if (isStopWord(left) || isStopWord(right) || left.length + right.length > MAX_COMPOUND) continue;
      const joined = stemWord(left + right);
      if (this.inSomeName(joined) || this.inSomeServer(joined)) add(joined);
    }
  }

  /**
   * Adds, at `typoWeight`, the indexed words one edit away from a query word no tool contains
   * (`reflgo` → `reflog`). Compared stem to stem and, since a misspelling often stems differently
   * (`calender` → `calend`), the word as typed to the stems. Each word one edit away is looked
   * up (about 54 per letter, at most `MAX_TYPO_WORDS` unknown words a query, `MAX_CORRECTIONS` each): the cost does not
   * grow with the catalog.
   */
  private addCorrections(
    words: readonly string[],
    split: ReadonlySet<string>,
    add: (term: string, weight?: number) => boolean,
  ): void {
    let corrected = 0;
    for (const word of new Set(words)) {
      if (word.length < MIN_TYPO || word.length > MAX_COMPOUND || split.has(word) || isStopWord(word)) continue;
      if (HAS_DIGIT.test(word)) continue;
      const stemmed = stemWord(word);
      if (this.known(stemmed)) continue;
      if (++corrected > MAX_TYPO_WORDS) return;
      // A stem cut short (`testing` → `test`) is as ambiguous as a short word: looked up as typed only.
      const found = new Set<number>();
      const visit = (candidate: string) => {
        if (candidate.length < MIN_TYPO - 1) return;
        const id = this.termIds.get(candidate);
        if (id !== undefined && (this.postingLive[id] as number) > 0) found.add(id);
      };
      if (stemmed.length >= MIN_TYPO && stemmed !== word) forEachOneEdit(stemmed, visit);
      forEachOneEdit(word, visit);
      found.delete(this.termIds.get(stemmed) ?? -1);
      // Ties by the word, not the id: ids are reused as words die, and the same tools must rank alike.
      const names = this.termNames;
      const ranked = [...found].sort(
        (a, b) =>
          (this.postingLive[b] as number) - (this.postingLive[a] as number) ||
          ((names[a] as string) < (names[b] as string) ? -1 : 1),
      );
      for (const id of ranked.slice(0, MAX_CORRECTIONS)) add(this.termNames[id] as string, this.typoWeight);
    }
  }

  private known(term: string): boolean {
    const id = this.termIds.get(term);
    return id !== undefined && (this.postingLive[id] as number) > 0;
  }

  private inSomeServer(term: string): boolean {
    const id = this.termIds.get(term);
    return id !== undefined && (this.serverFrequency[id] as number) > 0;
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
   * The averages a search would choose now (in `nextAverages`): the current ones at the first
   * search or when one moved past the tolerance from those the last search chose, else those.
   */
  private averagesForSearch(count: number): Float64Array {
    const next = this.nextAverages;
    let drifted = !this.averagesChosen;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const current = Math.max((this.fieldTotals[f] as number) / count, 1);
      const chosen = this.chosenAverages[f] as number;
      if (Math.abs(current - chosen) > this.tolerance * chosen) drifted = true;
      next[f] = current;
    }
    if (!drifted) next.set(this.chosenAverages);
    return next;
  }

  /** A search's choice of averages, and the stored weights recomputed if they were not under them. */
  private chooseAverages(count: number): void {
    const next = this.averagesForSearch(count);
    this.chosenAverages.set(next);
    this.averagesChosen = true;
    this.weighUnder(next);
  }

  /**
   * The stored weights computed ahead of a search (a commit, an idle moment) under the averages
   * it would choose if nothing changes before it; it chooses nothing, so a later search decides.
   */
  private weighForNextSearch(): void {
    const count = this.slotOf.size;
    if (count > 0) this.weighUnder(this.averagesForSearch(count));
  }

  /** Recomputes every stored weight unless all are current under exactly these averages. */
  private weighUnder(target: Float64Array): void {
    if (this.weightsCurrent && sameValues(this.averages, target)) return;
    this.averages.set(target);
    const slots = this.storeSlots;
    const counts = this.storeCounts;
    const weights = this.storeWeights;
    for (let id = 0; id < this.terms; id++) {
      const start = this.postingStart[id] as number;
      const length = this.postingLengths[id] as number;
      for (let i = start; i < start + length; i++) weights[i] = this.weightOf(slots[i] as number, counts, i * FIELD_COUNT);
      this.steps += length;
    }
    this.blockMaxOfStore();
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

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.freeTerms.pop();
      if (id === undefined) {
        id = this.terms++;
        if (id === this.postingStart.length) this.growTerms(Math.max(1024, id * 2));
      }
      this.termIds.set(term, id);
      this.termNames[id] = term;
    }
    return id;
  }

  /** The terms held: live ones, and dead ones whose ids are not free yet. */
  get vocabularySize(): number {
    return this.terms - this.freeTerms.length;
  }

  /**
   * Term `id` lost its last document: it leaves `termIds` and its room in the store is given up
   * (the next compaction reclaims it); its id is reused once the word cache forgets it.
   */
  private killTerm(id: number): void {
    this.termIds.delete(this.termNames[id] as string);
    this.termDead[id] = 1;
    this.deadTerms.push(id);
    this.storeReserved -= this.postingCapacity[id] as number;
    this.postingCapacity[id] = 0;
    this.postingLengths[id] = 0;
    this.nameFrequency[id] = 0;
    this.serverFrequency[id] = 0;
  }

  /**
   * Frees the dead terms' ids once they are many (as many as half the live terms, at least
   * `FREE_TERMS_MIN`): the word cache, which may still map words to them, is emptied first.
   * Called only between documents, when nothing is staged.
   */
  private freeDeadTerms(): void {
    const dead = this.deadTerms;
    if (dead.length < Math.max(this.freeTermsMin, this.termIds.size >> 1)) return;
    this.wordTerms.clear();
    for (const id of dead) {
      this.termDead[id] = 0;
      this.termNames[id] = undefined;
      this.freeTerms.push(id);
    }
    this.steps += dead.length;
    this.deadTerms = [];
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
    this.postingLive = grownInt(this.postingLive);
    this.nameFrequency = grownInt(this.nameFrequency);
    this.serverFrequency = grownInt(this.serverFrequency);
    const seen = new Int32Array(2 * capacity);
    seen.set(this.seen);
    this.seen = seen;
    this.stagedPostings = grownInt(this.stagedPostings);
    const dead = new Uint8Array(capacity);
    dead.set(this.termDead);
    this.termDead = dead;
  }

  /** Appends `slot` (the highest so far) to a term's postings. */
  private addPosting(id: number, slot: number, scratch: Uint8Array, from: number): void {
    const length = this.postingLengths[id] as number;
    if (length === this.postingCapacity[id]) this.moveTerm(id, length === 0 ? 1 : length * 2);
    const at = (this.postingStart[id] as number) + length;
    this.storeSlots[at] = slot;
    this.steps++;
    const counts = this.storeCounts;
    if ((scratch[from] as number) > 0) this.nameFrequency[id] = (this.nameFrequency[id] as number) + 1;
    if ((scratch[from + SERVER] as number) > 0) this.serverFrequency[id] = (this.serverFrequency[id] as number) + 1;
    const cell = at * FIELD_COUNT;
    for (let f = 0; f < FIELD_COUNT; f++) counts[cell + f] = scratch[from + f] as number;
    // Before the first search (a bulk load) the weight waits for the averages of that search.
    if (this.weightsCurrent) {
      this.storeWeights[at] = this.weightOf(slot, counts, cell);
      const weight = this.storeWeights[at] as number;
      const block = at >> this.blockShift;
      if (weight > (this.storeBlockMax[block] as number)) this.storeBlockMax[block] = weight;
    }
    this.postingLengths[id] = length + 1;
    this.postingLive[id] = (this.postingLive[id] as number) + 1;
  }

  /**
   * Gives term `id` room for `capacity` postings at the end of the store, its postings copied
   * there in order; the room it leaves is reclaimed by the next compaction.
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
    this.raiseBlocks(to, to + length);
    this.steps += length;
    this.postingStart[id] = to;
    this.postingCapacity[id] = capacity;
    this.storeUsed = to + capacity;
    this.storeReserved += capacity - room;
  }

  /**
   * Copies every term's postings, in term order with its room, into new arrays with room for
   * `room` entries (default twice `needed`): one pass over the live postings, paid for by the
   * growth (or the moves) since the last compaction.
   */
  private compactStore(needed: number, room = 2 * needed): void {
    const capacity = Math.max(SearchIndex.initialStore, room);
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
    this.storeBlockMax = new Float32Array((capacity >> this.blockShift) + 1);
    this.blockMaxOfStore();
  }

  /**
   * Marks `slot`'s posting of a term removed (counts and weight 0, found by binary search: the
   * postings are sorted by slot), in place so that the order holds; purges the term once half of
   * its postings are removed ones (a pass paid for by as many removals).
   */
  private removePosting(id: number, slot: number): void {
    const base = this.postingStart[id] as number;
    const length = this.postingLengths[id] as number;
    const slots = this.storeSlots;
    let lowest = base;
    let highest = base + length - 1;
    while (lowest < highest) {
      const middle = (lowest + highest) >> 1;
      if ((slots[middle] as number) < slot) lowest = middle + 1;
      else highest = middle;
      this.steps++;
    }
    // Never another document's posting: the slot must be the one found.
    if (length === 0 || slots[lowest] !== slot) return;
    const counts = this.storeCounts;
    const cell = lowest * FIELD_COUNT;
    if ((counts[cell + NAME] as number) > 0) this.nameFrequency[id] = (this.nameFrequency[id] as number) - 1;
    if ((counts[cell + SERVER] as number) > 0) this.serverFrequency[id] = (this.serverFrequency[id] as number) - 1;
    counts.fill(0, cell, cell + FIELD_COUNT);
    this.storeWeights[lowest] = 0;
    this.steps++;
    const left = (this.postingLive[id] as number) - 1;
    this.postingLive[id] = left;
    if (left === 0 && this.stagedPostings[id] === 0) this.killTerm(id);
    else if (length >= PURGE_MIN && 2 * left <= length) this.purgeTerm(id);
  }

  /** Drops the postings of removed documents from a term (keeping the order of the others). */
  private purgeTerm(id: number): void {
    const base = this.postingStart[id] as number;
    const end = base + (this.postingLengths[id] as number);
    const slots = this.storeSlots;
    const counts = this.storeCounts;
    const weights = this.storeWeights;
    const keys = this.keys;
    let to = base;
    for (let from = base; from < end; from++) {
      if (keys[slots[from] as number] === undefined) continue;
      if (to !== from) {
        slots[to] = slots[from] as number;
        counts.copyWithin(to * FIELD_COUNT, from * FIELD_COUNT, (from + 1) * FIELD_COUNT);
        weights[to] = weights[from] as number;
      }
      to++;
    }
    // Postings moved towards the start may now sit in blocks whose bound was lower.
    this.raiseBlocks(base, to);
    this.steps += end - base;
    this.postingLengths[id] = to - base;
  }

  /** Raises the block bounds of store entries `from` to `to` to their weights. */
  private raiseBlocks(from: number, to: number): void {
    const weights = this.storeWeights;
    const blockMax = this.storeBlockMax;
    const shift = this.blockShift;
    for (let i = from; i < to; i++) {
      const block = i >> shift;
      if ((weights[i] as number) > (blockMax[block] as number)) blockMax[block] = weights[i] as number;
    }
  }

  /** Every block bound from the terms' postings (entries outside them are not bounded). */
  private blockMaxOfStore(): void {
    this.storeBlockMax.fill(0);
    for (let id = 0; id < this.terms; id++) {
      const start = this.postingStart[id] as number;
      this.raiseBlocks(start, start + (this.postingLengths[id] as number));
    }
  }

  /**
   * Renumbers the live slots 0, 1, ... in their order (so every term's postings stay sorted),
   * dropping removed documents' postings: one pass over slots and postings, paid for by the
   * removals since the last one (at least as many as the live documents).
   */
  private renumber(): void {
    const keys = this.keys;
    // New slot of each old one, -1 for a removed one.
    const next = new Int32Array(keys.length);
    let live = 0;
    const lengths = this.fieldLengths;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      if (key === undefined) {
        next[slot] = -1;
        continue;
      }
      next[slot] = live;
      if (live !== slot) {
        keys[live] = key;
        this.slotOf.set(key, live);
        this.termStart[live] = this.termStart[slot] as number;
        this.termCount[live] = this.termCount[slot] as number;
        lengths.copyWithin(live * FIELD_COUNT, slot * FIELD_COUNT, (slot + 1) * FIELD_COUNT);
      }
      live++;
    }
    this.steps += keys.length;
    keys.length = live;
    lengths.fill(0, live * FIELD_COUNT);
    const slots = this.storeSlots;
    const counts = this.storeCounts;
    const weights = this.storeWeights;
    for (let id = 0; id < this.terms; id++) {
      const base = this.postingStart[id] as number;
      const end = base + (this.postingLengths[id] as number);
      let to = base;
      for (let from = base; from < end; from++) {
        const slot = next[slots[from] as number] as number;
        if (slot < 0) continue;
        slots[to] = slot;
        if (to !== from) {
          counts.copyWithin(to * FIELD_COUNT, from * FIELD_COUNT, (from + 1) * FIELD_COUNT);
          weights[to] = weights[from] as number;
        }
        to++;
      }
      this.steps += end - base;
      this.postingLengths[id] = to - base;
    }
    this.blockMaxOfStore();
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
      this.seedScores = new Float64Array(capacity);
      this.seeded = new Uint8Array(capacity);
      this.seedTouched = new Int32Array(Math.min(capacity, SEED_POSTINGS));
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

/** Past any slot. */
const NO_SLOT = 0x7fffffff;

/** One search's terms (rarest first) and its walk state, by term place `i` in the plan. */
class QueryPlan {
  /** Per term: its idf times its query weight. */
  readonly idfs: Float64Array;
  /** Per term: its next posting in the store (the current window's first), and its end. */
  readonly position: Int32Array;
  readonly ends: Int32Array;
  /** Per term: its posting at or after the candidate being scored (within a window). */
  readonly cursor: Int32Array;
  /** The window's terms (places in the plan) by bound, lowest first, and the bounds. */
  readonly order: Int32Array;
  readonly bound: Float64Array;
  /** Terms with postings in the window. */
  present = 0;
  /** The first `unwalked` of `order` are not walked in this window; `rest` bounds them together. */
  unwalked = 0;
  rest = 0;
  /** Per term: its group of related words (-1: none); per group, the best score of its terms so far. */
  readonly group: Int32Array;
  readonly groupBest: Float64Array;

  constructor(
    readonly n: number,
    groups = 0,
  ) {
    this.group = new Int32Array(n).fill(-1);
    this.groupBest = new Float64Array(groups);
    this.idfs = new Float64Array(n);
    this.position = new Int32Array(n);
    this.ends = new Int32Array(n);
    this.cursor = new Int32Array(n);
    this.order = new Int32Array(n);
    this.bound = new Float64Array(n);
  }
}

/**
 * True when a score bounded by `most` cannot reach a k-th best score of `kth`, so cannot enter the
 * top k even by a tie (a margin far above any rounding: bounds are summed in another order).
 */
function below(most: number, kth: number): boolean {
  return most * (1 + 1e-9) + 1e-9 < kth;
}

/** The first place from `from` to `end` whose slot is `target` or more (`end` if none): galloping. */
function seek(slots: Int32Array, from: number, end: number, target: number): number {
  if (from >= end || (slots[from] as number) >= target) return from;
  let low = from;
  let step = 1;
  while (low + step < end && (slots[low + step] as number) < target) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, end);
  // slots[low] < target; the answer is in (low, high].
  while (low + 1 < high) {
    const middle = (low + high) >> 1;
    if ((slots[middle] as number) < target) low = middle;
    else high = middle;
  }
  return high;
}

function idfOf(count: number, frequency: number): number {
  return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
}

/** The server of a document: given, from its `mcp_server:` tag, or the name's `server__` / `server.` prefix. */
export function serverOf(document: SearchDocument): string | undefined {
  if (document.server !== undefined) return document.server;
  const tags = document.tags ?? [];
  for (let t = 0; t < tags.length; t++) {
    const tag = tags[t] as string;
    if (tag.startsWith(SERVER_TAG)) return tag.slice(SERVER_TAG.length);
  }
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
