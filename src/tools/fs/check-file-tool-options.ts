import { checkOptionKeys } from "../../tool/check-option-keys.js";

/**
 * What the file tools' factories read. `createFileTools` hands one object to every tool, so each
 * factory takes the keys of all of them (grep's and download's own among them).
 */
const FILE_TOOL_OPTION_KEYS: readonly string[] = [
  "root",
  "hashline",
  "redo",
  "fetch",
  "engine",
  "matchDeadlineMs",
  "searchTimeoutMs",
  "allowPrivateNetwork",
];

/** The sentence for the key a host most likely means instead of `root`. */
export const WORKSPACE_OPTION_NOTE =
  "The workspace is the run's (createRun({ permissions: { workspace } })); `root` is the directory used when a run has none.";

/**
 * Refuses a key no file tool reads (`workspace`, a misspelling).
 * @throws ConfigurationError `invalid_option` naming the key.
 */
export function checkFileToolOptions(options: object | undefined, where: string): void {
  checkOptionKeys(options, FILE_TOOL_OPTION_KEYS, where, { workspace: WORKSPACE_OPTION_NOTE });
}
