import { defineTool, type ToolContext, type ToolDefinition } from "agent-tool-catalog";
import { integerField, type OutputOf, objectSchema, optional, required, stringField } from "../tool/object-schema.js";
import { isoDate, shortId, subjectOf } from "./commit-summary.js";
import { displayLine, isBinary, splitLines } from "./diff/text.js";
import { gitError } from "./git-errors.js";
import { type GitToolRuntime, withRepository } from "./git-tool-runtime.js";
import { blameLines } from "./history/blame.js";
import type { GitRepository } from "./repository.js";
import { repositoryPath } from "./repository-path.js";
import { resolveRevision } from "./revision.js";

const blameInput = objectSchema({
  path: required(stringField({ min: 1 }), "The file to blame, relative to the workspace"),
  ref: optional(stringField({ min: 1 }), "The version to blame (default HEAD)"),
  line: optional(integerField({ min: 1 }), "One line to blame (with context lines around it)"),
  start_line: optional(integerField({ min: 1 }), "First line of a range to blame (instead of line)"),
  end_line: optional(integerField({ min: 1 }), "Last line of the range (default start_line)"),
  context: optional(integerField({ min: 0, max: 50 }), "Lines blamed around the range too (default 3)"),
});

type BlameInput = OutputOf<typeof blameInput>;

/**
 * One blamed line.
 *
 * @public
 */
export interface BlameLine {
  /** The line number in the blamed version. */
  readonly line: number;
  /** The commit that last changed the line (a key of `commits`). */
  readonly sha: string;
  /** Its author. */
  readonly author: string;
  /** Its author date, `YYYY-MM-DD`. */
  readonly date: string;
  /** The line's text (long lines are cut, ending in "…"). */
  readonly text: string;
  /** Present on context lines around the asked range. */
  readonly context?: true;
}

/**
 * A commit that lines are blamed on.
 *
 * @public
 */
export interface BlameCommit {
  /** The author's name. */
  readonly author: string;
  /** The author's e-mail. */
  readonly email: string;
  /** The author date, ISO 8601. */
  readonly date: string;
  /** The first line of the message. */
  readonly subject: string;
  /** The file's path in that commit, when it was renamed since. */
  readonly path?: string;
}

/**
 * The answer of `git_blame_context`.
 *
 * @public
 */
export interface BlameOutput {
  /** The repository-relative path. */
  readonly path: string;
  /** The blamed version. */
  readonly ref: string;
  /** Lines in the file at that version. */
  readonly total_lines: number;
  /** The asked range (after clamping to the file). */
  readonly range: { readonly start: number; readonly end: number };
  /** Blamed lines, in order: the range and its context. */
  readonly lines: readonly BlameLine[];
  /** The commits lines are blamed on, by `sha`. */
  readonly commits: Readonly<Record<string, BlameCommit>>;
  /** True when lines were left out (range over the line limit or the byte budget). */
  readonly truncated: boolean;
  /** What was left out. */
  readonly omitted?: string;
}

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
  if (entry === undefined) {
    throw gitError(
      "path_not_found",
      `${JSON.stringify(path)} does not exist at ${ref}.`,
      "Check the path, or use git_file_history to find where it went.",
    );
  }
  if (entry.kind !== "blob")
    throw gitError(
      "not_a_file",
      `${JSON.stringify(path)} is a ${entry.kind === "tree" ? "directory" : "submodule"}, not a file.`,
    );
  const content = await repository.blob(entry.oid);
  if (isBinary(content)) throw gitError("binary_file", `${JSON.stringify(path)} is a binary file; it has no lines to blame.`);
  return { oid: entry.oid, lines: splitLines(content) };
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
    throw gitError("line_out_of_range", `${path} has ${total} lines at ${ref}; line ${asked.start} does not exist.`);
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
  const blamed = await blameLines(repository, start.commit, path, file.oid, shown, context.signal);
  const lines: BlameLine[] = [];
  const commits: Record<string, BlameCommit> = {};
  let bytes = 0;
  for (const entry of blamed) {
    const text = clip(displayLine(file.lines[entry.line - 1] ?? ""));
    bytes += Buffer.byteLength(text) + 40;
    if (bytes > MAX_TEXT_BYTES) {
      shown.notes.push(
        `Stopped after line ${entry.line - 1} to stay within ${MAX_TEXT_BYTES} bytes; ask again from line ${entry.line}.`,
      );
      shown.truncated = true;
      break;
    }
    const sha = shortId(entry.commit.oid);
    const { author } = entry.commit;
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

/** `git_blame_context`: who last changed each line of a range, with the commits' subjects and context lines. */
export function createBlameTool(runtime: GitToolRuntime): ToolDefinition<BlameInput, BlameOutput> {
  return defineTool({
    name: "git_blame_context",
    description:
      "Blame a range of lines (like git blame -L): for each line the commit that last changed it, its author and date, " +
      "plus context lines around the range and each commit's subject. Follows renames.",
    tier: "deferred",
    mutating: false,
    inputSchema: blameInput,
    annotations: { title: "Blame lines", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "blame", "annotate", "author", "lines", "who"],
    handler: (input, context) => withRepository(runtime, context, (repository) => blameContext(repository, input, context)),
  });
}
