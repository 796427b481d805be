import type { ToolContext } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import { summarize } from "./commit-summary.js";
import { fileLineCounts } from "./diff/file-diff.js";
import type { FileHistoryEntry, FileHistoryInput, FileHistoryOutput, FileHistoryStatus } from "./file-history-tool.js";
import { gitError, shallowCloneError } from "./git-errors.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { baseTree, commitChangesWithRenames } from "./history/commit-changes.js";
import { CommitWalk } from "./history/commit-walk.js";
import { followedSource } from "./history/follow-source.js";
import { isTypeChange } from "./history/renames.js";
import { parseSince } from "./history/since.js";
import { type CommitRecord, parentCount, type TreeEntry } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";
import { withRepository } from "./with-repository.js";

interface Tracker {
  readonly repository: GitRepository;
  follow: boolean;
  /** The call's abort signal: the copy search checks it while it compares candidates. */
  readonly signal: AbortSignal;
  /**
   * The file's path in the commits still to come (older ones), changed by renames. Not changed
   * where the file replaced a directory of its name (`R100 a.txt/x a.txt`): git's --follow
   * switches its path only where the followed path alone was added, and there the directory's
   * files were deleted beside it, so the `R` is the log's own rename detection and git goes on
   * with its pathspec `a.txt`, which in older commits matches every file under `a.txt/` (each
   * such commit is the directory's change), and whose --follow looks for a source of `a.txt`
   * only: the addition of `a.txt/x` is not followed (git 2.39; property test seed 52406).
   */
  path: string;
}

const asFile = (entry: TreeEntry | undefined) => (entry?.kind === "tree" ? undefined : entry);

function counts(diff: { readonly binary: boolean; readonly added: number; readonly removed: number }) {
  return diff.binary ? { binary: true as const } : { added: diff.added, removed: diff.removed };
}

async function fileEntry(tracker: Tracker, commit: CommitRecord): Promise<FileHistoryEntry | undefined> {
  const { repository } = tracker;
  const base = await baseTree(repository, commit);
  // Most commits do not touch the file: tell that from the top directories, without reading deeper trees.
  if (await repository.sameAtPath(base, commit.tree, tracker.path)) return undefined;
  const afterEntry = await repository.entryAt(commit.tree, tracker.path);
  const beforeEntry = base === undefined ? undefined : await repository.entryAt(base, tracker.path);
  // A file that replaced a directory of its name is added, for --follow: git looks for its source
  // (often a file of that directory: `R100 a/inner.txt a`) and follows it from there.
  if (tracker.follow && afterEntry !== undefined && afterEntry.kind !== "tree" && beforeEntry?.kind === "tree") {
    const followed = await followedEntry(tracker, commit, afterEntry, true);
    if (followed !== undefined) return followed;
  }
  // A directory of the file's name on either side: git log -- <path> lists the commit, with what changed under it.
  if (afterEntry?.kind === "tree" || beforeEntry?.kind === "tree") return directoryEntry(tracker, commit);
  const after = asFile(afterEntry);
  const before = asFile(beforeEntry);
  if (before?.oid === after?.oid && before?.mode === after?.mode) return undefined;
  const path = tracker.path;
  const status: FileHistoryStatus =
    before === undefined ? "A" : after === undefined ? "D" : isTypeChange(before.mode, after.mode) ? "T" : "M";
  if (status === "A" && tracker.follow) {
    const followed = await followedEntry(tracker, commit, after);
    if (followed !== undefined) return followed;
  }
  const diff = await fileLineCounts(repository, { oid: before?.oid, mode: before?.mode }, { oid: after?.oid, mode: after?.mode });
  return { ...summarize(commit, repository.mailmap), status, path, ...counts(diff) };
}

/**
 * The entry of a commit that added the followed file (`after`) when git's --follow finds where it
 * came from (`R` or `C`, with `previous_path`); the path followed from then on is the source's.
 */
