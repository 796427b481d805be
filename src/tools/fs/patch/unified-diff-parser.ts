import { type FileOperation, type Hunk, type HunkLine, splitPatchLines } from "./file-operation.js";
import { fail, type Outcome, succeed } from "./patch-error.js";
import { normalizePatchPath } from "./patch-path.js";
import { DEV_NULL, gitHeaderPaths, headerPath, stripPrefixes } from "./unified-diff-paths.js";

const HUNK_HEADER = /^@@\s+-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s+@@/;
const HUNK_HINT =
  "Hunk headers look like '@@ -12,5 +12,6 @@' (old start,count new start,count). For hunks without line numbers use the '*** Begin Patch' format.";
const PREFIX_HINT = "Every hunk line starts with ' ' (context, a space), '+' (added), '-' (removed) or '\\' (no newline marker).";
const GIT_HEADERS = ["similarity index ", "dissimilarity index ", "index "];

/** What a `diff --git` section's extended header lines said. */
interface GitSection {
  readonly line: number;
  oldPath?: string;
  newPath?: string;
  renameFrom?: string;
  renameTo?: string;
  newFile: boolean;
  deletedFile: boolean;
  /** `old mode` or `deleted file mode`: the mode the file had. */
  oldMode?: string;
  /** `new mode` or `new file mode`: the mode the patch asks for. */
  newMode?: string;
}

/** The paths and hunks of one `---`/`+++` section, before they become an operation. */
interface FileSection {
  readonly oldPath: string;
  readonly newPath: string;
  readonly hunks: readonly Hunk[];
  readonly line: number;
  readonly git: GitSection | undefined;
}

type Failure = { ok: false; error: ReturnType<typeof fail>["error"] };

function parseError(line: number, message: string, hint?: string): Failure {
  return fail("patch_parse_error", `Line ${line}: ${message}`, { line, hint });
}

function isBodyLine(text: string): boolean {
  return text === "" || text.startsWith(" ") || text.startsWith("+") || text.startsWith("-") || text.startsWith("\\");
}

/**
 * Parses a unified diff (git-style or plain, one or many files) into file operations. Lines
 * outside file sections (commit messages, `Index:` lines) are ignored, as git does. The counts in
 * `@@` headers are advisory: a hunk ends where its lines end, so a model's miscounted header
 * neither drops nor swallows lines; within the counts, a `--- `/`+++ ` pair is a removed and an
 * added line, not a new file.
 */
export function parseUnifiedDiff(text: string): Outcome<FileOperation[]> {
  return new UnifiedParser(splitPatchLines(text)).parse();
}

class UnifiedParser {
  private index = 0;
  private git: GitSection | undefined;
  private readonly operations: FileOperation[] = [];

  constructor(private readonly lines: readonly string[]) {}

  parse(): Outcome<FileOperation[]> {
    while (this.index < this.lines.length) {
      const step = this.step(this.lines[this.index] as string);
      if (!step.ok) return step;
    }
    const flushed = this.flushGit();
    if (!flushed.ok) return flushed;
    if (this.operations.length === 0) {
      return fail(
        "patch_parse_error",
        "No file sections found: expected '--- a/<path>' and '+++ b/<path>' lines followed by '@@' hunks.",
        {
          hint: "Send a unified diff, or use the '*** Begin Patch' format.",
        },
      );
    }
    return succeed(this.operations);
  }

  private step(text: string): Outcome<true> {
    const line = this.index + 1;
    if (text.startsWith("diff --git ")) {
      const flushed = this.flushGit();
      if (!flushed.ok) return flushed;
      this.git = { line, newFile: false, deletedFile: false, ...gitHeaderPaths(text) };
    } else if (text.startsWith("Binary files ") || text.startsWith("GIT binary patch")) {
      return fail("unsupported_patch", `Line ${line}: binary patches are not supported.`, {
        line,
        hint: "Change text files only.",
      });
    } else if (this.isFileHeader(this.index)) {
      return this.parseFile();
    } else if (text.startsWith("@@")) {
      return parseError(
        line,
        "a hunk header comes before any '--- '/'+++ ' file header.",
        "Start each file with '--- a/<path>' and '+++ b/<path>'.",
      );
    } else if (this.git !== undefined) {
      const recorded = this.recordGitHeader(this.git, text, line);
      if (!recorded.ok) return recorded;
    }
    this.index++;
    return succeed(true);
  }

