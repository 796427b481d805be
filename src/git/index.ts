import type { AnyToolDefinition, ToolGroup } from "agent-tool-catalog";
import { defineToolGroup } from "../registry/tool-group.js";
import { createBlameTool } from "./blame-tool.js";
import { createContributorTool } from "./contributor-tool.js";
import { createDiffRangeTool } from "./diff-range-tool.js";
import { createFileHistoryTool } from "./file-history-tool.js";
import type { GitToolOptions } from "./git-tool-options.js";
import { createGitToolRuntime } from "./git-tool-runtime.js";
import { createLogSearchTool } from "./log-search-tool.js";

export type { BlameCommit, BlameLine, BlameOutput } from "./blame-tool.js";
export type { CommitSummary } from "./commit-summary.js";
export type { Contributor, ContributorOutput } from "./contributor-tool.js";
export type { DiffFileSummary, DiffRangeOutput } from "./diff-range-tool.js";
export type { FileHistoryEntry, FileHistoryOutput, FileHistoryStatus } from "./file-history-tool.js";
export { createGitCache, type GitCache, type GitCacheOptions } from "./git-cache.js";
export type { GitToolErrorCode } from "./git-errors.js";
export type { GitToolOptions } from "./git-tool-options.js";
export type { ChangeStatus } from "./history/renames.js";
export type { LogSearchMatch, LogSearchOutput } from "./log-search-tool.js";

/**
 * Names of the git tools, in the order {@link createGitTools} returns them.
 *
 * @public
 */
export const GIT_TOOL_NAMES = [
  "git_log_search",
  "git_file_history",
  "git_blame_context",
  "git_diff_range",
  "git_contributor_context",
] as const;

/**
 * The read-only git code-intelligence tools. All are deferred, so they cost no prompt space until
 * the model activates them with `find_tool`. They read the run's workspace repository (or the
 * host's `repositoryPath`), share one cache across calls, and never write to the repository.
 *
 * @example
 * ```ts
 * const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: repo } });
 * run.activate(["git_log_search"]);
 * await run.call("git_log_search", { query: "retry", mode: "pickaxe" });
 * ```
 * @public
 */
export function createGitTools(options: GitToolOptions = {}): AnyToolDefinition[] {
  const runtime = createGitToolRuntime(options);
  return [
    createLogSearchTool(runtime),
    createFileHistoryTool(runtime),
    createBlameTool(runtime),
    createDiffRangeTool(runtime),
    createContributorTool(runtime),
  ];
}

/**
 * The git tools as a tool group named `"git"`, so a host can register them next to other groups
 * (`createRegistry({ groups: [gitToolGroup()] })`); the tools are built only when registered.
 * @public
 */
export function gitToolGroup(options: GitToolOptions = {}): ToolGroup {
  return defineToolGroup({ name: "git", tools: () => createGitTools(options) });
}
