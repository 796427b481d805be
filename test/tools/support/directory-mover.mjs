// Moves a directory away under a change: once a temporary file of a change (`.atc-*`) shows up in
// directory argv[3] of workspace argv[2] (told by inotify: temporary-file-watch.mjs), renames
// directory argv[4] to argv[5] and puts a new one at its path holding copies of its files and,
// recursively, of its directories (temporary files left out), then prints "moved"; prints "never"
// after 60 s without one. Options after argv[5]: "--no-replacement": nothing is put at its path;
// "--ready": prints "watching" once its watch is in place and it has looked the first time (a test
// starts its change after that line, so the mover cannot miss it); "--immutable": the moved
// directory is made immutable (`chattr +i`, root on ext4), so nothing in it can be removed until
// the test lifts it. The move and the flag land together as the change sees them: the test's
// process (the mover's parent, which makes the change) is held stopped from before the rename until
// the flag is set. Without the hold, a change that finds its directory moved could remove its
// temporary file from the moved directory before `chattr` had run (a loaded machine stretches that
// window), and a test would find nothing left; the flag cannot be set first, as an immutable
// directory cannot be renamed.
// "--while-open": moves only while the change is still writing or flushing its temporary files,
// so before its last look: with the parent held stopped, some temporary file of the watched
// directory must be open in it (a change holds each one open from its creation until its flush is
// done, and looks last after every flush), and the copy is put at the path within the same hold;
// else it moves nothing and prints "late" (the change
// may have passed its last look, or renamed its files into place: a move then is no longer one the
// change must see). Without it a mover slowed by load could move the directory after the change
// was made (the change rightly ok, its files then in the moved directory), which a test cannot
// tell from a move the change missed.
import { execFileSync } from "node:child_process";
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync } from "node:fs";
import path from "node:path";
import "./stop-on-terminate.mjs";
import { temporaryFileIn } from "./temporary-file-watch.mjs";

const [workspace, watched, victim, away, ...options] = process.argv.slice(2);

/** Copies directory `from`'s entries to a new directory `to`, recursively, temporary files left out. */
function copyTree(from, to) {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name.startsWith(".atc-")) continue;
    if (entry.isDirectory()) copyTree(path.join(from, entry.name), path.join(to, entry.name));
    else copyFileSync(path.join(from, entry.name), path.join(to, entry.name));
  }
}

/**
 * Runs `step` with the parent process stopped: SIGSTOP, then a wait until every one of its threads
 * is stopped (a thread finishes the system call it is in first: an unlink under way completes
 * before the step starts), then SIGCONT however the step ended. Returns what `step` returned.
 */
function holdParent(step) {
  const parent = process.ppid;
  process.kill(parent, "SIGSTOP");
  try {
    const deadline = Date.now() + 30_000;
    while (!allStopped(parent)) {
      if (Date.now() > deadline) throw new Error(`process ${parent} did not stop`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
    return step();
  } finally {
    process.kill(parent, "SIGCONT");
  }
}

/** Whether every thread of `pid` is stopped (state T in /proc/<pid>/task/<tid>/stat). */
function allStopped(pid) {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.every((tid) => {
    try {
      return /^\d+ \(.*\) [Tt] /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
    } catch {
      return true; // The thread ended.
    }
  });
}

/**
 * What the mover saw just before its move (`--while-open`), as one line (a test's failure message shows it): the
 * watched directory's entries with inode and size, and which temporary files the parent process
 * still holds open (a change's temporary file is open from its creation until it is flushed).
 */
function look(directory) {
  const entries = readdirSync(directory).map((name) => {
    const stat = lstatSync(path.join(directory, name), { throwIfNoEntry: false });
    return `${name}:${stat?.ino ?? "-"}:${stat?.size ?? "-"}`;
  });
  const open = openTemporaries(directory);
  return { open, line: `seen entries=[${entries.join(" ")}] open=[${open.join(" ")}]` };
}

/** The temporary files (`.atc-*`) of `directory` the parent process has open now. */
function openTemporaries(directory) {
  const prefix = `${directory}/.atc-`;
  const open = [];
  for (const fd of readdirSync(`/proc/${process.ppid}/fd`)) {
    let target;
    try {
      target = readlinkSync(`/proc/${process.ppid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target.startsWith(prefix)) open.push(path.basename(target));
  }
  return open;
}

const announce = options.includes("--ready") ? () => process.stdout.write("watching\n") : () => {};
if (await temporaryFileIn(path.join(workspace, watched), 60_000, announce)) {
  const [from, to] = [path.join(workspace, victim), path.join(workspace, away)];
  const whileOpen = options.includes("--while-open");
  const replace = !options.includes("--no-replacement");
  const move = () => {
    if (whileOpen) {
      // Held stopped: nothing the change does falls between this look and the move.
      const seen = look(path.join(workspace, watched));
      process.stdout.write(`${seen.line}\n`);
      if (seen.open.length === 0) return false;
    }
    renameSync(from, to);
    if (options.includes("--immutable")) execFileSync("chattr", ["+i", to]);
    // Held, the copy is whole at the path when the change goes on: a change that found its
    // directory moved and read the path again could otherwise find a half-copied file there (a
    // file another writer changed: a change without a pinned version plans again on it, ok).
    if (whileOpen && replace) copyTree(to, from);
    return true;
  };
  const moved = whileOpen || options.includes("--immutable") ? holdParent(move) : move();
  if (!moved) {
    process.stdout.write("late\n");
    process.exit(0);
  }
  if (!whileOpen && replace) copyTree(to, from);
  process.stdout.write("moved\n");
  process.exit(0);
}
process.stdout.write("never\n");
