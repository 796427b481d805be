import { createRunStorageKey } from "agent-tool-catalog";

/** One file as a mutation left it: its content before and after (`undefined` = absent). */
export interface JournaledFile {
  /** Absolute path. */
  readonly path: string;
  /** How the model named it. */
  readonly displayPath: string;
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
}

/**
 * The undo journal of a run: every mutation of the file tools, newest last. Undo pops from here
 * onto the redo stack; a new mutation clears the redo stack.
 */
export class EditJournal {
  private readonly done: JournalEntry[] = [];
  private readonly undone: JournalEntry[] = [];
  private nextId = 1;

  constructor(private readonly limit = 200) {}

  /** Records a mutation. */
  record(tool: string, files: readonly JournaledFile[]): JournalEntry {
    const entry: JournalEntry = { id: this.nextId++, tool, files };
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

  /** Moves the newest mutation to the redo stack (after it was reverted on disk). */
  markUndone(): void {
    const entry = this.done.pop();
    if (entry !== undefined) this.undone.push(entry);
  }

  /** Moves the newest undone mutation back (after it was re-applied on disk). */
  markRedone(): void {
    const entry = this.undone.pop();
    if (entry !== undefined) this.done.push(entry);
  }

  /** How many mutations can be undone. */
  get undoDepth(): number {
    return this.done.length;
  }
}

/** The run's journal. */
export const EDIT_JOURNAL = createRunStorageKey("agent-tool-catalog.edit-journal", () => new EditJournal());
