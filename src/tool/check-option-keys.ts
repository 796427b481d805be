import { ConfigurationError } from "../errors/configuration-error.js";
import { closestNames } from "./closest-names.js";

/**
 * Refuses an option a factory does not read. A misspelled or guessed key is otherwise ignored
 * without a word, and some leave a dangerous default: `createFileTools({ workspace })` (the word
 * the run's permissions use) left the tools' root at the process's working directory, so a write
 * landed outside the directory the host meant.
 * @param notes - a sentence to add for a known wrong key (e.g. `workspace`), by key
 * @throws ConfigurationError `invalid_option` with `data.field` naming the key.
 */
export function checkOptionKeys(
  options: object | undefined,
  keys: readonly string[],
  where: string,
  notes: Readonly<Record<string, string>> = {},
): void {
  if (options === undefined || options === null) return;
  for (const key of Object.keys(options)) {
    if (keys.includes(key)) continue;
    const closest = closestNames(key, keys, 1);
    const note = Object.hasOwn(notes, key) ? ` ${notes[key]}` : closest.length > 0 ? ` Did you mean "${closest[0]}"?` : "";
    throw new ConfigurationError("invalid_option", `${where}: ${key} is not an option (options: ${keys.join(", ")}).${note}`, {
      data: { field: key },
    });
  }
}
