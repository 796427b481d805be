import type { ToolDefinition } from "agent-tool-catalog";
import { defineTool } from "../tool/define-tool.js";
import { integerField, type OutputOf, objectSchema, optional, stringField } from "../tool/object-schema.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { loadContributor } from "./load-git-handlers.js";

const contributorInput = objectSchema({
  path: optional(stringField({ min: 1 }), "A file or directory (relative to the workspace); default the whole repository"),
  ref: optional(stringField({ min: 1 }), "Where history starts (default HEAD)"),
  since: optional(stringField({ min: 1 }), 'Only commits since then: "2024-05-01" or "6 months ago"'),
  max_results: optional(integerField({ min: 1, max: 100 }), "Most contributors to return, most active first (default 10)"),
});

/** The input of the tool, as its schema parses it. */
export type ContributorInput = OutputOf<typeof contributorInput>;

/**
 * One contributor's activity.
 *
 * @public
 */
export interface Contributor {
  /** The author name (after the `.mailmap`): one contributor per exact name and address, as `git shortlog -sne` counts. */
  readonly name: string;
  /** The e-mail address (after the `.mailmap`); the same address under two names is two contributors, as in git shortlog. */
  readonly email: string;
  /** Commits authored, merges included (as `git shortlog -sn [-- path]` counts, with git's default history simplification). */
  readonly commits: number;
  /** How many of those are merges. */
  readonly merges: number;
  /** Lines added by their non-merge commits (binary files count 0). */
  readonly added: number;
  /** Lines removed by their non-merge commits. */
  readonly removed: number;
  /** Author date of their oldest commit here. */
  readonly first_commit: string;
  /** Author date of their newest commit here. */
  readonly last_commit: string;
}

/**
 * The answer of `git_contributor_context`.
 *
 * @public
 */
export interface ContributorOutput {
  /** The repository-relative path, or "." for the whole repository. */
  readonly path: string;
  /** The start commit. */
  readonly ref: string;
  /** The most active contributors: most commits first, then most lines changed. */
  readonly contributors: readonly Contributor[];
  /** Commits counted. */
  readonly total_commits: number;
  /** Distinct contributors. */
  readonly total_contributors: number;
  /** How many commits were looked at. */
  readonly scanned_commits: number;
  /** True when more contributors exist than were returned. */
  readonly truncated: boolean;
  /** What was left out. */
  readonly omitted?: string;
}

/** `git_contributor_context`: who worked on a file, directory or repository, how much and when. */
export function createContributorTool(runtime: GitToolRuntime): ToolDefinition<ContributorInput, ContributorOutput> {
  return defineTool({
    name: "git_contributor_context",
    description:
      "Contributor statistics for a file, directory or the whole repository: per author the commits, lines added and " +
      "removed, and first and last commit dates, most active first (like git shortlog -sne with git log --numstat).",
    tier: "deferred",
    mutating: false,
    inputSchema: contributorInput,
    annotations: { title: "Contributors", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "contributors", "authors", "owners", "shortlog", "stats", "who"],
    handler: async (input, context) => (await loadContributor()).runContributor(runtime, input, context),
  });
}