  private recordGitHeader(git: GitSection, text: string, line: number): Outcome<true> {
    const value = (prefix: string) => headerPath(text.slice(prefix.length));
    if (text.startsWith("rename from ")) git.renameFrom = value("rename from ");
    else if (text.startsWith("rename to ")) git.renameTo = value("rename to ");
    else if (text.startsWith("new file mode ")) {
      git.newFile = true;
      git.newMode = text.slice("new file mode ".length).trim();
    } else if (text.startsWith("deleted file mode ")) {
      git.deletedFile = true;
      git.oldMode = text.slice("deleted file mode ".length).trim();
    } else if (text.startsWith("old mode ")) git.oldMode = text.slice("old mode ".length).trim();
    else if (text.startsWith("new mode ")) git.newMode = text.slice("new mode ".length).trim();
    else if (text.startsWith("copy from ") || text.startsWith("copy to ")) {
      return fail("unsupported_patch", `Line ${line}: file copies are not supported.`, {
        line,
        hint: "Add the copy as a new file instead.",
      });
    } else if (!GIT_HEADERS.some((prefix) => text.startsWith(prefix))) return this.flushGit();
    return succeed(true);
  }

  private isFileHeader(index: number): boolean {
    return (this.lines[index]?.startsWith("--- ") ?? false) && (this.lines[index + 1]?.startsWith("+++ ") ?? false);
  }

  /** A `---`/`+++`/`@@` triple: a new file's start even where it could be read as hunk lines. */
  private isFileStart(index: number): boolean {
    return this.isFileHeader(index) && (this.lines[index + 2]?.startsWith("@@") ?? false);
  }

  private parseFile(): Outcome<true> {
    const line = this.index + 1;
    const oldPath = headerPath((this.lines[this.index] as string).slice(4));
    const newPath = headerPath((this.lines[this.index + 1] as string).slice(4));
    this.index += 2;
    const hunks: Hunk[] = [];
    while (this.lines[this.index]?.startsWith("@@")) {
      const hunk = this.parseHunk();
      if (!hunk.ok) return hunk;
      hunks.push(hunk.value);
    }
    const git = this.git;
    this.git = undefined;
    const paths = stripPrefixes(oldPath, newPath, git !== undefined);
    if (git !== undefined) {
      // Checked before the section's paths and hunks: a symbolic link is refused as one.
      const mode = modeOf(git);
      if (!mode.ok) return mode;
    }
    return this.push(buildOperation({ ...paths, hunks, line, git }), git);
  }

  private parseHunk(): Outcome<Hunk> {
    const patchLine = this.index + 1;
    const header = this.lines[this.index] as string;
    const match = HUNK_HEADER.exec(header);
    if (match === null) return parseError(patchLine, `'${header}' is not a valid hunk header.`, HUNK_HINT);
    const body = new HunkBody(match[2] === undefined ? 1 : Number(match[2]), match[4] === undefined ? 1 : Number(match[4]));
    for (this.index++; this.index < this.lines.length; this.index++) {
      const text = this.lines[this.index] as string;
      if (this.endsHunk(text, body.inCount())) break;
      if (!isBodyLine(text)) {
        return parseError(this.index + 1, `'${text}' in the hunk starting at line ${patchLine} has no prefix.`, PREFIX_HINT);
      }
      const added = body.add(text, this.index + 1);
      if (!added.ok) return added;
    }
    return body.finish(patchLine, Number(match[1]));
  }

  /**
   * Whether `text` (at the current line) is past the hunk: a header, or, once the counts are used
   * up, anything but hunk lines (and git's `-- ` signature separator).
   */
  private endsHunk(text: string, inCount: boolean): boolean {
    if (text.startsWith("@@") || text.startsWith("diff --git ") || this.isFileStart(this.index)) return true;
    if (inCount) return false;
    if (text === "-- " || this.isFileHeader(this.index) || !isBodyLine(text)) return true;
    return text === "" && !this.bodyContinues(this.index);
  }

