// The pieces the kill and swap helpers share (swap-after-first-rename.mjs, swap-then-kill.mjs,
// kill-at-log-event.mjs): a directory's copy made before the change, the "a new inode is at the
// path" test that says a change's rename landed, the 60 s give-up, the pid read from stdin and the
// SIGKILL that reports what it found, and the "an intent log says committed" test of the helpers
// that act at a change's commit point.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/** Copies directory `from`'s files into a new `<from>.copy` beside it; returns the copy's path. */
export function copyBeside(from) {
  const copy = `${from}.copy`;
  mkdirSync(copy);
  for (const name of readdirSync(from)) copyFileSync(path.join(from, name), path.join(copy, name));
  return copy;
}

/** True when `target` is now another inode than `first` (renamed over); false while it is not, or is gone. */
export function replacedSince(target, first) {
  try {
    return statSync(target).ino !== first;
  } catch {
    return false;
  }
}

/** Prints "never" and exits after `ms` unless the returned timer is cleared. */
export function giveUpAfter(ms) {
  return setTimeout(() => {
    process.stdout.write("never\n");
    process.exit(0);
  }, ms);
}

/** The changing process's pid, read as the first line on stdin: `holder.pid` once it came. */
export function pidFromStdin() {
  const holder = { pid: undefined };
  createInterface({ input: process.stdin }).once("line", (line) => {
    holder.pid = Number(line);
  });
  return holder;
}

/** SIGKILLs `pid`, prints "killed <what>" (or "gone": it had ended) and exits. */
export function killAndExit(pid, what) {
  try {
    process.kill(pid, "SIGKILL");
    process.stdout.write(`killed ${what}\n`);
  } catch {
    process.stdout.write("gone\n");
  }
  process.exit(0);
}

/**
 * True when a log in intent directory `intents` says `committed`. `logNames` picks the files
 * read: the logs themselves (`.json`; a log's rewrite, `.json.next`, is not yet the commit), or
 * also the rewrites, for a helper that must act before the rewrite replaces its log.
 */
export function intentLogCommitted(intents, logNames = /\.json$/) {
  for (const name of readdirSync(intents).filter((entry) => logNames.test(entry))) {
    try {
      if (JSON.parse(readFileSync(path.join(intents, name), "utf8")).state === "committed") return true;
    } catch {}
  }
  return false;
}
