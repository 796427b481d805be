import { ToolError } from "agent-tool-catalog";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import { DirectoryReplacedError } from "./directory-replaced-error.js";
import { FileStepError } from "./file-step-error.js";
import { isDirectoryName } from "./patch/patch-path.js";

/**
 * The claims among `sentences` that a message ends with, as one pattern: each a sentence of its
 * own, with its explanation ("No file was changed: every file ... was restored."), which holds no
 * quote. Every file tool states its claim as the message's last sentence, and looking only there
 * keeps the quoted file names out: a quoted name is followed by its closing quote, so it never
 * ends a message. Searched anywhere, a FIFO named `No file was changed` read as the claim (the
 * sentence was never added), and a name holding one lost it ("b c.txt" for `b Nothing was changed. c.txt`).
 */
function closingClaims(sentences: readonly string[]): RegExp {
  const claim = String.raw`(?:${sentences.join("|")})(?::[^."\n]*)?\.`;
  return new RegExp(String.raw`(?:^|\s+)${claim}(?:\s+${claim})*\s*$`);
}

/**
 * A claim that nothing was changed, in any of the forms the file tools' messages use (the
 * cross-process lock's `file_locked` errors say "Nothing was written.").
 */
const ANY_CHANGE_CLAIM = closingClaims(["Nothing was changed", "No file was changed", "Nothing was written"]);

/**
 * `message` without its closing claims that nothing was changed, in any of their forms. An
 * errno's text and a step's failure carry such a claim for themselves only; a caller that knows
 * more of what is on disk (a change after its commit point, an undo whose earlier steps were
 * made) states it once, itself. Left in, "Nothing was changed" stood beside a list of files that
 * were; so did a lock's "Nothing was written." until round 44 (a two-step undo whose second
 * file's lock never came back, the first step's file written back).
 */
export function withoutChangeClaims(message: string): string {
  return message.replace(ANY_CHANGE_CLAIM, "");
}

/**
 * `error` told as a failure that changed no file: a `ToolError` or `SandboxViolationError` (the
 * errors the model is shown) whose message makes no such claim
 * gets " No file was changed." appended in place (its class, code, hint, data and cause kept);
 * anything else passes through. For failures before a change's commit point only: a multi-file
 * change refused on one file (a FIFO in its place, no descriptor left for the check under the
 * locks) otherwise left the model to guess whether the files before it were written.
 */
export function toldUnchanged(error: unknown): unknown {
  const forModel = ToolError.isInstance(error) || SandboxViolationError.isInstance(error);
  if (forModel && !ANY_CHANGE_CLAIM.test(error.message)) {
    error.message = `${error.message.trimEnd()} No file was changed.`;
  }
  return error;
}

/** Turns a Node file-system error into a `ToolError` the model can act on; other errors pass through. */
export function toFileToolError(error: unknown, displayPath: string): unknown {
  if (error instanceof FileStepError) return toFileToolError(error.cause, displayPath);
  if (error instanceof DirectoryReplacedError) {
    return new ToolError("version_conflict", `The directory of "${displayPath}" was moved or replaced during the change.`, {
      hint: "Read the file again and redo the change.",
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // Node refuses paths with a NUL byte before any system call; its message names internal paths.
  if (code === "ERR_INVALID_ARG_VALUE" || code === "ERR_INVALID_ARG_TYPE") {
    return new ToolError(
      "invalid_path",
      `"${displayPath.replaceAll("\0", "\\0")}" is not a valid path (it contains a NUL byte or is not text).`,
      {
        hint: "Give the path as plain text without control characters.",
      },
    );
  }
  switch (code) {
    case "ENOENT":
      return new ToolError("file_not_found", `No file or directory at "${displayPath}".`, {
        hint: "Check the path with ls or glob.",
      });
    case "EISDIR":
      return new ToolError("is_a_directory", `"${displayPath}" is a directory, not a file.`, {
        hint: "Use ls to list a directory.",
      });
    case "ENOTDIR":
      return new ToolError("not_a_directory", `A part of "${displayPath}" is not a directory.`);
    case "EACCES":
    case "EPERM":
      return new ToolError("permission_denied", `Permission denied for "${displayPath}".`);
    case "ELOOP":
      return new ToolError("symlink_refused", `"${displayPath}" is a symbolic link, which is not followed here.`);
    case "EEXIST":
      return new ToolError("file_exists", `"${displayPath}" already exists.`);
    case "ENAMETOOLONG":
      return new ToolError(
        "name_too_long",
        `A name in "${displayPath}" is too long for the file system (at most 255 bytes per name).`,
        {
          hint: "Use a shorter file or directory name.",
        },
      );
    case "ENOSPC":
    case "EDQUOT":
      return new ToolError(
        "no_space",
        `No space left on the device (or quota exceeded) while writing "${displayPath}". Nothing was changed.`,
        {
          hint: "Ask the user to free disk space.",
        },
      );
    case "EROFS":
      return new ToolError("read_only_file_system", `"${displayPath}" is on a read-only file system.`);
    case "ENXIO":
      return new ToolError("special_file_refused", `Refused "${displayPath}": it is a socket or device, not a regular file.`);
    case "EMFILE":
    case "ENFILE":
      return new ToolError("too_many_open_files", "Too many files are open in this process; try again.");
    default:
      // Any other errno: a structured error without the host's absolute paths.
      if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code))
        return new ToolError("file_system_error", `The file system refused the operation on "${displayPath}" (${code}).`);
      if (error instanceof Error && error.name === "Error" && /symbolic link or not a directory/.test(error.message))
        return new ToolError("symlink_refused", `"${displayPath}" changed into a symbolic link while it was opened.`);
      return error;
  }
}

/**
 * Refuses a path spelled as a directory (`dir/`, `dir/.`, `..`) where a file is meant: the file
 * system would otherwise drop the trailing part and act on a file named `dir`, not what was asked.
 */
export function refuseDirectorySpelling(requested: string): void {
  // A backslash is a separator on Windows only; elsewhere it may be part of a name.
  if (isDirectoryName(requested.split(process.platform === "win32" ? /[\\/]/ : "/").at(-1))) {
    throw new ToolError("invalid_path", `Invalid path "${requested}": it names a directory, not a file. Nothing was written.`, {
      hint: "Give the file's path, e.g. dir/name.txt.",
    });
  }
}

/**
 * Refuses an empty `expected_version` (a slip, not a version) as `invalid_input` naming the field.
 * Checked here rather than with a schema `minLength`, which every request would carry in tokens.
 */
export function refuseEmptyVersion(expected: string | undefined): void {
  if (expected === "") {
    throw new ToolError("invalid_input", "expected_version is empty: give the version from your last read, or leave it out.", {
      data: { field: "expected_version" },
    });
  }
}
