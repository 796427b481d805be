import { createRunStorageKey } from "agent-tool-catalog";

/** One file as a mutation left it: its content before and after (`undefined` = absent). */
export interface JournaledFile {
  /** Absolute path. */
  readonly path: string;
  /** How the model named it. */
  readonly displayPath: string;
  /**
   * The file's real path when it was changed (its lock key: links followed). Undo refuses a path
   * that resolves elsewhere now (swapped for a link). Absent in journals saved before it existed.
   */
  readonly realPath?: string;
  /** Content before the mutation. */
  readonly before: Buffer | undefined;
  /** Content after the mutation. */
  readonly after: Buffer | undefined;
}

/** One mutation by a file tool: every file it changed, so that it can be undone as a whole. */
export interface JournalEntry {
  /** A number, increasing per run. */
  readonly id: number;
  /** The tool that made it (`write`, `edit`, `apply_patch`, ...). */
  readonly tool: string;
  /** The files it changed. */
  readonly files: readonly JournaledFile[];
  /**
   * Directories it made for its files (real paths, outermost first): undoing it removes those
   * that are empty again, and no others.
   */
  readonly createdDirectories?: readonly string[];
}

/**
 * The undo journal of a run: every mutation of the file tools, newest last. Undo pops from here
 * onto the redo stack; a new mutation clears the redo stack.
 */
export class EditJournal {
  private readonly done: JournalEntry[] = [];
  private readonly undone: JournalEntry[] = [];
  private nextId = 1;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly limit = 200) {}

  /** Records a mutation. */
  record(tool: string, files: readonly JournaledFile[], createdDirectories: readonly string[] = []): JournalEntry {
    const entry: JournalEntry =
      createdDirectories.length === 0
        ? { id: this.nextId++, tool, files }
        : { id: this.nextId++, tool, files, createdDirectories };
    this.done.push(entry);
    if (this.done.length > this.limit) this.done.shift();
    this.undone.length = 0;
    return entry;
  }

  /** The newest mutation not undone. */
  lastDone(): JournalEntry | undefined {
    return this.done.at(-1);
  }

  /** The newest undone mutation. */
  lastUndone(): JournalEntry | undefined {
    return this.undone.at(-1);
  }

  /**
   * Moves `entry` to the redo stack (after it was reverted on disk). By identity, not "the
   * newest": a parallel call may have recorded another mutation while this one was reverted, and
   * that one was not undone.
   */
  markUndone(entry: JournalEntry): void {
    const index = this.done.lastIndexOf(entry);
    if (index === -1) return;
    this.done.splice(index, 1);
    this.undone.push(entry);
  }

  /** Moves `entry` back from the redo stack (after it was re-applied on disk). */
  markRedone(entry: JournalEntry): void {
    const index = this.undone.lastIndexOf(entry);
    if (index === -1) return;
    this.undone.splice(index, 1);
    this.done.push(entry);
  }

  /**
   * Runs `step` after the undo/redo steps already running on this journal: parallel undo calls
   * (one model step with several) then take successive entries instead of all taking the newest.
   */
  exclusive<T>(step: () => Promise<T>): Promise<T> {
    const result = this.tail.then(step);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** How many mutations can be undone. */
  get undoDepth(): number {
    return this.done.length;
  }

  /**
   * The journal as saved with the run (file contents in base64). At most `maxBytes` of contents
   * are saved: the oldest undo steps beyond it are left out (the redo steps first), so a resumed
   * run can undo fewer steps, never wrong ones.
   */
  toJSON(maxBytes = SAVED_JOURNAL_MAX_BYTES): SavedEditJournal {
    let budget = maxBytes;
    const keep = (entries: readonly JournalEntry[]): SavedJournalEntry[] => {
      const out: SavedJournalEntry[] = [];
      for (let index = entries.length - 1; index >= 0; index--) {
        const entry = entries[index] as JournalEntry;
        const size = entry.files.reduce((sum, file) => sum + (file.before?.length ?? 0) + (file.after?.length ?? 0), 0);
        if (size > budget) break;
        budget -= size;
        out.unshift({
          id: entry.id,
          tool: entry.tool,
          files: entry.files.map((file) => ({
            path: file.path,
            displayPath: file.displayPath,
            ...(file.realPath === undefined ? {} : { realPath: file.realPath }),
            before: file.before?.toString("base64"),
            after: file.after?.toString("base64"),
          })),
          ...(entry.createdDirectories === undefined ? {} : { createdDirectories: entry.createdDirectories }),
        });
      }
      return out;
    };
    const undone = keep(this.undone);
    const done = keep(this.done);
    return { version: 1, nextId: this.nextId, limit: this.limit, done, undone };
  }

  /** Rebuilds a journal saved by {@link EditJournal.toJSON}; throws on anything else. */
  static fromJSON(saved: unknown): EditJournal {
    const candidate = saved as Partial<SavedEditJournal> | null;
    if (
      typeof candidate !== "object" ||
      candidate === null ||
      candidate.version !== 1 ||
      !Number.isInteger(candidate.nextId) ||
      !Number.isInteger(candidate.limit) ||
      !Array.isArray(candidate.done) ||
      !Array.isArray(candidate.undone)
    ) {
      throw new TypeError("not a saved edit journal");
    }
    const journal = new EditJournal(candidate.limit);
    journal.nextId = candidate.nextId as number;
    journal.done.push(...candidate.done.map(loadEntry));
    journal.undone.push(...candidate.undone.map(loadEntry));
    return journal;
  }
}