  /** After a blank line past the header's counts: true when hunk lines follow, so the blank line is an empty context line. */
  private bodyContinues(index: number): boolean {
    let next = index + 1;
    while (this.lines[next] === "") next++;
    const text = this.lines[next];
    if (text === undefined || !isBodyLine(text)) return false;
    return !text.startsWith("@@") && !this.isFileHeader(next);
  }

  /** Emits the operation of a `diff --git` section that had no `---`/`+++` lines (rename, empty file, mode change). */
  private flushGit(): Outcome<true> {
    const git = this.git;
    this.git = undefined;
    if (git === undefined) return succeed(true);
    const renamed = git.renameFrom !== undefined && git.renameTo !== undefined;
    const paths = stripPrefixes(git.oldPath ?? DEV_NULL, git.newPath ?? DEV_NULL, true);
    if (!renamed && !git.newFile && !git.deletedFile) {
      // A mode change alone (`old mode`/`new mode`, no hunks): refused or reported, never dropped.
      const mode = modeOf(git);
      if (!mode.ok || mode.value === undefined) return mode.ok ? succeed(true) : mode;
      const path = normalizeAt(paths.newPath, git.line);
      if (!path.ok) return path;
      this.operations.push({ type: "mode", path: path.value, mode: mode.value, patchLine: git.line });
      return succeed(true);
    }
    return this.push(buildOperation({ ...paths, hunks: [], line: git.line, git }), git);
  }

  /** Adds a section's operation, followed by its ignored mode change when it asks for one. */
  private push(operation: Outcome<FileOperation>, git: GitSection | undefined): Outcome<true> {
    if (!operation.ok) return operation;
    this.operations.push(operation.value);
    const mode = git === undefined ? succeed(undefined) : modeOf(git);
    if (!mode.ok) return mode;
    if (mode.value !== undefined && operation.value.type !== "delete" && operation.value.type !== "mode") {
      const path = operation.value.type === "update" ? (operation.value.moveTo ?? operation.value.path) : operation.value.path;
      this.operations.push({ type: "mode", path, mode: mode.value, patchLine: git?.line ?? 0 });
    }
    return succeed(true);
  }
}

/** The lines of one hunk as they are read, with what is left of the header's counts. */
class HunkBody {
  private readonly lines: HunkLine[] = [];
  private oldNoNewline = false;
  private newNoNewline = false;

  constructor(
    private oldLeft: number,
    private newLeft: number,
  ) {}

  inCount(): boolean {
    return this.oldLeft > 0 || this.newLeft > 0;
  }

  add(text: string, line: number): Outcome<true> {
    if (text.startsWith("\\")) {
      const last = this.lines.at(-1);
      if (last === undefined) return parseError(line, "a '\\ No newline at end of file' marker starts the hunk.", PREFIX_HINT);
      if (last.kind !== "add") this.oldNoNewline = true;
      if (last.kind !== "remove") this.newNoNewline = true;
      return succeed(true);
    }
    const kind = text.startsWith("+") ? "add" : text.startsWith("-") ? "remove" : "context";
    this.lines.push({ kind, text: text.slice(1) });
    if (kind !== "add") this.oldLeft--;
    if (kind !== "remove") this.newLeft--;
    return succeed(true);
  }

  finish(patchLine: number, oldStart: number): Outcome<Hunk> {
    if (this.lines.length === 0) return parseError(patchLine, "the hunk has no lines.", PREFIX_HINT);
    const { lines, oldNoNewline, newNoNewline } = this;
    return succeed({ lines, patchLine, endOfFile: false, oldStart, oldNoNewline, newNoNewline });
  }
}

/** A symbolic link's mode in git (the file's content is the link's target). */
const SYMLINK_MODE = "120000";
/** A gitlink's mode: a submodule's commit, not a file. */
const GITLINK_MODE = "160000";
/** The regular file modes git writes (`100664` is an old git's spelling of `100644`). */
const FILE_MODES = new Set(["100644", "100755", "100664"]);
/** Executable when the owner's execute bit is set. */
const isExecutable = (mode: string) => mode === "100755";

