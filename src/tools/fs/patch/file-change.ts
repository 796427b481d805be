import type { FileContent } from "./file-content.js";

/**
 * One file as the plan leaves it. Contents are bytes where the reader gave bytes (see `FileContent`). `previous` is the content the plan was computed from, so the
 * tool layer can refuse to write when the file changed in between (and restore it on rollback).
 */
export type FileChange =
  | {
      /** Create a file that does not exist. */
      readonly type: "add";
      /** Normalised path relative to the workspace root. */
      readonly path: string;
      /** The new file's content. */
      readonly content: FileContent;
    }
  | {
      /** Rewrite an existing file, and move it when `moveTo` is set. */
      readonly type: "update";
      /** Normalised path of the existing file. */
      readonly path: string;
      /** The content to leave (at `moveTo` when set). */
      readonly content: FileContent;
      /** Where the file goes; the destination did not exist. `path` is removed. */
      readonly moveTo?: string;
      /** The content the plan was computed from. */
      readonly previous: FileContent;
    }
  | {
      /** Remove an existing file. */
      readonly type: "delete";
      /** Normalised path of the file. */
      readonly path: string;
      /** The content the plan was computed from. */
      readonly previous: FileContent;
    };

/** What a plan does to one file, for the tool's reply to the model ("src/a.ts +3 -1, 2 hunks"). */
export interface FileChangeSummary {
  /** The path of the change (the source path of a move). */
  readonly path: string;
  /** The kind of change. */
  readonly type: FileChange["type"];
  /** The destination of a move. */
  readonly moveTo?: string;
  /** Lines added. */
  readonly added: number;
  /** Lines removed. */
  readonly removed: number;
  /** Hunks or edit occurrences located and applied (0 for a plain add or delete). */
  readonly hunks: number;
}

/** Totals of a plan, with one entry per {@link FileChange} in the same order. */
export interface PatchSummary {
  /** One entry per change. */
  readonly files: readonly FileChangeSummary[];
  /** Lines added over all files. */
  readonly added: number;
  /** Lines removed over all files. */
  readonly removed: number;
}
