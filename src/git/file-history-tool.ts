import { defineTool, type ToolContext, type ToolDefinition } from "agent-tool-catalog";
import {
  booleanField,
  integerField,
  type OutputOf,
  objectSchema,
  optional,
  required,
  stringField,
} from "../tool/object-schema.js";
import { type CommitSummary, summarize } from "./commit-summary.js";
import { fileLineCounts } from "./diff/file-diff.js";
import { gitError, shallowCloneError } from "./git-errors.js";
import { type GitToolRuntime, withRepository } from "./git-tool-runtime.js";
import { baseTree, commitChangesWithRenames } from "./history/commit-changes.js";
import { CommitWalk } from "./history/commit-walk.js";
import { type ChangeStatus, isTypeChange } from "./history/renames.js";
import { parseSince } from "./history/since.js";
import type { CommitRecord, TreeEntry } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";

const fileHistoryInput = objectSchema({
  path: required(stringField({ min: 1 }), "The file (or directory) whose history to list, relative to the workspace"),
  ref: optional(stringField({ min: 1 }), "Where history starts (default HEAD)"),
  follow_renames: optional(booleanField(), "Follow a file across renames, like git log --follow (default true)"),
  since: optional(stringField({ min: 1 }), 'Only commits since then: "2024-05-01" or "2 weeks ago"'),
  max_results: optional(integerField({ min: 1, max: 200 }), "Most commits to return (default 20)"),
});

type FileHistoryInput = OutputOf<typeof fileHistoryInput>;

/**
 * One commit in a file's history, with what it did to the file.
 *
 * @public
 */
export interface FileHistoryEntry extends CommitSummary {
  /** A: added, M: modified, D: deleted, R: renamed (from `previous_path`), T: type changed (file to symlink or submodule, or back). Directories: M. */
  readonly status: ChangeStatus;
  /** The file's path in this commit. */
  readonly path: string;
  /** For a rename: the path before it. */
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
}

interface Tracker {
  readonly repository: GitRepository;
  readonly follow: boolean;
  /** The file's path in the commits still to come (older ones), changed by renames. */
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
  const after = asFile(await repository.entryAt(commit.tree, tracker.path));
  let before = base === undefined ? undefined : asFile(await repository.entryAt(base, tracker.path));
  if (before?.oid === after?.oid && before?.mode === after?.mode) return undefined;
  const path = tracker.path;
  let status: ChangeStatus =
    before === undefined ? "A" : after === undefined ? "D" : isTypeChange(before.mode, after.mode) ? "T" : "M";
  let previousPath: string | undefined;
  if (status === "A" && tracker.follow) {
    const rename = (await commitChangesWithRenames(repository, commit, "")).find(
      (change) => change.status === "R" && change.path === path,
    );
    if (rename?.previousPath !== undefined) {
      previousPath = rename.previousPath;
      status = "R";
      before = { name: "", mode: rename.oldMode ?? "100644", oid: rename.oldOid ?? "", kind: "blob" };
      tracker.path = previousPath;
    }
  }
  const diff = await fileLineCounts(repository, { oid: before?.oid, mode: before?.mode }, { oid: after?.oid, mode: after?.mode });
  return {
    ...summarize(commit),
    status,
    path,
    ...(previousPath === undefined ? {} : { previous_path: previousPath }),
    ...counts(diff),
  };
}

async function directoryEntry(tracker: Tracker, commit: CommitRecord): Promise<FileHistoryEntry | undefined> {
  const changes = await commitChangesWithRenames(tracker.repository, commit, tracker.path);
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
  return { ...summarize(commit), status: "M", path: tracker.path, added, removed, files_changed: changes.length };
}

async function history(runtime: GitToolRuntime, repository: GitRepository, input: FileHistoryInput, context: ToolContext) {
  const scope = repositoryPath(repository, input.path, context);
  const start = await resolveRevision(repository, input.ref ?? "HEAD");
  const kind = scope === "" || (await repository.entryAt(start.commit.tree, scope))?.kind === "tree" ? "directory" : "file";
  const tracker: Tracker = { repository, follow: kind === "file" && input.follow_renames !== false, path: scope };
  const since = input.since === undefined ? undefined : parseSince(input.since, runtime.now());
  // Without rename following, history is simplified as `git log -- <path>` does; following renames
  // changes the path as the walk goes, so every commit is looked at (as git log --follow does).
  const simplify = tracker.follow ? undefined : scope;
  const walk = new CommitWalk(repository, start.commit, { since, signal: context.signal, simplify });
  const limit = input.max_results ?? 20;
  const commits: FileHistoryEntry[] = [];
  let truncated = false;
  let omitted = "";
  for await (const commit of walk.commits()) {
    if (commits.length === limit && repository.isShallow(commit.oid)) {
      truncated = true;
      omitted = `History before ${commit.oid.slice(0, 10)} is missing (shallow clone), so older changes may exist.`;
      break;
    }
    const entry = kind === "file" ? await fileEntry(tracker, commit) : await directoryEntry(tracker, commit);
    if (entry === undefined) continue;
    if (commits.length === limit) {
      truncated = true;
      omitted = `Older commits also changed it; raise max_results (up to 200), or pass since to page back.`;
      break;
    }
    commits.push(entry);
  }
  if (!truncated && walk.shallowBoundary !== undefined) {
    throw shallowCloneError(walk.shallowBoundary, `the history of ${scope} is incomplete (${commits.length} commits found)`);
  }
  if (commits.length === 0 && since === undefined) {
    throw gitError(
      "path_not_found",
      `No commit reachable from ${start.input} ever changed ${JSON.stringify(scope)}.`,
      "Check the path's spelling (it is relative to the workspace), or list files with glob.",
    );
  }
  return { scope, kind, start, tracker, walk, commits, truncated, omitted } as const;
}

/** `git_file_history`: the commits that changed one file (following renames) or directory, with line counts. */
export function createFileHistoryTool(runtime: GitToolRuntime): ToolDefinition<FileHistoryInput, FileHistoryOutput> {
  return defineTool({
    name: "git_file_history",
    description:
      "List the commits that changed a file, newest first, with lines added and removed by each; follows renames like " +
      "git log --follow. A directory path lists commits that changed anything under it. Merges are compared with their first parent.",
    tier: "deferred",
    mutating: false,
    inputSchema: fileHistoryInput,
    annotations: { title: "History of a file", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "log", "file", "follow", "renames", "numstat", "changes"],
    handler: (input, context) =>
      withRepository(runtime, context, async (repository) => {
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
        };
      }),
  });
}