/**
 * What a `diff --git` section's mode lines ask: refused (a symbolic link or a submodule on either
 * side, or a mode git does not write for files), or the regular-file mode the patch asks for where
 * it asks for an executable bit different from the file's (`new file mode 100755`, `old mode
 * 100644` / `new mode 100755` and back), which `apply_patch` does not apply and reports. A new
 * file's `100644` and a deletion's mode ask nothing.
 */
function modeOf(git: GitSection): Outcome<string | undefined> {
  const modes = [git.oldMode, git.newMode].filter((mode): mode is string => mode !== undefined);
  const name = stripPrefixes(git.oldPath ?? DEV_NULL, git.newPath ?? git.oldPath ?? DEV_NULL, true).newPath;
  if (modes.includes(SYMLINK_MODE)) {
    return fail(
      "unsupported_patch",
      `Line ${git.line}: ${name} is a symbolic link in this patch (mode ${SYMLINK_MODE}): apply_patch cannot create, change or delete symbolic links.`,
      { line: git.line, hint: "Make or change the link with bash (ln -s), and send the rest of the patch without this section." },
    );
  }
  if (modes.includes(GITLINK_MODE)) {
    return fail(
      "unsupported_patch",
      `Line ${git.line}: ${name} is a submodule in this patch (mode ${GITLINK_MODE}): apply_patch cannot change submodules.`,
      { line: git.line, hint: "Update the submodule with git, and send the rest of the patch without this section." },
    );
  }
  const unknown = modes.find((mode) => !FILE_MODES.has(mode));
  if (unknown !== undefined) {
    return fail("patch_parse_error", `Line ${git.line}: '${unknown}' is not a file mode.`, {
      line: git.line,
      hint: "Git's file modes are 100644 (regular) and 100755 (executable); leave mode lines out to keep the file's mode.",
    });
  }
  if (git.newMode === undefined || git.deletedFile) return succeed(undefined);
  const wasExecutable = git.oldMode !== undefined && isExecutable(git.oldMode);
  return isExecutable(git.newMode) === wasExecutable ? succeed(undefined) : succeed(git.newMode);
}

function normalizeAt(raw: string, line: number): Outcome<string> {
  const path = normalizePatchPath(raw);
  return path.ok ? path : { ok: false, error: { ...path.error, line } };
}

function buildOperation(section: FileSection): Outcome<FileOperation> {
  const { hunks, line, git } = section;
  const isAdd = section.oldPath === DEV_NULL || (git?.newFile ?? false);
  const isDelete = section.newPath === DEV_NULL || (git?.deletedFile ?? false);
  if (isAdd && isDelete) return parseError(line, "a file section cannot both create and delete its file.");
  if (isAdd) {
    const path = normalizeAt(section.newPath, line);
    if (!path.ok) return path;
    if (hunks.some((hunk) => hunk.lines.some((hunkLine) => hunkLine.kind !== "add"))) {
      return parseError(
        line,
        `the hunks of the new file ${path.value} may only add lines.`,
        "Prefix every line of a new file with '+'.",
      );
    }
    const added = hunks.flatMap((hunk) => hunk.lines.map((hunkLine) => hunkLine.text));
    const noNewline = hunks.at(-1)?.newNoNewline ?? false;
    const content = added.length === 0 ? "" : `${added.join("\n")}${noNewline ? "" : "\n"}`;
    return succeed({ type: "add", path: path.value, content, patchLine: line });
  }
  const source = normalizeAt(git?.renameFrom ?? section.oldPath, line);
  if (!source.ok) return source;
  if (isDelete) return succeed({ type: "delete", path: source.value, patchLine: line, hunks });
  const destination = normalizeAt(git?.renameTo ?? section.newPath, line);
  if (!destination.ok) return destination;
  const renamed = destination.value !== source.value;
  if (hunks.length === 0 && !renamed) {
    return parseError(line, `the file section for ${source.value} has no '@@' hunks.`, HUNK_HINT);
  }
  const operation: FileOperation = { type: "update", path: source.value, hunks, style: "unified", patchLine: line };
  return succeed(renamed ? { ...operation, moveTo: destination.value } : operation);
}
