import type { ToolContext } from "agent-tool-catalog";
import { summarize } from "./commit-summary.js";
import { countOccurrences } from "./diff/text.js";
import { shallowCloneError } from "./git-errors.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { commitChanges, commitChangesWithRenames } from "./history/commit-changes.js";
import { CommitWalk, WALK_PENDING } from "./history/commit-walk.js";
import { ASCII_LOWER } from "./history/message-cache.js";
import { parseSince } from "./history/since.js";
import type { LogSearchInput, LogSearchMatch, LogSearchOutput } from "./log-search-tool.js";
import { type CommitRecord, GraphCommit, parentCount } from "./objects/parse-objects.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";
import { withRepository } from "./with-repository.js";
import { Pacer } from "./yield-to-event-loop.js";

const MAX_FILES_PER_MATCH = 10;
const GITLINK = "160000";

/**
 * How often `needle` occurs in `blob`, remembered per blob for one search: a walk meets most blobs
 * twice (as the new side of one commit and the old side of an older one), and the cache hands
 * back the same buffer both times.
 */
function countIn(blob: Buffer, needle: Buffer, counted: WeakMap<Buffer, number>): number {
  let count = counted.get(blob);
  if (count === undefined) {
    count = countOccurrences(blob, needle);
    counted.set(blob, count);
  }
  return count;
}

/** Paths whose count of `needle` changed in `commit`, with renames paired so a moved file does not count. */
async function pickaxeFiles(
  repository: GitRepository,
  commit: CommitRecord,
  scope: string,
  needle: Buffer,
  counted: WeakMap<Buffer, number>,
  pacer: Pacer,
  signal: AbortSignal,
): Promise<string[]> {
  const changes = await commitChanges(repository, commit, scope);
  // The node driver reads blobs synchronously: no promise per blob of a walk over hundreds of commits.
  const count = async (oid: string | undefined, mode: string | undefined) =>
    oid === undefined || mode === GITLINK
      ? 0
      : countIn(repository.blobSync(oid) ?? (await repository.blob(oid)), needle, counted);
  const counts = new Map<string, number>();
  const changed: string[] = [];
  let additions = 0;
  let deletions = 0;
  for (const change of changes) {
    // A commit may change thousands of files: counting them all is one long block without this.
    if (pacer.due()) await pacer.step();
    const before = await count(change.oldOid, change.oldMode);
    // Only the mode changed (the same blob on both sides, or a file that became a submodule's
    // id): the second count is the first, unless one side is a gitlink, which counts nothing.
    const after =
      change.newOid === change.oldOid && change.newMode !== GITLINK && change.oldMode !== GITLINK
        ? before
        : await count(change.newOid, change.newMode);
    if (change.oldOid !== undefined) counts.set(`old:${change.path}`, before);
    if (change.newOid !== undefined) counts.set(`new:${change.path}`, after);
    if (before === after) continue;
    changed.push(change.path);
    if (change.oldOid === undefined) additions++;
    if (change.newOid === undefined) deletions++;
  }
  // An added and a deleted file can be one rename whose count did not change (git pairs renames first).
  if (additions === 0 || deletions === 0) return changed;
  const unchanged = new Set<string>();
  for (const change of await commitChangesWithRenames(repository, commit, scope, signal)) {
    if (change.status !== "R" || change.previousPath === undefined) continue;
    if (counts.get(`old:${change.previousPath}`) === counts.get(`new:${change.path}`)) {
      unchanged.add(change.previousPath).add(change.path);
    }
  }
  return changed.filter((path) => !unchanged.has(path));
}

interface Search {
  readonly repository: GitRepository;
  readonly input: LogSearchInput;
  readonly scope: string;
  readonly lowered: string;
  /** The lowered query's bytes when it is ASCII (then ASCII messages are matched as bytes). */
  readonly asciiQuery: Buffer | undefined;
  readonly needle: Buffer;
  /** Occurrences of the needle per blob read so far (see {@link countIn}). */
  readonly counted: WeakMap<Buffer, number>;
  /** The call's abort signal: rename pairing checks it while it compares files. */
  readonly signal: AbortSignal;
  /** Paces the counting of a commit's files (the walk yields between commits, not within one). */
  readonly pacer: Pacer;
}