async function followedEntry(tracker: Tracker, commit: CommitRecord, after: TreeEntry | undefined, replacedDirectory = false) {
  const { repository, path } = tracker;
  const source = await followedSource(repository, commit, path, tracker.signal, replacedDirectory);
  if (source === undefined) return undefined;
  // Into a directory it replaced, git's pathspec stays the file's path (see Tracker.path).
  if (!replacedDirectory) tracker.path = source.previousPath;
  const diff = await fileLineCounts(
    repository,
    { oid: source.oldOid, mode: source.oldMode },
    { oid: after?.oid, mode: after?.mode },
  );
  const entry: FileHistoryEntry = {
    ...summarize(commit, repository.mailmap),
    status: source.status,
    path,
    previous_path: source.previousPath,
    ...counts(diff),
  };
  return entry;
}

async function directoryEntry(tracker: Tracker, commit: CommitRecord): Promise<FileHistoryEntry | undefined> {
  const changes = await commitChangesWithRenames(tracker.repository, commit, tracker.path, tracker.signal);
  if (changes.length === 0) return undefined;
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    const diff = await fileLineCounts(
      tracker.repository,
      { oid: change.oldOid, mode: change.oldMode },
      { oid: change.newOid, mode: change.newMode },
    );
    added += diff.added;
    removed += diff.removed;
  }
  return {
    ...summarize(commit, tracker.repository.mailmap),
    status: "M",
    path: tracker.path,
    added,
    removed,
    files_changed: changes.length,
  };
}

/**
 * A path absent from the start commit may have been a file or a directory (or both, at different
 * times): `git log -- <path>` lists the commits that changed either, so each commit that changed it
 * is read as what it was there.
 */
async function absentPathEntry(tracker: Tracker, commit: CommitRecord): Promise<FileHistoryEntry | undefined> {
  const { repository } = tracker;
  const base = await baseTree(repository, commit);
  if (await repository.sameAtPath(base, commit.tree, tracker.path)) return undefined;
  const after = await repository.entryAt(commit.tree, tracker.path);
  const before = base === undefined ? undefined : await repository.entryAt(base, tracker.path);
  // A file that replaced a directory of its name is the file's change: fileEntry follows it into
  // the directory as git's --follow does (and sums up the directory's change when nothing there
  // is its source); only a directory on the new side, or on the old side alone, is the directory's.
  const directory = after === undefined ? before?.kind === "tree" : after.kind === "tree";
  return directory ? directoryEntry(tracker, commit) : fileEntry(tracker, commit);
}

function entryOf(startKind: "file" | "directory" | "absent", tracker: Tracker, commit: CommitRecord) {
  // `git log --follow` lists no merge and follows no rename at one: with --follow git walks every
  // commit unpruned (revision.c: "Can't prune commits with rename following") and, without -m,
  // computes no diff for a merge (log-tree.c returns before diffing it), so a merge has no change
  // for the followed path. The side a file came from is walked on its own, commit by commit.
  if (tracker.follow && parentCount(commit) > 1) return undefined;
  if (startKind === "file") return fileEntry(tracker, commit);
  return startKind === "directory" ? directoryEntry(tracker, commit) : absentPathEntry(tracker, commit);
}

interface WalkOptions {
  readonly since: number | undefined;
  readonly limit: number;
  readonly signal: AbortSignal;
}

