import type { ToolDefinition } from "agent-tool-catalog";
import { defineTool } from "../tool/define-tool.js";
import {
  booleanField,
  integerField,
  type OutputOf,
  objectSchema,
  optional,
  required,
  stringField,
} from "../tool/object-schema.js";
import type { CommitSummary } from "./commit-summary.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import type { ChangeStatus } from "./history/renames.js";
import { loadFileHistory } from "./load-git-handlers.js";

const fileHistoryInput = objectSchema({
  path: required(stringField({ min: 1 }), "The file (or directory) whose history to list, relative to the workspace"),
  ref: optional(stringField({ min: 1 }), "Where history starts (default HEAD)"),
  follow_renames: optional(booleanField(), "Follow a file across renames, like git log --follow (default true)"),
  since: optional(stringField({ min: 1 }), 'Only commits since then: "2024-05-01" or "2 weeks ago"'),
  max_results: optional(integerField({ min: 1, max: 200 }), "Most commits to return (default 20)"),
});

/** The input of the tool, as its schema parses it. */
export type FileHistoryInput = OutputOf<typeof fileHistoryInput>;

/**
 * What a commit did to a file in its history: a {@link ChangeStatus}, or `C` when the file was
 * added as a copy of another file that stayed (followed like `git log --follow`, which looks for
 * copies of every file).
 *
 * @public
 */
export type FileHistoryStatus = ChangeStatus | "C";

/**
 * One commit in a file's history, with what it did to the file.
 *
 * @public
 */
export interface FileHistoryEntry extends CommitSummary {
  /** A: added, M: modified, D: deleted, R: renamed (from `previous_path`), C: copied (from `previous_path`, which stayed), T: type changed (file to symlink or submodule, or back). Directories: M. */
  readonly status: FileHistoryStatus;
  /** The file's path in this commit. */
  readonly path: string;
  /** For a rename or a copy: the path it came from. */
  readonly previous_path?: string;
  /** Lines added (absent for binary files). */
  readonly added?: number;
  /** Lines removed (absent for binary files). */
  readonly removed?: number;
  /** Present when the file is binary: no line counts. */
  readonly binary?: true;
  /** For a directory: how many files under it the commit changed. */
  readonly files_changed?: number;
}

/**
 * The answer of `git_file_history`.
 *
 * @public
 */
export interface FileHistoryOutput {
  /** The repository-relative path asked about. */
  readonly path: string;
  /** A file or a directory (at the start commit). */
  readonly kind: "file" | "directory";
  /** The start commit. */
  readonly ref: string;
  /** Whether renames were followed (files only). */
  readonly follows_renames: boolean;
  /** Commits that changed it, newest first. */
  readonly commits: readonly FileHistoryEntry[];
  /** How many commits were looked at. */
  readonly scanned_commits: number;
  /** True when more commits changed it than were returned. */
  readonly truncated: boolean;
  /** What was left out, when truncated. */
  readonly omitted?: string;
  /**
   * Why the history differs from what was asked: set when following renames found no commit (a
   * file only a merge brought in) and the history without following is given instead.
   */
  readonly note?: string;
}

/** `git_file_history`: the commits that changed one file (following renames) or directory, with line counts. */
export function createFileHistoryTool(runtime: GitToolRuntime): ToolDefinition<FileHistoryInput, FileHistoryOutput> {
  return defineTool({
    name: "git_file_history",
    description:
      "List the commits that changed a file, newest first, with lines added and removed by each; follows renames like " +
      "git log --follow (which lists no merge commit). A directory path lists commits that changed anything under it, as git log -- path.",
    tier: "deferred",
    mutating: false,
    inputSchema: fileHistoryInput,
    annotations: { title: "History of a file", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "log", "file", "follow", "renames", "numstat", "changes"],
    handler: async (input, context) => (await loadFileHistory()).runFileHistory(runtime, input, context),
  });
}
