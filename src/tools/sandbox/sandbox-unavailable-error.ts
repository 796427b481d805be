import { CatalogError, type CatalogErrorOptions } from "../../errors/catalog-error.js";
import { showControlCharacters } from "../shell/visible-control-characters.js";

/**
 * Thrown when a run asks for an OS sandbox (scope `local` or `workspace`) that cannot start on
 * this host: bubblewrap is missing, user namespaces are denied, the platform has no backend.
 *
 * It is the host's problem, never the model's, so it is thrown rather than returned; the message
 * says why and how to fix it. Sandboxing fails closed: commands do not silently run without it.
 * The message often names a workspace path a sandboxed command chose (a git directory under a
 * name with escape sequences), so its control characters are shown as visible stand-ins: it
 * reaches the host's logs and terminal.
 * @public
 */
export class SandboxUnavailableError extends CatalogError {
  declare readonly code: "sandbox_unavailable";

  constructor(message: string, options: CatalogErrorOptions = {}) {
    super("sandbox_unavailable", showControlCharacters(message), options);
    this.name = "SandboxUnavailableError";
  }
}