/** Walks back from `start` collecting up to `limit` entries for the tracked path. */
async function walkHistory(
  tracker: Tracker,
  start: CommitRecord,
  startKind: "file" | "directory" | "absent",
  options: WalkOptions,
) {
  const { repository } = tracker;
  // Without rename following, history is simplified as `git log -- <path>` does; following renames
  // changes the path as the walk goes, so every commit is looked at (as git log --follow does).
  const simplify = tracker.follow ? undefined : tracker.path;
  const walk = new CommitWalk(repository, start, { since: options.since, signal: options.signal, simplify });
  const commits: FileHistoryEntry[] = [];
  let truncated = false;
  let omitted = "";
  for await (const commit of walk.commits()) {
    if (commits.length === options.limit && repository.isShallow(commit.oid)) {
      truncated = true;
      omitted = `History before ${commit.oid.slice(0, 10)} is missing (shallow clone), so older changes may exist.`;
      break;
    }
    const entry = await entryOf(startKind, tracker, commit);
    if (entry === undefined) continue;
    if (commits.length === options.limit) {
      truncated = true;
      omitted = `Older commits also changed it; raise max_results (up to 200), or pass since to page back.`;
      break;
    }
    commits.push(entry);
  }
  return { walk, commits, truncated, omitted };
}

async function history(runtime: GitToolRuntime, repository: GitRepository, input: FileHistoryInput, context: ToolContext) {
  const scope = repositoryPath(repository, input.path, context);
  const start = await resolveRevision(repository, input.ref ?? "HEAD");
  const startEntry = scope === "" ? undefined : await repository.entryAt(start.commit.tree, scope);
  const startKind = scope === "" || startEntry?.kind === "tree" ? "directory" : startEntry === undefined ? "absent" : "file";
  const tracker: Tracker = {
    repository,
    follow: startKind !== "directory" && input.follow_renames !== false,
    path: scope,
    signal: context.signal,
  };
  const since = input.since === undefined ? undefined : parseSince(input.since, runtime.now());
  const limit = input.max_results ?? 20;
  let walked = await walkHistory(tracker, start.commit, startKind, { since, limit, signal: context.signal });
  let note: string | undefined;
  if (walked.commits.length === 0 && tracker.follow && startKind === "file") {
    // `git log --follow` lists no merge, so a file only a merge brought in (a subtree merge, or a
    // merge that added it) has no --follow history at all although it exists; plain
    // `git log -- <path>` lists that merge, and that is the answer a caller needs.
    tracker.follow = false;
    tracker.path = scope;
    walked = await walkHistory(tracker, start.commit, startKind, { since, limit, signal: context.signal });
    note =
      `Following renames found no commit (git log --follow lists no merge, and only a merge changed ${JSON.stringify(scope)}), ` +
      "so this is its history without following renames, as git log -- <path>.";
  }
  const { walk, commits, truncated, omitted } = walked;
  if (!truncated && walk.shallowBoundary !== undefined) {
    throw shallowCloneError(
      walk.shallowBoundary,
      `the history of ${scope} is incomplete (${countOf(commits.length, "commit")} found)`,
    );
  }
  if (commits.length === 0 && since === undefined) {
    throw gitError(
      "path_not_found",
      `No commit reachable from ${start.input} ever changed ${JSON.stringify(scope)}.`,
      "Check the path's spelling (it is relative to the workspace), or list files with glob.",
    );
  }
  // A path gone at the start is what it last was: a directory if its newest change was one.
  const kind: "file" | "directory" =
    startKind === "absent" ? (commits[0]?.files_changed === undefined ? "file" : "directory") : startKind;
  return { scope, kind, start, tracker, walk, commits, truncated, omitted, note } as const;
}

/** The `file-history` tool's handler (loaded on the tool's first call). */
export function runFileHistory(
  runtime: GitToolRuntime,
  input: FileHistoryInput,
  context: ToolContext,
): Promise<FileHistoryOutput> {
  return withRepository(runtime, context, async (repository) => {
    const result = await history(runtime, repository, input, context);
    return {
      path: result.scope,
      kind: result.kind,
      ref: result.start.input,
      follows_renames: result.tracker.follow,
      commits: result.commits,
      scanned_commits: result.walk.scanned,
      truncated: result.truncated,
      ...(result.truncated ? { omitted: result.omitted } : {}),
      ...(result.note === undefined ? {} : { note: result.note }),
    };
  });
}
