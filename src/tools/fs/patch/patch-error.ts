/**
 * Why a patch could not be planned. Every code names a mistake the model can fix by sending a
 * different patch; I/O failures of the reader are not patch errors and propagate as exceptions.
 */
export type PatchErrorCode =
  /** The patch text does not follow its format (markers, headers, line prefixes). */
  | "patch_parse_error"
  /** The patch is well formed but asks for something this engine does not do (binary patches, copies). */
  | "unsupported_patch"
  /** A path is absolute, leaves the workspace root, or names no file. */
  | "invalid_path"
  /** An update, delete or edit names a file that does not exist (or was deleted earlier in the patch). */
  | "file_not_found"
  /** An add, or the destination of a move, names a file that already exists. */
  | "file_exists"
  /** A hunk's context or removed lines were not found in the file. */
  | "context_not_found"
  /** The text to change occurs more than once and nothing says which occurrence is meant. */
  | "ambiguous_match"
  /** An edit's `old_text` does not occur in the file. */
  | "no_match"
  /** An edit has an empty `old_text`, which would match everywhere. */
  | "empty_old_text"
  /** A deletion's hunks do not remove the whole file. */
  | "content_mismatch";

/** A line of the target file shown to the model as the likely intended place. */
export interface PatchErrorLine {
  /** 1-based line number in the file. */
  readonly line: number;
  /** The line's text (shortened when very long). */
  readonly text: string;
}

/**
 * A structured failure of {@link planPatch}: which file, which hunk, which line of the patch,
 * why, and what to do next. Nothing is changed when a plan fails.
 */
export interface PatchError {
  /** What went wrong, to branch on. */
  readonly code: PatchErrorCode;
  /** One or two sentences for the model, naming the file and the failing text. */
  readonly message: string;
  /** The (normalised) path of the file the failure is about. */
  readonly path?: string;
  /** 1-based index of the failing hunk (or edit) within its file operation. */
  readonly hunk?: number;
  /** 1-based line in the patch text where the failing part starts. */
  readonly line?: number;
  /** What the model should do next. */
  readonly hint?: string;
  /** The file line most similar to what was searched for, when one is reasonably close. */
  readonly closest?: PatchErrorLine;
  /** For `ambiguous_match`: 1-based file lines of the first occurrences (at most 10). */
  readonly matches?: readonly number[];
  /** For `ambiguous_match`: how many occurrences there are in all. */
  readonly count?: number;
}

/** The optional details of a {@link PatchError}; `undefined` values are left out. */
export type PatchErrorDetails = { readonly [K in Exclude<keyof PatchError, "code" | "message">]?: PatchError[K] | undefined };

/** The result of an internal step: a value, or the error that stops the whole plan. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: PatchError };

/** Builds a {@link PatchError} without `undefined`-valued keys (so it serialises and compares cleanly). */
export function patchError(code: PatchErrorCode, message: string, details: PatchErrorDetails = {}): PatchError {
  const error: { -readonly [K in keyof PatchError]: PatchError[K] } = { code, message };
  for (const [key, value] of Object.entries(details)) {
    if (value !== undefined) Object.assign(error, { [key]: value });
  }
  return error;
}

/** A successful {@link Outcome}. */
export function succeed<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** A failed {@link Outcome}, built like {@link patchError}. */
export function fail(code: PatchErrorCode, message: string, details: PatchErrorDetails = {}): { ok: false; error: PatchError } {
  return { ok: false, error: patchError(code, message, details) };
}

/** Adds details (typically the path or hunk the caller knows about) to an error that lacks them. */
export function withDefaults(error: PatchError, details: PatchErrorDetails): PatchError {
  const merged: PatchErrorDetails = { ...details, ...error };
  return patchError(error.code, error.message, merged);
}
