import { closeSync } from "node:fs";
import { DIRECTORY_FLAGS, openSync } from "./byte-paths.js";

/**
 * Runs `use` with directory `name` under the directory behind `descriptor` opened (no link
 * followed: a name a command made a link is not entered), then closes it; does nothing when it
 * cannot be opened (gone, not a directory, a link). The repairs after a `workspace` command walk
 * git directories the command could change this way, by descriptor, never by path.
 */
export function withChildDirectory(descriptor: number, name: string, use: (child: number) => void): void {
  let child: number;
  try {
    child = openSync(`/proc/self/fd/${descriptor}/${name}`, DIRECTORY_FLAGS);
  } catch {
    return;
  }
  try {
    use(child);
  } finally {
    closeSync(child);
  }
}
