import { defineTool, type ToolContext, type ToolDefinition } from "agent-tool-catalog";
import { integerField, type OutputOf, objectSchema, optional, required, stringField } from "../tool/object-schema.js";
import { shortId } from "./commit-summary.js";
import { fileDiff, sideLines } from "./diff/file-diff.js";
import { abbreviationLength, renderFilePatch } from "./diff/unified-diff.js";
import { type GitToolRuntime, withRepository } from "./git-tool-runtime.js";
import { type ChangeStatus, detectRenames, type ResolvedChange } from "./history/renames.js";
import { diffTrees } from "./history/tree-diff.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";

const diffRangeInput = objectSchema({
  from: required(stringField({ min: 1 }), "The old side: a branch, tag or commit id (e.g. main, v1.2, HEAD~3)"),
  to: optional(stringField({ min: 1 }), "The new side (default HEAD)"),
  path: optional(stringField({ min: 1 }), "Only this file or directory (relative to the workspace)"),
  context_lines: optional(integerField({ min: 0, max: 20 }), "Unchanged lines around each change (default 3)"),
  max_bytes: optional(integerField({ min: 1000, max: 200_000 }), "Budget for the diff text (default 30000)"),
});

type DiffRangeInput = OutputOf<typeof diffRangeInput>;

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
}

const MAX_LISTED_FILES = 300;
/** Characters of JSON the listing may take, and the whole answer by default: runs condense answers over 40,000. */
const LISTING_JSON_CHARS = 20_000;
const ANSWER_JSON_CHARS = 38_000;

function summary(change: ResolvedChange, diff: { binary: boolean; added: number; removed: number } | undefined): DiffFileSummary {
  return {
    path: change.path,
    ...(change.previousPath === undefined ? {} : { previous_path: change.previousPath }),
    status: change.status,
    ...(diff === undefined ? {} : diff.binary ? { binary: true as const } : { added: diff.added, removed: diff.removed }),
  };
}

interface Rendering {
  text: string[];
  bytes: number;
  cut: string | undefined;
  readonly unshown: string[];
}

interface RenderOptions {
  readonly budget: number;
  readonly context: number;
  readonly abbrev: number;
}

async function renderChange(repository: GitRepository, change: ResolvedChange, rendering: Rendering, options: RenderOptions) {
  const { budget } = options;
  if (rendering.cut !== undefined) {
    // A type change's second section names the path its first one did.
    if (rendering.unshown.at(-1) !== change.path) rendering.unshown.push(change.path);
    return;
  }
  const before = { oid: change.oldOid, mode: change.oldMode };
  const after = { oid: change.newOid, mode: change.newMode };
  const diff = await fileDiff(repository, before, after);
  const [oldLines, newLines] = diff.binary
    ? [[], []]
    : [(await sideLines(repository, before)) ?? [], (await sideLines(repository, after)) ?? []];
  const patch = renderFilePatch(change, diff, oldLines, newLines, options);
  const size = Buffer.byteLength(patch);
  if (rendering.bytes + size <= budget) {
    rendering.text.push(patch);
    rendering.bytes += size;
    return;
  }
  const lines = patch.split("\n");
  let kept = 0;
  for (const line of lines) {
    if (rendering.bytes + Buffer.byteLength(line) + 1 > budget) break;
    rendering.bytes += Buffer.byteLength(line) + 1;
    kept++;
  }
  if (kept > 0) rendering.text.push(`${lines.slice(0, kept).join("\n")}\n`);
  rendering.cut = `The diff of ${change.path} is cut after ${kept} of ${lines.length - 1} lines`;
}

/**
 * The patch sections of a change: one, or for a type change two, a deletion then a creation of
 * the path, as `git diff` prints it (a file and a symlink have no lines in common to diff).
 */
function patchParts(change: ResolvedChange): ResolvedChange[] {
  if (change.status !== "T") return [change];
  const { path, oldOid, oldMode, newOid, newMode } = change;
  return [
    { path, status: "D", ...(oldOid === undefined ? {} : { oldOid }), ...(oldMode === undefined ? {} : { oldMode }) },
    { path, status: "A", ...(newOid === undefined ? {} : { newOid }), ...(newMode === undefined ? {} : { newMode }) },
  ];
}

