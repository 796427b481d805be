import { defineTool, type ToolContext, type ToolDefinition } from "agent-tool-catalog";
import { integerField, type OutputOf, objectSchema, optional, stringField } from "../tool/object-schema.js";
import { isoDate } from "./commit-summary.js";
import { fileLineCounts } from "./diff/file-diff.js";
import { shallowCloneError } from "./git-errors.js";
import { type GitToolRuntime, withRepository } from "./git-tool-runtime.js";
import { commitChangesWithRenames } from "./history/commit-changes.js";
import { CommitWalk } from "./history/commit-walk.js";
import { parseSince } from "./history/since.js";
import type { CommitRecord } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";

const contributorInput = objectSchema({
  path: optional(stringField({ min: 1 }), "A file or directory (relative to the workspace); default the whole repository"),
  ref: optional(stringField({ min: 1 }), "Where history starts (default HEAD)"),
  since: optional(stringField({ min: 1 }), 'Only commits since then: "2024-05-01" or "6 months ago"'),
  max_results: optional(integerField({ min: 1, max: 100 }), "Most contributors to return, most active first (default 10)"),
});

type ContributorInput = OutputOf<typeof contributorInput>;

/**
 * One contributor's activity.
 *
 * @public
 */
export interface Contributor {
  /** The name on their newest commit. */
  readonly name: string;
  /** The e-mail address (contributors are grouped by it, case-insensitively). */
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

interface Tally {
  name: string;
  readonly email: string;
  commits: number;
  merges: number;
  added: number;
  removed: number;
  first: CommitRecord;
  last: CommitRecord;
}

async function lineTotals(repository: GitRepository, commit: CommitRecord, scope: string) {
  let added = 0;
  let removed = 0;
  if (commit.parents.length > 1) return { added, removed };
  for (const change of await commitChangesWithRenames(repository, commit, scope)) {
    const diff = await fileLineCounts(
      repository,
      { oid: change.oldOid, mode: change.oldMode },
      { oid: change.newOid, mode: change.newMode },
    );
    added += diff.added;
    removed += diff.removed;
  }
  return { added, removed };
}

async function tallyCommit(repository: GitRepository, commit: CommitRecord, scope: string, tallies: Map<string, Tally>) {
  const lines = await lineTotals(repository, commit, scope);
  const key = commit.author.email.toLowerCase();
  const tally = tallies.get(key) ?? {
    name: commit.author.name,
    email: commit.author.email,
    commits: 0,
    merges: 0,
    added: 0,
    removed: 0,
    first: commit,
    last: commit,
  };
  tally.commits++;
  if (commit.parents.length > 1) tally.merges++;
  tally.added += lines.added;
  tally.removed += lines.removed;
  if (commit.author.timestamp < tally.first.author.timestamp) tally.first = commit;
  if (commit.author.timestamp > tally.last.author.timestamp) tally.last = commit;
  tallies.set(key, tally);
  return true;
}

function ranked(tallies: Map<string, Tally>): Contributor[] {
  return [...tallies.values()]
    .sort((x, y) => y.commits - x.commits || y.added + y.removed - (x.added + x.removed) || x.name.localeCompare(y.name))
    .map((tally) => ({
      name: tally.name,
      email: tally.email,
      commits: tally.commits,
      merges: tally.merges,
      added: tally.added,
      removed: tally.removed,
      first_commit: isoDate(tally.first.author),
      last_commit: isoDate(tally.last.author),
    }));
}

async function contributors(runtime: GitToolRuntime, repository: GitRepository, input: ContributorInput, context: ToolContext) {
  const scope = input.path === undefined ? "" : repositoryPath(repository, input.path, context);
  const start = await resolveRevision(repository, input.ref ?? "HEAD");
  const since = input.since === undefined ? undefined : parseSince(input.since, runtime.now());
  // With a path, the commits counted are those `git shortlog -- <path>` counts (default history simplification).
  const walk = new CommitWalk(repository, start.commit, { since, signal: context.signal, simplify: scope });
  const tallies = new Map<string, Tally>();
  let total = 0;
  for await (const commit of walk.commits()) if (await tallyCommit(repository, commit, scope, tallies)) total++;
  if (walk.shallowBoundary !== undefined) throw shallowCloneError(walk.shallowBoundary, "contributor counts would be incomplete");
  const all = ranked(tallies);
  const limit = input.max_results ?? 10;
  const shown = all.slice(0, limit);
  return {
    path: scope === "" ? "." : scope,
    ref: start.input,
    contributors: shown,
    total_commits: total,
    total_contributors: all.length,
    scanned_commits: walk.scanned,
    truncated: all.length > shown.length,
    ...(all.length > shown.length
      ? { omitted: `${all.length - shown.length} less active contributor(s) left out; raise max_results (up to 100).` }
      : {}),
  };
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
    handler: (input, context) =>
      withRepository(runtime, context, (repository) => contributors(runtime, repository, input, context)),
  });
}
