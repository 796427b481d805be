import { CatalogError } from "../../errors/catalog-error.js";
import { blameLineDiff } from "../diff/file-diff.js";
import type { LineDiff } from "../diff/line-diff.js";
import { shallowCloneError } from "../git-errors.js";
import { type CommitRecord, GraphCommit } from "../objects/parse-objects.js";
import type { GitRepository } from "../repository.js";
import { yieldToEventLoop } from "../yield-to-event-loop.js";
import { commitChanges } from "./commit-changes.js";
import { CommitQueue } from "./commit-walk.js";
import { detectRenames, isTypeChange } from "./renames.js";
import { diffTrees } from "./tree-diff.js";

/** Who last changed one line. */
export interface BlamedLine {
  /** The line's number in the blamed version, from 1. */
  readonly line: number;
  /** The commit that introduced the line. */
  readonly commit: CommitRecord;
  /** The file's path in that commit (differs after a rename). */
  readonly path: string;
  /** The line's number in that commit's version, from 1. */
  readonly originalLine: number;
}

/** A line still looking for its author: its final number and its number in the suspect's version. */
interface TrackedLine {
  readonly final: number;
  readonly current: number;
}

/** A version of the file (commit and path) that lines are currently attributed to. */
interface Suspect {
  readonly commit: CommitRecord;
  readonly path: string;
  readonly blob: string;
  readonly mode: string;
  lines: TrackedLine[];
}

interface Origin {
  readonly parent: CommitRecord;
  readonly path: string;
  readonly blob: string;
  readonly mode: string;
}

interface Blame {
  readonly repository: GitRepository;
  readonly queue: CommitQueue<Suspect>;
  /** Queued suspects by commit (graph position, else id): one per path, almost always one in all. */
  readonly suspects: Map<number | string, Suspect[]>;
  readonly result: Map<number, BlamedLine>;
  /** The call's abort signal: rename pairing checks it while it compares files. */
  readonly signal: AbortSignal;
}

/**
 * git's `find_origin`: the parent's version at the suspect's own path. `"absent"` when the parent
 * has no file there (nothing, or a directory of that name: git diffs it as deleted files and an
 * added one), so a rename is looked for; `undefined` when the parent has something of another
 * type there (a symlink for a file, a submodule: git's `T`), which git follows no further.
 */
async function sameOrigin(
  repository: GitRepository,
  suspect: Suspect,
  parent: CommitRecord,
): Promise<Origin | "absent" | undefined> {
  const { commit, path } = suspect;
  // Same entry in the parent (usually told from a top directory, without descending): the same blob.
  if (await repository.sameInCommits(parent, commit, path)) return { parent, path, blob: suspect.blob, mode: suspect.mode };
  const entry = await repository.entryAt(parent.tree, path);
  if (entry === undefined || entry.kind === "tree") return "absent";
  if (entry.kind !== "blob" || isTypeChange(entry.mode, suspect.mode)) return undefined;
  return { parent, path, blob: entry.oid, mode: entry.mode };
}

/**
 * git's `find_rename`: the file the suspect's path was renamed from in `parent`, found as git blame
 * finds it, with the suspect's path the only destination (`single_follow`): every deleted file is
 * a source, and no other added file can take the source first. Copies are not looked for.
 */
async function renamedOrigin(
  repository: GitRepository,
  suspect: Suspect,
  parent: CommitRecord,
  index: number,
  signal: AbortSignal,
): Promise<Origin | undefined> {
  const { commit, path } = suspect;
  const changes =
    index === 0 ? await commitChanges(repository, commit, "") : await diffTrees(repository, parent.tree, commit.tree, "");
  const candidates = changes.filter((change) => change.newOid === undefined || change.path === path);
  const rename = (await detectRenames(repository, candidates, signal)).find(
    (change) => change.status === "R" && change.path === path,
  );
  if (rename?.previousPath === undefined || rename.oldOid === undefined) return undefined;
  return { parent, path: rename.previousPath, blob: rename.oldOid, mode: rename.oldMode ?? "100644" };
}

