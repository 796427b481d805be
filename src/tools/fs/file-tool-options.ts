import type { FileScopeOptions } from "./file-scope.js";

/**
 * Options of the built-in file tools.
 *
 * @public
 */
export interface FileToolOptions extends FileScopeOptions {
  /**
   * Line-addressed edits: `read` prefixes every line with `<line>#<hash>|`, and `edit` accepts
   * `start_anchor` / `end_anchor` that must still match the file.
   * @defaultValue false
   */
  readonly hashline?: boolean;
  /**
   * Let `undo` redo what it undid (`{ "action": "redo" }`).
   * @defaultValue false
   */
  readonly redo?: boolean;
  /**
   * The `fetch` that `download` uses (inject one to add proxies, auth or tests).
   * @defaultValue `globalThis.fetch`
   */
  readonly fetch?: typeof fetch;
}
