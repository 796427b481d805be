import { checkNumberOption } from "../../errors/check-number-option.js";
/**
 * What a transcript entry records.
 *
 * @public
 */
export type TranscriptEntryKind = "message" | "tool_call" | "tool_result";

/**
 * One entry of a run's transcript.
 *
 * @public
 */
export interface TranscriptEntry {
  /** The run (conversation) it belongs to. */
  readonly runId: string;
  /** Its kind. */
  readonly kind: TranscriptEntryKind;
  /** Who said it, for messages (`user`, `assistant`, `system`). */
  readonly role?: string | undefined;
  /** The tool, for tool calls and results. */
  readonly toolName?: string | undefined;
  /** The provider's call id, for tool calls and results. */
  readonly callId?: string | undefined;
  /** The searchable text: the message, the call's input as JSON, or the result. */
  readonly text: string;
  /** When, in ms since the epoch. */
  readonly at: number;
}

/**
 * A stored entry with its position in the store.
 *
 * @public
 */
export interface StoredTranscriptEntry extends TranscriptEntry {
  /** Its position, unique in the store and increasing. */
  readonly seq: number;
}

/**
 * Which entries a search reads.
 *
 * @public
 */
export interface TranscriptQuery {
  /** Only this run's entries. */
  readonly runId?: string | undefined;
  /** Every run but this one (earlier sessions). */
  readonly excludeRunId?: string | undefined;
  /** The newest this many entries at most. @defaultValue all */
  readonly limit?: number | undefined;
}

/**
 * Where transcripts are kept: this run's and earlier runs'. Methods are async so a host can keep
 * them in a database; {@link InMemoryTranscriptStore} is the in-process default.
 * @public
 */
export interface TranscriptStore {
  /** Adds an entry. */
  append(entry: TranscriptEntry): Promise<void>;
  /** Entries matching the query, oldest first. */
  entries(query: TranscriptQuery): Promise<readonly StoredTranscriptEntry[]>;
}

/**
 * Options of {@link InMemoryTranscriptStore}.
 *
 * @public
 */
export interface InMemoryTranscriptStoreOptions {
  /** Entries kept in all, oldest dropped first: a whole number at least 1, or `Infinity` (all). @defaultValue 20000 */
  readonly maxEntries?: number;
  /** Characters kept of one entry's text: a whole number at least 0, or `Infinity` (all). @defaultValue 8000 */
  readonly maxTextLength?: number;
}

/**
 * Transcripts in memory, bounded in entries and entry size.
 *
 * @public
 */
export class InMemoryTranscriptStore implements TranscriptStore {
  private readonly stored: StoredTranscriptEntry[] = [];
  private readonly maxEntries: number;
  private readonly maxTextLength: number;
  private seq = 0;

  constructor(options: InMemoryTranscriptStoreOptions = {}) {
    // NaN compared false with every length: every entry and every character was kept, silently.
    checkNumberOption(options.maxEntries, "maxEntries", { min: 1, integer: true, infinite: true }, "InMemoryTranscriptStore");
    checkNumberOption(
      options.maxTextLength,
      "maxTextLength",
      { min: 0, integer: true, infinite: true },
      "InMemoryTranscriptStore",
    );
    this.maxEntries = options.maxEntries ?? 20_000;
    this.maxTextLength = options.maxTextLength ?? 8000;
  }

  /** {@inheritDoc TranscriptStore.append} */
  async append(entry: TranscriptEntry): Promise<void> {
    const text = entry.text.length > this.maxTextLength ? `${entry.text.slice(0, this.maxTextLength)} [cut]` : entry.text;
    this.stored.push({ ...entry, text, seq: ++this.seq });
    if (this.stored.length > this.maxEntries) this.stored.splice(0, this.stored.length - this.maxEntries);
  }

  /** {@inheritDoc TranscriptStore.entries} */
  async entries(query: TranscriptQuery): Promise<readonly StoredTranscriptEntry[]> {
    const matching = this.stored.filter(
      (entry) =>
        (query.runId === undefined || entry.runId === query.runId) &&
        (query.excludeRunId === undefined || entry.runId !== query.excludeRunId),
    );
    return query.limit === undefined ? matching : matching.slice(-query.limit);
  }
}