/** Bytes of file contents a saved journal keeps at most (16 MiB). */
export const SAVED_JOURNAL_MAX_BYTES = 16 * 1024 * 1024;

/** A journal entry as saved: contents in base64. */
interface SavedJournalEntry {
  readonly id: number;
  readonly tool: string;
  readonly files: readonly {
    readonly path: string;
    readonly displayPath: string;
    readonly realPath?: string;
    readonly before: string | undefined;
    readonly after: string | undefined;
  }[];
  readonly createdDirectories?: readonly string[];
}

/** An {@link EditJournal} as saved with the run. */
export interface SavedEditJournal {
  readonly version: 1;
  readonly nextId: number;
  readonly limit: number;
  readonly done: readonly SavedJournalEntry[];
  readonly undone: readonly SavedJournalEntry[];
}

function loadEntry(saved: SavedJournalEntry): JournalEntry {
  const text = (value: unknown): value is string => typeof value === "string";
  if (
    typeof saved !== "object" ||
    saved === null ||
    !Number.isInteger(saved.id) ||
    !text(saved.tool) ||
    !Array.isArray(saved.files) ||
    !saved.files.every(
      (file) =>
        typeof file === "object" &&
        file !== null &&
        text(file.path) &&
        text(file.displayPath) &&
        (file.realPath === undefined || text(file.realPath)) &&
        (file.before === undefined || text(file.before)) &&
        (file.after === undefined || text(file.after)),
    ) ||
    (saved.createdDirectories !== undefined && !(Array.isArray(saved.createdDirectories) && saved.createdDirectories.every(text)))
  ) {
    throw new TypeError("not a saved journal entry");
  }
  return {
    id: saved.id,
    tool: saved.tool,
    files: saved.files.map((file) => ({
      path: file.path,
      displayPath: file.displayPath,
      ...(file.realPath === undefined ? {} : { realPath: file.realPath }),
      before: file.before === undefined ? undefined : Buffer.from(file.before, "base64"),
      after: file.after === undefined ? undefined : Buffer.from(file.after, "base64"),
    })),
    ...(saved.createdDirectories === undefined ? {} : { createdDirectories: saved.createdDirectories }),
  };
}

/** The run's journal. */
/** The run's edit journal; saved with the run (`run.toJSON()`), so undo works after a resume. */
export const EDIT_JOURNAL = createRunStorageKey("agent-tool-catalog.edit-journal", () => new EditJournal(), {
  save: (journal) => journal.toJSON(),
  load: (saved) => EditJournal.fromJSON(saved),
});