function omissions(rendering: Rendering, listed: number, total: number): string | undefined {
  const parts: string[] = [];
  if (rendering.cut !== undefined) parts.push(`${rendering.cut} (max_bytes reached).`);
  if (rendering.unshown.length > 0) {
    const names = rendering.unshown.slice(0, 20).join(", ");
    const more = rendering.unshown.length > 20 ? ` and ${rendering.unshown.length - 20} more` : "";
    parts.push(
      `No diff text for ${rendering.unshown.length} file(s): ${names}${more}; ask again with path, or a larger max_bytes.`,
    );
  }
  if (listed < total)
    parts.push(
      `Only the first ${listed} of ${total} changed files are listed (added/removed count all ${total}); ask again with path to list the rest.`,
    );
  return parts.length === 0 ? undefined : parts.join(" ");
}

async function diffRange(repository: GitRepository, input: DiffRangeInput, context: ToolContext): Promise<DiffRangeOutput> {
  const scope = input.path === undefined ? "" : repositoryPath(repository, input.path, context);
  const from = await resolveRevision(repository, input.from);
  const to = await resolveRevision(repository, input.to ?? "HEAD");
  const changes = await detectRenames(repository, await diffTrees(repository, from.commit.tree, to.commit.tree, scope));
  const files: DiffFileSummary[] = [];
  let listingChars = 0;
  let [added, removed] = [0, 0];
  for (const [index, change] of changes.entries()) {
    const diff = await fileDiff(
      repository,
      { oid: change.oldOid, mode: change.oldMode },
      { oid: change.newOid, mode: change.newMode },
    );
    if (index < MAX_LISTED_FILES && listingChars < LISTING_JSON_CHARS) {
      const entry = summary(change, diff);
      listingChars += JSON.stringify(entry).length + 1;
      files.push(entry);
    }
    added += diff.added;
    removed += diff.removed;
  }
  // Without an explicit max_bytes, the diff text gets what the listing leaves of the answer's
  // JSON budget (escaping counted), so a run never has to condense the answer.
  let budget = input.max_bytes ?? Math.min(30_000, ANSWER_JSON_CHARS - listingChars - 1_000);
  let rendering: Rendering;
  for (let attempt = 0; ; attempt++) {
    rendering = { text: [], bytes: 0, cut: undefined, unshown: [] };
    const options: RenderOptions = {
      budget,
      context: input.context_lines ?? 3,
      abbrev: abbreviationLength(repository.caches.store.packedObjectCount()),
    };
    for (const change of changes) for (const part of patchParts(change)) await renderChange(repository, part, rendering, options);
    const json = JSON.stringify(rendering.text.join("")).length + listingChars + 1_000;
    if (input.max_bytes !== undefined || json <= ANSWER_JSON_CHARS || attempt === 3 || budget <= 1_000) break;
    budget = Math.max(1_000, Math.floor((budget * (ANSWER_JSON_CHARS - listingChars - 1_000)) / (json - listingChars - 1_000)));
  }
  const omitted = omissions(rendering, files.length, changes.length);
  return {
    from: `${from.input} (${shortId(from.commit.oid)})`,
    to: `${to.input} (${shortId(to.commit.oid)})`,
    files,
    files_changed: changes.length,
    added,
    removed,
    diff: rendering.text.join(""),
    truncated: omitted !== undefined,
    ...(omitted === undefined ? {} : { omitted }),
  };
}

/** `git_diff_range`: the unified diff between two revisions, with per-file line counts, within a byte budget. */
export function createDiffRangeTool(runtime: GitToolRuntime): ToolDefinition<DiffRangeInput, DiffRangeOutput> {
  return defineTool({
    name: "git_diff_range",
    description:
      "Show what changed between two revisions (like git diff from to, renames detected): a per-file summary with lines " +
      "added and removed, and the unified diff within a byte budget. Binary files are listed, without diff lines. " +
      "Compares committed trees only, not the working tree.",
    tier: "deferred",
    mutating: false,
    inputSchema: diffRangeInput,
    annotations: { title: "Diff two revisions", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "diff", "compare", "changes", "patch", "range", "review"],
    handler: (input, context) => withRepository(runtime, context, (repository) => diffRange(repository, input, context)),
  });
}