/** For each line of the newer version, its line in the older one, or -1 when the diff changed it. */
function lineMap(lines: LineDiff): Int32Array {
  const map = new Int32Array(lines.added.length).fill(-1);
  let i = 0;
  for (let j = 0; j < lines.added.length; j++) {
    if (lines.added[j] === 1) continue;
    while (i < lines.removed.length && lines.removed[i] === 1) i++;
    map[j] = i++;
  }
  return map;
}

function passTo(blame: Blame, origin: Origin, lines: TrackedLine[]): void {
  if (lines.length === 0) return;
  const key = blame.repository.commitKey(origin.parent);
  const queued = blame.suspects.get(key);
  const existing = queued?.find((suspect) => suspect.path === origin.path);
  if (existing !== undefined) {
    existing.lines = [...existing.lines, ...lines].sort((x, y) => x.current - y.current);
    return;
  }
  const suspect: Suspect = { commit: origin.parent, path: origin.path, blob: origin.blob, mode: origin.mode, lines };
  if (queued === undefined) blame.suspects.set(key, [suspect]);
  else queued.push(suspect);
  blame.queue.push(suspect, origin.parent);
}

function settle(blame: Blame, suspect: Suspect, lines: readonly TrackedLine[]): void {
  for (const line of lines) {
    blame.result.set(line.final, {
      line: line.final,
      commit: suspect.commit,
      path: suspect.path,
      originalLine: line.current + 1,
    });
  }
}

/**
 * The versions of the suspect's file in its parents, as git's `pass_blame` finds them: first every
 * parent's version at the same path, in parent order, then a rename in each parent that has no
 * file there. The first version identical to the suspect's (same blob, whatever the mode) takes
 * every line alone, so a later parent with the same file beats an earlier one it was renamed in.
 * Otherwise the versions in parent order, each blob once (the parent listed first keeps it).
 */
async function origins(blame: Blame, suspect: Suspect): Promise<Origin[]> {
  const { repository } = blame;
  const parents = await repository.parentsOf(suspect.commit);
  const first = parents[0];
  // The commit-graph's Bloom filter says the first parent has the same file: it takes every line, unread (as git blame asks it).
  if (first !== undefined && repository.unchangedByFilter(suspect.commit, suspect.path)) {
    return [{ parent: first, path: suspect.path, blob: suspect.blob, mode: suspect.mode }];
  }
  const found: (Origin | undefined)[] = [];
  const keep = (index: number, origin: Origin) => {
    if (!found.some((other, earlier) => earlier < index && other?.blob === origin.blob)) found[index] = origin;
  };
  const absent: number[] = [];
  for (const [index, parent] of parents.entries()) {
    const origin = await sameOrigin(repository, suspect, parent);
    if (origin === "absent") absent.push(index);
    else if (origin?.blob === suspect.blob) return [origin];
    else if (origin !== undefined) keep(index, origin);
  }
  for (const index of absent) {
    const origin = await renamedOrigin(repository, suspect, parents[index] as CommitRecord, index, blame.signal);
    if (origin?.blob === suspect.blob) return [origin];
    if (origin !== undefined) keep(index, origin);
  }
  return found.filter((origin) => origin !== undefined);
}

/**
 * The first parent when it has the same file at the suspect's path, found synchronously for a
 * commit from the graph on a synchronous store (no promise, no id text); `undefined` when it does
 * not, or the commit is not one of those. A later parent with the same file is left to
 * {@link origins}: an earlier one may have the same blob under another mode, and git gives it the lines.
 */
function sameParentSync(blame: Blame, suspect: Suspect): CommitRecord | undefined {
  const { repository } = blame;
  const { commit, path } = suspect;
  if (!repository.rawReads || !(commit instanceof GraphCommit)) return undefined;
  const first = repository.graphParents(commit)?.[0];
  if (first === undefined) return undefined;
  if (repository.unchangedByFilter(commit, path) || repository.sameInCommitsSync(first, commit, path)) return first;
  return undefined;
}

