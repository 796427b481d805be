// For a test's helper process that acts once a change's temporary file (`.atc-*`) shows up in a
// directory: told by inotify (fs.watch) instead of reading the directory in a loop. The loop kept a
// core busy for the whole wait (the change's process loading and planning beside it), which on two
// cores slowed the change it waited for; an inotify event comes as the file is created, even when
// the file is renamed away before a loop's next look.
import { readdirSync, watch } from "node:fs";

/**
 * Resolves true once a name starting with `.atc-` is created in `directory` (or is already there
 * when the watch starts), false after `timeoutMs`. `onWatching` runs once the watch is in place and
 * the directory has been looked at (a caller's "watching": nothing created after it is missed).
 */
export function temporaryFileIn(directory, timeoutMs, onWatching = () => {}) {
  return new Promise((resolve) => {
    const watcher = watch(directory, (_event, name) => {
      if (name?.startsWith(".atc-")) finish(true);
    });
    const timer = setTimeout(() => finish(false), timeoutMs);
    function finish(found) {
      clearTimeout(timer);
      watcher.close();
      resolve(found);
    }
    onWatching();
    if (readdirSync(directory).some((name) => name.startsWith(".atc-"))) finish(true);
  });
}
