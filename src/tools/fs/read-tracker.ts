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
}

/** The run's read tracker. */
export const READ_TRACKER = createRunStorageKey("agent-tool-catalog.read-tracker", () => new ReadTracker());
