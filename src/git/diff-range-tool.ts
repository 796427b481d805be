import type { ToolDefinition } from "agent-tool-catalog";
import { defineTool } from "../tool/define-tool.js";
import { integerField, type OutputOf, objectSchema, optional, required, stringField } from "../tool/object-schema.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import type { ChangeStatus } from "./history/renames.js";
import { loadDiffRange } from "./load-git-handlers.js";

const diffRangeInput = objectSchema({
  from: required(
    stringField({ min: 1 }),
    "The old side: a branch, tag or commit id (e.g. main, v1.2, HEAD~3); or a range without to, as git diff reads it: A..B (A to B) or A...B (what B changed since it forked from A, from their merge base)",
  ),
  to: optional(stringField({ min: 1 }), "The new side (default HEAD)"),
  path: optional(stringField({ min: 1 }), "Only this file or directory (relative to the workspace)"),
  context_lines: optional(integerField({ min: 0, max: 20 }), "Unchanged lines around each change (default 3)"),
  max_bytes: optional(integerField({ min: 1000, max: 200_000 }), "Budget for the diff text (default 30000)"),
});

/** The input of the tool, as its schema parses it. */
export type DiffRangeInput = OutputOf<typeof diffRangeInput>;

/**
 * One changed file.
 *
 * @public
 */
export interface DiffFileSummary {
  /** The path on the new side. */
  readonly path: string;
  /** For a rename: the old path. */
  readonly previous_path?: string;
  /** A: added, D: deleted, M: modified, R: renamed, T: type changed (file to symlink or submodule, or back). */
  readonly status: ChangeStatus;
  /** Lines added (absent for binary files and files past the listing limit). */
  readonly added?: number;
  /** Lines removed (absent for binary files and files past the listing limit). */
  readonly removed?: number;
  /** Present when the file is binary: no lines, no hunks. */
  readonly binary?: true;
}

/**
 * The answer of `git_diff_range`.
 *
 * @public
 */
export interface DiffRangeOutput {
  /** The old side, as given, with its commit. */
  readonly from: string;
  /** The new side, as given, with its commit. */
  readonly to: string;
  /** The changed files, like `git diff --numstat`: the first ones by path, up to 300 or 20,000 characters (the totals count them all). */
  readonly files: readonly DiffFileSummary[];
  /** How many files changed. */
  readonly files_changed: number;
  /** Lines added over every changed file (listed or not), like `git diff --shortstat`. */
  readonly added: number;
  /** Lines removed over every changed file (listed or not). */
  readonly removed: number;
  /** The unified diff, like `git diff from to`, within the byte budget. */
  readonly diff: string;
  /** True when the diff text or the file list was cut. */
  readonly truncated: boolean;
  /** What was left out. */
  readonly omitted?: string;
  /** Set for `A...B` when A and B have several merge bases: which one the diff is from (as git diff warns). */
  readonly note?: string;
}

/** `git_diff_range`: the unified diff between two revisions, with per-file line counts, within a byte budget. */
export function createDiffRangeTool(runtime: GitToolRuntime): ToolDefinition<DiffRangeInput, DiffRangeOutput> {
  return defineTool({
    name: "git_diff_range",
    description:
      "Show what changed between two revisions (like git diff from to, or git diff A...B, renames detected): a per-file summary with lines " +
      "added and removed, and the unified diff within a byte budget. Binary files are listed, without diff lines. " +
      "Compares committed trees only, not the working tree.",
    tier: "deferred",
    mutating: false,
    inputSchema: diffRangeInput,
    annotations: { title: "Diff two revisions", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "diff", "compare", "changes", "patch", "range", "review"],
    handler: async (input, context) => (await loadDiffRange()).runDiffRange(runtime, input, context),
  });
}
