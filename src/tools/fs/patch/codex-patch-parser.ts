import { type FileOperation, type Hunk, type HunkLine, splitPatchLines } from "./file-operation.js";
import { fail, type Outcome, succeed } from "./patch-error.js";
import { normalizePatchPath } from "./patch-path.js";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const END_OF_FILE = "*** End of File";
const HEADERS_HINT = "Start each file with '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'.";
const PREFIX_HINT =
  "Every line of an Update File chunk starts with ' ' (context, a space), '+' (added) or '-' (removed); start a new chunk with '@@'.";

type Failure = { ok: false; error: ReturnType<typeof fail>["error"] };

function parseError(line: number, message: string, hint?: string): Failure {
  return fail("patch_parse_error", `Line ${line}: ${message}`, { line, hint });
}

/**
 * Parses the Codex `apply_patch` format into file operations. Like Codex it tolerates whitespace
 * around the markers, a missing `@@` before the first chunk, and a heredoc wrapper
 * (`<<'EOF'` ... `EOF`); unlike Codex it also accepts a blank line inside an Add File block as an
 * empty line, and an Update File with a Move to and no chunks as a pure rename. Errors carry the
 * 1-based line of the patch text.
 */
export function parseCodexPatch(text: string): Outcome<FileOperation[]> {
  const lines = splitPatchLines(text);
  const bounds = findBounds(lines);
  if (!bounds.ok) return bounds;
  return new CodexParser(lines, bounds.value.end).parse(bounds.value.begin + 1);
}

