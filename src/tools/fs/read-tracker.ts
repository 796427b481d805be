import { createRunStorageKey } from "agent-tool-catalog";

/**
 * What a run has read: per file, the version and line ranges returned. Re-reading an unchanged
 * range gets a short note instead of the same content again.
 */
export class ReadTracker {
  private readonly reads = new Map<string, { version: string; ranges: string[] }>();

  /** True when exactly this range of this version was returned before. */
  seen(path: string, version: string, range: string): boolean {
    const entry = this.reads.get(path);
    return entry !== undefined && entry.version === version && entry.ranges.includes(range);
  }

  /** Remembers a returned range. */
  remember(path: string, version: string, range: string): void {
    const entry = this.reads.get(path);
    if (entry === undefined || entry.version !== version) this.reads.set(path, { version, ranges: [range] });
    else entry.ranges.push(range);
  }

  /** Forgets a file (after this run changed it, its next read returns content again). */
  forget(path: string): void {
    this.reads.delete(path);
  }

  /** The record as saved with the run. */
  toJSON(): Record<string, { version: string; ranges: string[] }> {
    return Object.fromEntries(this.reads);
  }

  /** Rebuilds a record saved by {@link ReadTracker.toJSON}; throws on anything else. */
  static fromJSON(saved: unknown): ReadTracker {
    if (typeof saved !== "object" || saved === null || Array.isArray(saved)) throw new TypeError("not a saved read record");
    const tracker = new ReadTracker();
    for (const [path, entry] of Object.entries(saved as Record<string, { version?: unknown; ranges?: unknown }>)) {
      if (
        typeof entry?.version !== "string" ||
        !Array.isArray(entry.ranges) ||
        !entry.ranges.every((range) => typeof range === "string")
      ) {
        throw new TypeError("not a saved read record");
      }
      tracker.reads.set(path, { version: entry.version, ranges: [...(entry.ranges as string[])] });
    }
    return tracker;
  }
}

/** The run's read tracker; saved with the run, so a resumed run still knows what the model has read. */
export const READ_TRACKER = createRunStorageKey("agent-tool-catalog.read-tracker", () => new ReadTracker(), {
  save: (tracker) => tracker.toJSON(),
  load: (saved) => ReadTracker.fromJSON(saved),
});
