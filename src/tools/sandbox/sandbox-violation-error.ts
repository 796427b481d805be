import { CatalogError, type CatalogErrorOptions } from "../../errors/catalog-error.js";

/**
 * Codes of {@link SandboxViolationError}; stable, so a tool can branch on them.
 *
 * @public
 */
export type SandboxViolationCode =
  | "invalid_path"
  | "invalid_command"
  | "path_outside_workspace"
  | "symlink_escape"
  | "dangling_symlink_refused"
  | "hard_link_refused"
  | "special_file_refused"
  | "not_a_regular_file";

/**
 * Options of a {@link SandboxViolationError}.
 *
 * @public
 */
export interface SandboxViolationErrorOptions extends CatalogErrorOptions {
  /** What the model can do instead; the run passes it on with the message. */
  readonly hint?: string;
}

/**
 * Thrown when a path a tool was asked to use would leave the workspace or reach something that
 * is not a plain file of it (a symlink out, a hard link, a device).
 *
 * It is a model's mistake, not the host's, so it carries a `hint` like a `ToolError`: a run that
 * catches it from a handler shows the model the code, the message (which names the path and the
 * reason) and the hint, instead of ending the run.
 * @public
 */
export class SandboxViolationError extends CatalogError {
  declare readonly code: SandboxViolationCode;
  /** What the model can do instead. */
  readonly hint: string | undefined;

  constructor(code: SandboxViolationCode, message: string, options: SandboxViolationErrorOptions = {}) {
    super(code, message, options);
    this.name = "SandboxViolationError";
    this.hint = options.hint;
  }
}