async function processSuspect(blame: Blame, suspect: Suspect): Promise<void> {
  const { commit } = suspect;
  if (blame.repository.shallow.size > 0 && commit.parents.length > 0 && blame.repository.isShallow(commit.oid)) {
    throw shallowCloneError(commit.oid, "the lines this commit did not write cannot be traced further back");
  }
  const same = sameParentSync(blame, suspect);
  if (same !== undefined) {
    passTo(blame, { parent: same, path: suspect.path, blob: suspect.blob, mode: suspect.mode }, suspect.lines);
    return;
  }
  const candidates = await origins(blame, suspect);
  const only = candidates[0];
  if (candidates.length === 1 && only !== undefined && only.blob === suspect.blob) {
    // A commit its own parent (a replace ref whose replacement has the replaced commit as parent):
    // git blame passes the lines to itself and stops there, so they are this commit's; passing them on looped forever.
    if (blame.repository.commitKey(only.parent) === blame.repository.commitKey(commit)) settle(blame, suspect, suspect.lines);
    else passTo(blame, only, suspect.lines);
    return;
  }
  let remaining = suspect.lines;
  for (const origin of candidates) {
    const lines = await blameLineDiff(blame.repository, origin.blob, suspect.blob);
    if (lines === undefined) continue;
    const map = lineMap(lines);
    const passed: TrackedLine[] = [];
    const kept: TrackedLine[] = [];
    for (const line of remaining) {
      const older = map[line.current] ?? -1;
      if (older >= 0) passed.push({ final: line.final, current: older });
      else kept.push(line);
    }
    passTo(blame, origin, passed);
    remaining = kept;
    if (remaining.length === 0) break;
  }
  settle(blame, suspect, remaining);
}

/** How often one commit may be a suspect before the history is taken to loop (see {@link blameLines}). */
const MAX_VISITS_PER_COMMIT = 1_000;

/**
 * Blames lines `from`..`to` (1-based, inclusive) of `path` at `start` the way `git blame` does:
 * suspects are processed newest committer date first; the first parent version (see {@link origins})
 * with the identical blob takes all lines; otherwise each parent in turn takes the lines its diff
 * leaves unchanged, and what no parent takes was written by the commit. Renames are followed (whole-file renames, not -M/-C
 * line moves). Only the asked range is tracked, so the walk stops as soon as it is settled.
 */
export async function blameLines(
  repository: GitRepository,
  start: CommitRecord,
  path: string,
  file: { readonly oid: string; readonly mode: string },
  range: { readonly from: number; readonly to: number },
  signal: AbortSignal,
): Promise<BlamedLine[]> {
  const blame: Blame = { repository, queue: new CommitQueue<Suspect>(), suspects: new Map(), result: new Map(), signal };
  const lines: TrackedLine[] = [];
  for (let line = range.from; line <= range.to; line++) lines.push({ final: line, current: line - 1 });
  passTo(blame, { parent: start, path, blob: file.oid, mode: file.mode }, lines);
  let steps = 0;
  // How often each commit was a suspect. A history read from stored objects cannot loop (a commit
  // names its parents by the hash of their content), but one rewritten by replace refs or grafts
  // can (c2 replaced by a descendant of c3, whose parent is c2): the lines then pass round the
  // loop forever, as they do in git blame itself. A commit is a suspect again only for another
  // path or after clock skew, a handful of times, never thousands.
  const visits = new Map<number | string, number>();
  for (let suspect = blame.queue.pop(); suspect !== undefined; suspect = blame.queue.pop()) {
    const key = repository.commitKey(suspect.commit);
    const visited = (visits.get(key) ?? 0) + 1;
    if (visited > MAX_VISITS_PER_COMMIT) {
      throw new CatalogError(
        "corrupt_object",
        `The history of ${path} loops through commit ${suspect.commit.oid.slice(0, 10)} (its replace refs or grafts make it its own ancestor), so blame cannot end (git blame does not end on it either). Look at refs/replace and info/grafts (git replace -l), or ask about lines the loop does not reach.`,
      );
    }
    visits.set(key, visited);
    const queued = blame.suspects.get(key);
    if (queued !== undefined && queued.length > 1) queued.splice(queued.indexOf(suspect), 1);
    else blame.suspects.delete(key);
    if (++steps % 256 === 0) await yieldToEventLoop(signal);
    await processSuspect(blame, suspect);
  }
  return [...blame.result.values()].sort((x, y) => x.line - y.line);
}
