import type { ToolDefinition } from "agent-tool-catalog";
import { defineTool } from "../tool/define-tool.js";
import { enumField, integerField, type OutputOf, objectSchema, optional, required, stringField } from "../tool/object-schema.js";
import type { CommitSummary } from "./commit-summary.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { loadLogSearch } from "./load-git-handlers.js";

const logSearchInput = objectSchema({
  query: required(stringField({ min: 1, max: 1000 }), "The text to look for"),
  mode: optional(
    enumField(["message", "pickaxe", "both"]),
    '"message": commit messages containing the text, case-insensitive (git log -i -F --grep). "pickaxe": commits that add or remove the text in a file, exact case (git log -S). "both" (default): either.',
  ),
  path: optional(stringField({ min: 1 }), "Only commits that change this file or directory (relative to the workspace)"),
  ref: optional(stringField({ min: 1 }), "Where history starts (default HEAD): a branch, tag or commit id"),
  since: optional(stringField({ min: 1 }), 'Only commits since then: "2024-05-01" or "2 weeks ago"'),
  max_results: optional(integerField({ min: 1, max: 200 }), "Most commits to return (default 20)"),
});

/** The input of the tool, as its schema parses it. */
export type LogSearchInput = OutputOf<typeof logSearchInput>;

/**
 * One commit that matched.
 *
 * @public
 */
export interface LogSearchMatch extends CommitSummary {
  /** What matched: the message, the pickaxe, or both. */
  readonly matched: readonly ("message" | "pickaxe")[];
  /** For a pickaxe match: the files where the number of occurrences changed (at most 10). */
  readonly files?: readonly string[];
  /** How many more such files there are beyond the 10 listed. */
  readonly more_files?: number;
}

/**
 * The answer of `git_log_search`.
 *
 * @public
 */
export interface LogSearchOutput {
  /** The query as given. */
  readonly query: string;
  /** The mode used. */
  readonly mode: "message" | "pickaxe" | "both";
  /** The start commit. */
  readonly ref: string;
  /** Matching commits, newest first. */
  readonly commits: readonly LogSearchMatch[];
  /** How many commits were looked at. */
  readonly scanned_commits: number;
  /** True when more commits match than were returned. */
  readonly truncated: boolean;
  /** What was left out, when truncated. */
  readonly omitted?: string;
}

/** `git_log_search`: commits by message text and/or by code that appeared or disappeared (pickaxe). */
export function createLogSearchTool(runtime: GitToolRuntime): ToolDefinition<LogSearchInput, LogSearchOutput> {
  return defineTool({
    name: "git_log_search",
    description:
      "Search git history for a string: in commit messages (case-insensitive, like git log -i --grep) and/or in code " +
      "that was added or removed (like git log -S, exact case), newest first. With a path, history is simplified as " +
      "git log -- <path> does. Merges match by message only (they have no diff of their own, as in git log -S).",
    tier: "deferred",
    mutating: false,
    inputSchema: logSearchInput,
    annotations: { title: "Search git history", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "log", "grep", "pickaxe", "search", "commits", "blame"],
    handler: async (input, context) => (await loadLogSearch()).runLogSearch(runtime, input, context),
  });
}