function isAsciiText(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/** Whether the ASCII bytes `needle` occur in `haystack` from `start` on, ASCII case ignored (`needle` is lower case). */
function includesAsciiFolded(haystack: Uint8Array, start: number, needle: Uint8Array): boolean {
  const first = needle[0] as number;
  const last = haystack.length - needle.length;
  for (let at = start; at <= last; at++) {
    if (ASCII_LOWER[haystack[at] as number] !== first) continue;
    let offset = 1;
    while (offset < needle.length && ASCII_LOWER[haystack[at + offset] as number] === needle[offset]) offset++;
    if (offset === needle.length) return true;
  }
  return false;
}

/**
 * Whether the message of a commit from the commit-graph contains the ASCII query, case ignored,
 * answered from its ASCII bytes (kept in the repository's message cache for the next search);
 * `undefined` when the message is not ASCII (then only decoding it answers).
 */
function asciiMessageMatches(repository: GitRepository, commit: GraphCommit, query: Uint8Array): boolean | undefined {
  const messages = repository.caches.messages;
  const { graph, graphPosition } = commit;
  const kept = messages.matches(graph, graphPosition, query);
  if (kept !== undefined) return kept;
  if (messages.isNotAscii(graph, graphPosition)) return undefined;
  // Not read yet: the stored bytes (no decoding), or the message already parsed.
  const stored = repository.unparsedCommitContent(commit);
  const headerEnd = stored?.indexOf("\n\n") ?? 0;
  const [whole, from] =
    stored === undefined ? [Buffer.from(commit.message, "utf8"), 0] : [stored, headerEnd < 0 ? stored.length : headerEnd + 2];
  // The message ends at a NUL, as git reads it (see parseCommit).
  const nul = whole.indexOf(0, from);
  const content = nul < 0 ? whole : whole.subarray(0, nul);
  if (!messages.keep(graph, graphPosition, content, from)) return undefined;
  return includesAsciiFolded(content, from, query);
}

/**
 * Whether the commit's message contains the query, case-insensitively (`toLowerCase` on both).
 * When the query folds to ASCII and the message is ASCII, folding ASCII letters is exactly
 * `toLowerCase`, so the stored bytes answer without decoding the commit (most commits of a
 * whole-history search are misses), and later searches answer from the message cache.
 */
function messageMatches(search: Search, commit: CommitRecord): boolean {
  if (search.asciiQuery !== undefined && commit instanceof GraphCommit) {
    const ascii = asciiMessageMatches(search.repository, commit, search.asciiQuery);
    if (ascii !== undefined) return ascii;
  }
  return commit.message.toLowerCase().includes(search.lowered);
}

/**
 * {@link matchCommit} of a message-only search, synchronously: a whole-history search that
 * matches nothing awaited a promise per commit (20,000 on the bench's history), in code that
 * runs cold in a new process.
 */
function matchMessage(search: Search, commit: CommitRecord): LogSearchMatch | undefined {
  if (!messageMatches(search, commit)) return undefined;
  return { ...summarize(commit, search.repository.mailmap), matched: ["message"] };
}

async function matchCommit(search: Search, commit: CommitRecord): Promise<LogSearchMatch | undefined> {
  const mode = search.input.mode ?? "both";
  const matched: ("message" | "pickaxe")[] = [];
  let files: string[] = [];
  // The walk already dropped the commits that do not change the path (history simplification).
  if (mode !== "pickaxe" && messageMatches(search, commit)) matched.push("message");
  // As in `git log -S`, a merge has no diff of its own, so only its message can match.
  if (mode !== "message" && parentCount(commit) < 2) {
    files = await pickaxeFiles(
      search.repository,
      commit,
      search.scope,
      search.needle,
      search.counted,
      search.pacer,
      search.signal,
    );
    if (files.length > 0) matched.push("pickaxe");
  }
  if (matched.length === 0) return undefined;
  const shown = files.slice(0, MAX_FILES_PER_MATCH);
  return {
    ...summarize(commit, search.repository.mailmap),
    matched,
    ...(shown.length > 0 ? { files: shown } : {}),
    ...(files.length > shown.length ? { more_files: files.length - shown.length } : {}),
  };
}

async function searchLog(runtime: GitToolRuntime, repository: GitRepository, input: LogSearchInput, context: ToolContext) {
  const scope = input.path === undefined ? "" : repositoryPath(repository, input.path, context);
  const start = await resolveRevision(repository, input.ref ?? "HEAD");
  const search: Search = {
    repository,
    input,
    scope,
    lowered: input.query.toLowerCase(),
    asciiQuery: isAsciiText(input.query.toLowerCase()) ? Buffer.from(input.query.toLowerCase(), "latin1") : undefined,
    needle: Buffer.from(input.query, "utf8"),
    counted: new WeakMap(),
    signal: context.signal,
    pacer: new Pacer(context.signal),
  };
  const since = input.since === undefined ? undefined : parseSince(input.since, runtime.now());
  const limit = input.max_results ?? 20;
  // With a path, history is simplified as `git log -- <path>` does: only commits that change it come out.
  const walk = new CommitWalk(repository, start.commit, { since, signal: context.signal, simplify: scope });
  const commits: LogSearchMatch[] = [];
  let truncated = false;
  let omitted = "";
  const messageOnly = input.mode === "message";
  for (;;) {
    let commit = walk.nextSync();
    if (commit === WALK_PENDING) commit = await walk.next();
    if (commit === undefined) break;
    // The answer is complete up to here; say that older history is missing instead of failing.
    if (commits.length === limit && repository.isShallow(commit.oid)) {
      truncated = true;
      omitted = `History before ${commit.oid.slice(0, 10)} is missing (shallow clone), so older matches may exist.`;
      break;
    }
    const match = messageOnly ? matchMessage(search, commit) : await matchCommit(search, commit);
    if (match === undefined) continue;
    if (commits.length === limit) {
      truncated = true;
      omitted = `More commits match after the ${limit} shown; raise max_results (up to 200), or narrow with path or since.`;
      break;
    }
    commits.push(match);
  }
  if (!truncated && walk.shallowBoundary !== undefined) {
    throw shallowCloneError(
      walk.shallowBoundary,
      `the search covered only the ${walk.scanned} newest commits (${commits.length} matched)`,
    );
  }
  return { start, commits, scanned: walk.scanned, truncated, omitted };
}

/** The `log-search` tool's handler (loaded on the tool's first call). */
export function runLogSearch(runtime: GitToolRuntime, input: LogSearchInput, context: ToolContext): Promise<LogSearchOutput> {
  return withRepository(runtime, context, async (repository) => {
    const result = await searchLog(runtime, repository, input, context);
    return {
      query: input.query,
      mode: input.mode ?? "both",
      ref: result.start.input,
      commits: result.commits,
      scanned_commits: result.scanned,
      truncated: result.truncated,
      ...(result.truncated ? { omitted: result.omitted } : {}),
    };
  });
}
