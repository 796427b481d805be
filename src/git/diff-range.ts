import type { ToolContext } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import { ToolError } from "../errors/tool-error.js";
import { shortId } from "./commit-summary.js";
import { fileDiff, sideLines } from "./diff/file-diff.js";
import { abbreviationLength, renderFilePatch } from "./diff/unified-diff.js";
import type { DiffFileSummary, DiffRangeInput, DiffRangeOutput } from "./diff-range-tool.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { detectRenames, type ResolvedChange } from "./history/renames.js";
import { diffTrees } from "./history/tree-diff.js";
import { mergeBases } from "./merge-base.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { type ResolvedRevision, resolveRevision } from "./revision.js";
import { withRepository } from "./with-repository.js";
import { Pacer } from "./yield-to-event-loop.js";

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

async function renderChange(
  repository: GitRepository,
  change: ResolvedChange,
  rendering: Rendering,
  options: RenderOptions,
  patches: Map<ResolvedChange, string>,
) {
  const { budget } = options;
  if (rendering.cut !== undefined) {
    // A type change's second section names the path its first one did.
    if (rendering.unshown.at(-1) !== change.path) rendering.unshown.push(change.path);
    return;
  }
  // A section's text does not depend on the budget: a second attempt with a smaller one cuts
  // the same sections (splitting both sides into lines and rendering the hunks again cost a
  // new process more than the first attempt's cut saved).
  let patch = patches.get(change);
  if (patch === undefined) {
    const before = { oid: change.oldOid, mode: change.oldMode };
    const after = { oid: change.newOid, mode: change.newMode };
    const diff = await fileDiff(repository, before, after);
    const [oldLines, newLines] = diff.binary
      ? [[], []]
      : [(await sideLines(repository, before)) ?? [], (await sideLines(repository, after)) ?? []];
    patch = renderFilePatch(change, diff, oldLines, newLines, options);
    patches.set(change, patch);
  }
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
  rendering.cut = `The diff of ${change.path} is cut after ${kept} of ${countOf(lines.length - 1, "line")}`;
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
      `No diff text for ${countOf(rendering.unshown.length, "file")}: ${names}${more}; ask again with path, or a larger max_bytes.`,
    );
  }
  if (listed < total)
    parts.push(
      `Only the first ${listed} of ${total} changed files are listed (added/removed count all ${total}); ask again with path to list the rest.`,
    );
  return parts.length === 0 ? undefined : parts.join(" ");
}

/**
 * The two sides: \`from\` and \`to\` (default HEAD), or a range in \`from\` as \`git diff\` reads one:
 * \`A..B\` is A to B, \`A...B\` the merge base of A and B to B (what B changed since it forked from
 * A: what a pull request shows). An empty end is HEAD. A range with \`to\` as well is refused.
 */
async function resolveSides(
  repository: GitRepository,
  input: DiffRangeInput,
  signal: AbortSignal,
): Promise<{ from: ResolvedRevision; to: ResolvedRevision; note?: string }> {
  const range = /^(.*?)(\.\.\.?)(?!\.)(.*)$/s.exec(input.from.trim());
  if (range === null) {
    return { from: await resolveRevision(repository, input.from), to: await resolveRevision(repository, input.to ?? "HEAD") };
  }
  const [, leftText = "", dots, rightText = ""] = range;
  if (input.to !== undefined) {
    throw new ToolError("invalid_input", `from is the range ${JSON.stringify(input.from)}, and to is given as well.`, {
      hint: `Give the range alone, or the two ends as from and to.`,
      data: { field: "to" },
    });
  }
  const left = await resolveRevision(repository, leftText === "" ? "HEAD" : leftText);
  const right = await resolveRevision(repository, rightText === "" ? "HEAD" : rightText);
  if (dots === "..") return { from: left, to: right };
  const label = input.from.trim();
  const [base, ...more] = await mergeBases(repository, left.commit, right.commit, label, signal);
  const from = { input: `merge base of ${label}`, commit: base as NonNullable<typeof base> };
  if (more.length === 0) return { from, to: right };
  // git diff warns "A...B: multiple merge bases, using <first>" and diffs from the first of
  // `git merge-base --all`'s list.
  const others = more.map((commit) => shortId(commit.oid)).join(", ");
  return {
    from,
    to: right,
    note: `${label} has ${more.length + 1} merge bases; the diff is from the first, as git diff takes it (the others: ${others}).`,
  };
}

async function diffRange(repository: GitRepository, input: DiffRangeInput, context: ToolContext): Promise<DiffRangeOutput> {
  const scope = input.path === undefined ? "" : repositoryPath(repository, input.path, context);
  const { from, to, note } = await resolveSides(repository, input, context.signal);
  const changes = await detectRenames(
    repository,
    await diffTrees(repository, from.commit.tree, to.commit.tree, scope),
    context.signal,
  );
  // Counting lines diffs every changed file: thousands in a wide range, so it yields and stops on abort too.
  const pacer = new Pacer(context.signal);
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
    await pacer.step();
  }
  // Without an explicit max_bytes, the diff text gets what the listing leaves of the answer's
  // JSON budget (escaping counted), so a run never has to condense the answer.
  let budget = input.max_bytes ?? Math.min(30_000, ANSWER_JSON_CHARS - listingChars - 1_000);
  let rendering: Rendering;
  const sections = changes.map(patchParts);
  const patches = new Map<ResolvedChange, string>();
  for (let attempt = 0; ; attempt++) {
    rendering = { text: [], bytes: 0, cut: undefined, unshown: [] };
    const options: RenderOptions = {
      budget,
      context: input.context_lines ?? 3,
      abbrev: abbreviationLength(repository.caches.store.packedObjectCount()),
    };
    for (const parts of sections) {
      for (const part of parts) await renderChange(repository, part, rendering, options, patches);
      await pacer.step();
    }
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
    ...(note === undefined ? {} : { note }),
  };
}

/** The `diff-range` tool's handler (loaded on the tool's first call). */
export function runDiffRange(runtime: GitToolRuntime, input: DiffRangeInput, context: ToolContext): Promise<DiffRangeOutput> {
  return withRepository(runtime, context, (repository) => diffRange(repository, input, context));
}