function findBounds(lines: readonly string[]): Outcome<{ begin: number; end: number }> {
  let begin = lines.findIndex((line) => line.trim() !== "");
  let end = lines.findLastIndex((line) => line.trim() !== "");
  if (begin === -1)
    return fail("patch_parse_error", "The patch is empty.", { hint: `Send ${BEGIN}, the file operations, then ${END}.` });
  if (/^<<\s*(['"]?)EOF\1$/.test((lines[begin] as string).trim()) && (lines[end] as string).trim() === "EOF" && end > begin) {
    begin = lines.findIndex((line, index) => index > begin && line.trim() !== "");
    end = lines.findLastIndex((line, index) => index < end && line.trim() !== "");
    if (begin === -1 || end < begin) return fail("patch_parse_error", "The patch is empty.");
  }
  const first = (lines[begin] as string).trim();
  if (first !== BEGIN) {
    return parseError(
      begin + 1,
      `the patch must start with '${BEGIN}', found '${first}'.`,
      `Wrap the patch in '${BEGIN}' and '${END}' lines.`,
    );
  }
  if ((lines[end] as string).trim() !== END || end === begin) {
    const early = lines.findIndex((line, index) => index > begin && index < end && line.trim() === END);
    if (early !== -1) return parseError(early + 2, `text follows '${END}' (line ${early + 1}).`, `End the patch with '${END}'.`);
    return parseError(end + 1, `the patch must end with '${END}'.`, `Add a final '${END}' line.`);
  }
  return succeed({ begin, end });
}

class CodexParser {
  private index = 0;
  private readonly operations: FileOperation[] = [];

  constructor(
    private readonly lines: readonly string[],
    private readonly end: number,
  ) {}

  parse(start: number): Outcome<FileOperation[]> {
    this.index = start;
    while (this.index < this.end) {
      const trimmed = this.current().trim();
      if (trimmed === "") {
        this.index++;
        continue;
      }
      const step = this.parseOperation(trimmed);
      if (!step.ok) return step;
    }
    if (this.operations.length === 0) {
      return parseError(start + 1, "the patch contains no file operations.", HEADERS_HINT);
    }
    return succeed(this.operations);
  }

  private current(): string {
    return this.lines[this.index] ?? "";
  }

  private parseOperation(trimmed: string): Outcome<true> {
    const line = this.index + 1;
    if (trimmed.startsWith(ADD)) return this.parseAdd(trimmed.slice(ADD.length), line);
    if (trimmed.startsWith(DELETE)) {
      const path = this.path(trimmed.slice(DELETE.length), line);
      if (!path.ok) return path;
      this.operations.push({ type: "delete", path: path.value, patchLine: line });
      this.index++;
      return succeed(true);
    }
    if (trimmed.startsWith(UPDATE)) return this.parseUpdate(trimmed.slice(UPDATE.length), line);
    if (trimmed === END) return parseError(line, `text follows '${END}'.`, `End the patch with a single '${END}' line.`);
    return parseError(line, `'${trimmed}' is not a file operation header.`, HEADERS_HINT);
  }

  private path(raw: string, line: number): Outcome<string> {
    if (raw.trim() === "") return parseError(line, "the file operation names no path.", HEADERS_HINT);
    const path = normalizePatchPath(raw);
    return path.ok ? path : { ok: false, error: { ...path.error, line } };
  }

  private parseAdd(rawPath: string, line: number): Outcome<true> {
    const path = this.path(rawPath, line);
    if (!path.ok) return path;
    const content: string[] = [];
    for (this.index++; this.index < this.end; this.index++) {
      const text = this.current();
      if (text.startsWith("+")) content.push(text.slice(1));
      else if (text.trim() === "" && this.nextNonBlank().startsWith("+")) content.push("");
      else break;
    }
    const stop = this.current();
    if (this.index < this.end && stop.trim() !== "" && !isMarker(stop)) {
      return parseError(
        this.index + 1,
        `'${stop}' inside '${ADD} ${path.value}' does not start with '+'.`,
        "Prefix every line of a new file with '+'.",
      );
    }
    this.operations.push({
      type: "add",
      path: path.value,
      content: content.map((text) => `${text}\n`).join(""),
      patchLine: line,
    });
    return succeed(true);
  }

  private nextNonBlank(): string {
    for (let index = this.index + 1; index < this.end; index++) {
      const text = this.lines[index] as string;
      if (text.trim() !== "") return text;
    }
    return "";
  }

  private parseUpdate(rawPath: string, line: number): Outcome<true> {
    const path = this.path(rawPath, line);
    if (!path.ok) return path;
    this.index++;
    let moveTo: string | undefined;
    const moveLine = this.current().trim();
    if (this.index < this.end && moveLine.startsWith(MOVE)) {
      const destination = this.path(moveLine.slice(MOVE.length), this.index + 1);
      if (!destination.ok) return destination;
      moveTo = destination.value;
      this.index++;
    }
    const hunks = this.parseChunks();
    if (!hunks.ok) return hunks;
    if (hunks.value.length === 0 && moveTo === undefined) {
      return parseError(
        line,
        `'${UPDATE} ${path.value}' has no chunks.`,
        "Add '@@' chunks with ' ', '-' and '+' lines after the Update File line.",
      );
    }
    const operation: FileOperation = { type: "update", path: path.value, hunks: hunks.value, style: "codex", patchLine: line };
    this.operations.push(moveTo === undefined ? operation : { ...operation, moveTo });
    return succeed(true);
  }

  private parseChunks(): Outcome<Hunk[]> {
    const chunks = new ChunkCollector();
    for (; this.index < this.end; this.index++) {
      const text = this.current();
      const line = this.index + 1;
      let step: Outcome<true>;
      if (isMarker(text)) {
        if (text.trim() !== END_OF_FILE) break;
        step = chunks.endOfFile(line);
      } else if (text.trimEnd() === "@@" || text.startsWith("@@ ")) {
        step = chunks.start(line, text.slice(3));
      } else {
        step = chunks.line(text, line);
      }
      if (!step.ok) return step;
    }
    return chunks.done();
  }
}

/** Collects the chunks of one Update File: `@@` starts one, prefixed lines fill it, `*** End of File` closes it. */
class ChunkCollector {
  private readonly hunks: Hunk[] = [];
  private chunk: { lines: HunkLine[]; patchLine: number; context: string | undefined } | undefined;

  start(line: number, context: string): Outcome<true> {
    const done = this.finish(false);
    if (done.ok) this.chunk = { lines: [], patchLine: line, context: context.trim() === "" ? undefined : context };
    return done;
  }

  line(text: string, line: number): Outcome<true> {
    if (this.chunk === undefined) {
      if (text.trim() === "") return succeed(true);
      if (this.hunks.length > 0) return parseError(line, `expected '@@' to start the next chunk, found '${text}'.`, PREFIX_HINT);
      this.chunk = { lines: [], patchLine: line, context: undefined };
    }
    const parsed = parseChunkLine(text);
    if (parsed === undefined) return parseError(line, `'${text}' has no ' ', '+' or '-' prefix.`, PREFIX_HINT);
    this.chunk.lines.push(parsed);
    return succeed(true);
  }

  endOfFile(line: number): Outcome<true> {
    if (this.chunk === undefined || this.chunk.lines.length === 0) {
      return parseError(line, `'${END_OF_FILE}' must follow the lines of a chunk.`, PREFIX_HINT);
    }
    return this.finish(true);
  }

  done(): Outcome<Hunk[]> {
    const done = this.finish(false);
    return done.ok ? succeed(this.hunks) : done;
  }

  private finish(endOfFile: boolean): Outcome<true> {
    const chunk = this.chunk;
    if (chunk === undefined) return succeed(true);
    if (chunk.lines.length === 0) return parseError(chunk.patchLine, "the chunk has no lines.", PREFIX_HINT);
    const { lines, patchLine, context } = chunk;
    this.hunks.push({
      lines,
      patchLine,
      endOfFile,
      oldNoNewline: false,
      newNoNewline: false,
      ...(context === undefined ? {} : { context }),
    });
    this.chunk = undefined;
    return succeed(true);
  }
}

const MARKERS = [ADD, DELETE, UPDATE, MOVE, END, END_OF_FILE];

/** A line that ends a chunk: a known marker (whitespace around it allowed), or any unprefixed `***` line. */
function isMarker(text: string): boolean {
  const trimmed = text.trim();
  return text.startsWith("***") || MARKERS.some((marker) => trimmed.startsWith(marker));
}

function parseChunkLine(text: string): HunkLine | undefined {
  if (text === "") return { kind: "context", text: "" };
  const prefix = text[0];
  if (prefix === " ") return { kind: "context", text: text.slice(1) };
  if (prefix === "+") return { kind: "add", text: text.slice(1) };
  if (prefix === "-") return { kind: "remove", text: text.slice(1) };
  return undefined;
}
