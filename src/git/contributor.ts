import type { ToolContext } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import { isoDate } from "./commit-summary.js";
import type { Contributor, ContributorInput, ContributorOutput } from "./contributor-tool.js";
import { fileLineCounts } from "./diff/file-diff.js";
import { gitError, shallowCloneError } from "./git-errors.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { commitChangesWithRenames } from "./history/commit-changes.js";
import { CommitWalk } from "./history/commit-walk.js";
import { parseSince } from "./history/since.js";
import { type CommitRecord, parentCount } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";
import { withRepository } from "./with-repository.js";
import { Pacer } from "./yield-to-event-loop.js";

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

/** The call's abort signal, and the pacer of its line counting (a commit may change thousands of files). */
interface Pacing {
  readonly signal: AbortSignal;
  readonly pacer: Pacer;
}

async function lineTotals(repository: GitRepository, commit: CommitRecord, scope: string, pacing: Pacing) {
  let added = 0;
  let removed = 0;
  if (parentCount(commit) > 1) return { added, removed };
  for (const change of await commitChangesWithRenames(repository, commit, scope, pacing.signal)) {
    await pacing.pacer.step();
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

async function tallyCommit(
  repository: GitRepository,
  commit: CommitRecord,
  scope: string,
  tallies: Map<string, Tally>,
  pacing: Pacing,
) {
  const lines = await lineTotals(repository, commit, scope, pacing);
  // Under the name and address the .mailmap gives, one line per exact "Name <email>", as git
  // shortlog -sne counts (the same address under two names is two lines).
  const author = repository.mailmap.map(commit.author);
  const key = `${author.name}\u0000${author.email}`;
  const tally = tallies.get(key) ?? {
    name: author.name,
    email: author.email,
    commits: 0,
    merges: 0,
    added: 0,
    removed: 0,
    first: commit,
    last: commit,
  };
  tally.commits++;
  if (parentCount(commit) > 1) tally.merges++;
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
  const pacing: Pacing = { signal: context.signal, pacer: new Pacer(context.signal) };
  for await (const commit of walk.commits()) if (await tallyCommit(repository, commit, scope, tallies, pacing)) total++;
  if (walk.shallowBoundary !== undefined) throw shallowCloneError(walk.shallowBoundary, "contributor counts would be incomplete");
  // As git_file_history: a path no commit ever changed is a misspelling, not a file nobody wrote
  // (an empty list read as "no contributors"). Within a since window, none is an answer.
  if (total === 0 && scope !== "" && since === undefined) {
    throw gitError(
      "path_not_found",
      `No commit reachable from ${start.input} ever changed ${JSON.stringify(scope)}.`,
      "Check the path's spelling (it is relative to the workspace), or list files with glob.",
    );
  }
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
      ? { omitted: `${countOf(all.length - shown.length, "less active contributor")} left out; raise max_results (up to 100).` }
      : {}),
  };
}

/** The `contributor` tool's handler (loaded on the tool's first call). */
export function runContributor(
  runtime: GitToolRuntime,
  input: ContributorInput,
  context: ToolContext,
): Promise<ContributorOutput> {
  return withRepository(runtime, context, (repository) => contributors(runtime, repository, input, context));
}
