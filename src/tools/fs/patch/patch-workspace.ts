import type { FileChange, FileChangeSummary, PatchSummary } from "./file-change.js";
import { countLines, type FileContent, sameFileContent } from "./file-content.js";
import type { FileReader } from "./file-reader.js";

/** Lines and hunks a plan step changed. */
export interface ChangeStats {
  readonly added: number;
  readonly removed: number;
  readonly hunks: number;
}

interface Entry {
  readonly original: FileContent | undefined;
  current: FileContent | undefined;
  stats: ChangeStats;
  /** Deleted and created again within the patch: its stats are the whole old and new content. */
  recreated: boolean;
  /** Line of the patch that deleted it, for "deleted earlier in this patch". */
  deletedAt?: number;
}

const NO_STATS: ChangeStats = { added: 0, removed: 0, hunks: 0 };

function plus(left: ChangeStats, right: ChangeStats): ChangeStats {
  return { added: left.added + right.added, removed: left.removed + right.removed, hunks: left.hunks + right.hunks };
}

/**
 * The files as a plan sees them while it runs, in memory: each path is read once, then every
 * step works on what the previous steps left. At the end the net effect per path becomes the
 * plan's changes, so "add then update" is one add and "move then edit" is one moved update.
 */
export class PatchWorkspace {
  private readonly entries = new Map<string, Entry>();
  /** Move destination to the original source path. */
  private readonly moves = new Map<string, string>();

  constructor(private readonly reader: FileReader) {}

  /** The content of `path` as the plan has left it so far. */
  async read(path: string): Promise<FileContent | undefined> {
    let entry = this.entries.get(path);
    if (entry === undefined) {
      const original = this.reader.readBytes !== undefined ? await this.reader.readBytes(path) : await this.reader.read(path);
      entry = { original, current: original, stats: NO_STATS, recreated: false };
      this.entries.set(path, entry);
    }
    return entry.current;
  }

  /** The patch line that deleted `path`, when an earlier step did. */
  deletedAt(path: string): number | undefined {
    return this.entries.get(path)?.deletedAt;
  }

  /** Sets the content of a path read before (`undefined` deletes it). */
  write(path: string, content: FileContent | undefined, stats: ChangeStats, patchLine?: number): void {
    const entry = this.entry(path);
    if (content === undefined) {
      entry.stats = NO_STATS;
      if (patchLine !== undefined) entry.deletedAt = patchLine;
      this.moves.delete(path);
    } else {
      if (entry.current === undefined && entry.original !== undefined) entry.recreated = true;
      entry.stats = plus(entry.stats, stats);
    }
    entry.current = content;
  }

  /** Moves `from` to `to` (both read before) with new content. */
  move(from: string, to: string, content: FileContent, stats: ChangeStats, patchLine: number): void {
    const carried = plus(this.entry(from).stats, stats);
    const source = this.moves.get(from) ?? from;
    this.write(from, undefined, NO_STATS, patchLine);
    this.write(to, content, carried);
    this.moves.set(to, source);
  }

  /** The net changes, in the order paths were first touched, and their summary. */
  result(): { changes: FileChange[]; summary: PatchSummary } {
    const changes = new Map<string, { change: FileChange; stats: ChangeStats }>();
    for (const [path, entry] of this.entries) {
      const change = netChange(path, entry);
      if (change !== undefined) changes.set(path, change);
    }
    for (const [destination, source] of this.moves) {
      const added = changes.get(destination);
      const deleted = changes.get(source);
      if (added?.change.type !== "add" || deleted?.change.type !== "delete") continue;
      const previous = deleted.change.previous;
      const moved: FileChange = { type: "update", path: source, moveTo: destination, content: added.change.content, previous };
      changes.set(source, { change: moved, stats: this.entry(destination).stats });
      changes.delete(destination);
    }
    const list = [...changes.values()];
    const files: FileChangeSummary[] = list.map(({ change, stats }) => ({
      path: change.path,
      type: change.type,
      ...(change.type === "update" && change.moveTo !== undefined ? { moveTo: change.moveTo } : {}),
      ...stats,
    }));
    const added = files.reduce((sum, file) => sum + file.added, 0);
    const removed = files.reduce((sum, file) => sum + file.removed, 0);
    return { changes: list.map(({ change }) => change), summary: { files, added, removed } };
  }

  private entry(path: string): Entry {
    const entry = this.entries.get(path);
    if (entry === undefined) throw new Error(`PatchWorkspace: "${path}" was written before it was read`);
    return entry;
  }
}

function netChange(path: string, entry: Entry): { change: FileChange; stats: ChangeStats } | undefined {
  const { original, current } = entry;
  if (original === undefined) {
    if (current === undefined) return undefined;
    return {
      change: { type: "add", path, content: current },
      stats: { added: countLines(current), removed: 0, hunks: entry.stats.hunks },
    };
  }
  if (current === undefined) {
    return { change: { type: "delete", path, previous: original }, stats: { added: 0, removed: countLines(original), hunks: 0 } };
  }
  if (current === original || sameFileContent(current, original)) return undefined;
  const stats = entry.recreated
    ? { added: countLines(current), removed: countLines(original), hunks: entry.stats.hunks }
    : entry.stats;
  return { change: { type: "update", path, content: current, previous: original }, stats };
}
