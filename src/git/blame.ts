import type { ToolContext } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import type { BlameCommit, BlameInput, BlameLine, BlameOutput } from "./blame-tool.js";
import { isoDate, shortId, subjectOf } from "./commit-summary.js";
import { displayLine, isBinary, splitLines } from "./diff/text.js";
import { gitError } from "./git-errors.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { blameLines } from "./history/blame.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";
import { withRepository } from "./with-repository.js";

const MAX_LINES = 400;
const MAX_TEXT_BYTES = 16_000;
const MAX_LINE_CHARS = 240;

function askedRange(input: BlameInput): { start: number; end: number } {
  if (input.line !== undefined && input.start_line !== undefined) {
    throw gitError("line_out_of_range", "Pass either line or start_line (with end_line), not both.");
  }
  const start = input.line ?? input.start_line;
  if (start === undefined) throw gitError("line_out_of_range", "Say which lines to blame: line, or start_line and end_line.");
  const end = input.line ?? input.end_line ?? start;
  if (end < start) throw gitError("line_out_of_range", `end_line ${end} is before start_line ${start}.`);
  return { start, end };
}

async function fileAt(repository: GitRepository, treeOid: string, path: string, ref: string) {
  const entry = await repository.entryAt(treeOid, path);
  // The repository's root is "" inside; the model named it "." (or the workspace itself).
  const shown = JSON.stringify(path === "" ? "." : path);
  if (entry === undefined) {
    throw gitError(
      "path_not_found",
      `${shown} does not exist at ${ref}.`,
      "Check the path, or use git_file_history to find where it went.",
    );
  }
  if (entry.kind !== "blob")
    throw gitError("not_a_file", `${shown} is a ${entry.kind === "tree" ? "directory" : "submodule"}, not a file.`);
  const content = await repository.blob(entry.oid);
  if (isBinary(content)) throw gitError("binary_file", `${shown} is a binary file; it has no lines to blame.`);
  return { oid: entry.oid, mode: entry.mode, lines: splitLines(content) };
}

function clip(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS - 1)}…` : text;
}

interface Window {
  readonly range: { readonly start: number; readonly end: number };
  readonly from: number;
  readonly to: number;
  readonly notes: string[];
  truncated: boolean;
}

/** The lines to blame: the asked range clamped to the file, widened by context, capped at {@link MAX_LINES}. */
function window(input: BlameInput, total: number, path: string, ref: string): Window {
  const asked = askedRange(input);
  if (asked.start > total)
    throw gitError("line_out_of_range", `${path} has ${countOf(total, "line")} at ${ref}; line ${asked.start} does not exist.`);
  const range = { start: asked.start, end: Math.min(asked.end, total) };
  const around = input.context ?? 3;
  const from = Math.max(1, range.start - around);
  const to = Math.min(total, range.end + around);
  const notes = asked.end > total ? [`The file ends at line ${total}.`] : [];
  if (to - from + 1 <= MAX_LINES) return { range, from, to, notes, truncated: false };
  notes.push(
    `Only lines ${from}-${from + MAX_LINES - 1} of ${from}-${to} are blamed (at most ${MAX_LINES} per call); ask again from line ${from + MAX_LINES}.`,
  );
  return { range, from, to: from + MAX_LINES - 1, notes, truncated: true };
}

async function blameContext(repository: GitRepository, input: BlameInput, context: ToolContext): Promise<BlameOutput> {
  const path = repositoryPath(repository, input.path, context);
  const start = await resolveRevision(repository, input.ref ?? "HEAD");
  const file = await fileAt(repository, start.commit.tree, path, start.input);
  const shown = window(input, file.lines.length, path, start.input);
  const blamed = await blameLines(repository, start.commit, path, file, shown, context.signal);
  const lines: BlameLine[] = [];
  const commits: Record<string, BlameCommit> = {};
  let bytes = 0;
  for (const entry of blamed) {
    const text = clip(displayLine(file.lines[entry.line - 1] ?? ""));
    bytes += Buffer.byteLength(text) + 40;
    if (bytes > MAX_TEXT_BYTES) {
      shown.notes.push(
        `Stopped after line ${entry.line - 1} to stay within ${countOf(MAX_TEXT_BYTES, "byte")}; ask again from line ${entry.line}.`,
      );
      shown.truncated = true;
      break;
    }
    const sha = shortId(entry.commit.oid);
    // The author as git blame shows them: under the name and address the .mailmap gives.
    const author = { ...entry.commit.author, ...repository.mailmap.map(entry.commit.author) };
    const outside = entry.line < shown.range.start || entry.line > shown.range.end;
    lines.push({
      line: entry.line,
      sha,
      author: author.name,
      date: isoDate(author).slice(0, 10),
      text,
      ...(outside ? { context: true as const } : {}),
    });
    commits[sha] ??= {
      author: author.name,
      email: author.email,
      date: isoDate(author),
      subject: subjectOf(entry.commit.message),
      ...(entry.path === path ? {} : { path: entry.path }),
    };
  }
  return {
    path,
    ref: start.input,
    total_lines: file.lines.length,
    range: shown.range,
    lines,
    commits,
    truncated: shown.truncated,
    ...(shown.notes.length === 0 ? {} : { omitted: shown.notes.join(" ") }),
  };
}

/** The `blame` tool's handler (loaded on the tool's first call). */
export function runBlame(runtime: GitToolRuntime, input: BlameInput, context: ToolContext): Promise<BlameOutput> {
  return withRepository(runtime, context, (repository) => blameContext(repository, input, context));
}
