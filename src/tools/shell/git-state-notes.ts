import path from "node:path";
import { gitDirectoryLinkLimits } from "../sandbox/git-directory-links.js";
import type { QuarantinedState } from "../sandbox/sequencer-quarantine.js";
import { shellQuote } from "./shell-quote.js";

/**
 * The most moves after one command told one by one. Each costs the model ~300 characters, and a
 * command decides how many there are: one that made 60,000 directories in `.git` (40,000 past the
 * link walk's bound, each moved aside) got 8 MiB of notes. The rest is told in one note: how many
 * of each kind, and where they are.
 */
export const NOTED_GIT_STATE_MOVES = 50;

/** The notes on what was moved aside of git directories after a command (see {@link NOTED_GIT_STATE_MOVES}). */
export function newGitStateNotes(states: readonly QuarantinedState[], root: string): string[] {
  const notes = states.slice(0, NOTED_GIT_STATE_MOVES).map((state) => newGitStateNote(state, root));
  const rest = states.slice(NOTED_GIT_STATE_MOVES);
  if (rest.length > 0) notes.push(restNote(rest, root));
  return notes;
}

/** One note for the moves past the first {@link NOTED_GIT_STATE_MOVES}. */
function restNote(rest: readonly QuarantinedState[], root: string): string {
  const kinds = new Map<string, number>();
  const places = new Set<string>();
  for (const state of rest) {
    const kind =
      state.outwardEntry ??
      (state.pointer !== undefined
        ? "pointer"
        : state.relinkedWorkTree === true || state.relinkedRepository !== undefined
          ? "config"
          : "state");
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    places.add(path.relative(root, path.dirname(state.to)) || ".");
  }
  const counts = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(", ");
  const shown = [...places].slice(0, 10);
  const where = shown.map((place) => shellQuote(path.join(place, "atc-quarantine-*"))).join(" ");
  return (
    `[moved aside ${rest.length} more entries the same way (${counts}), each to atc-quarantine-<kind>-<its path>-<time> at the top of its git directory` +
    `${places.size > shown.length ? ` (${places.size} git directories; the first ${shown.length} here)` : ""}. ` +
    `List them from the workspace root: ls -d ${where}]`
  );
}

/** What the note says of each kind of entry moved out of a git directory (see {@link QuarantinedState.outwardEntry}). */
function outwardEntryNote(kind: NonNullable<QuarantinedState["outwardEntry"]>): string {
  switch (kind) {
    case "link":
      return "a symbolic link in a git directory leading out of the workspace (or nowhere), through which host git would write or read another file (a commit message, a reflog line, refs, objects)";
    case "alternates":
      return "an alternates file of a git directory the command created naming an object store outside the workspace, whose objects host git would check out into it";
    case "unlisted":
      return `a directory of a git directory past the link walk's bound (${gitDirectoryLinkLimits.maxDirectories} directories, ${gitDirectoryLinkLimits.maxDepth} levels), not looked at for links host git would follow out of the workspace`;
    case "unpinnable":
      return "a symbolic link where the sandbox binds a git directory or its control files read-only at each spawn (a submodule's or worktree's git directory, hooks, info, config, a .git, a HEAD), which a mount cannot do through a link: left there, every later command of the workspace would be refused (wherever it leads, also inside the workspace)";
    case "replaced":
      return "not the symbolic link leading out of the workspace that stood there a moment before, but what a command of this workspace still running swapped in for it while it was being moved aside (it then put something else at that name)";
  }
}

/** What was moved aside of a git directory the command created, and how to put it back after review. */
function newGitStateNote(state: QuarantinedState, root: string): string {
  const from = path.relative(root, state.from);
  const to = path.relative(root, state.to);
  if (state.relinkedWorkTree === true) {
    return (
      `[moved aside ${from}: the work tree its core.worktree names became a link out of the workspace, where host git would check out and add files -> ${to}. ` +
      `Remove the link, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
    );
  }
  if (state.pointer !== undefined) return pointerNote(state.pointer, from, to);
  if (state.outwardEntry !== undefined) {
    const what = outwardEntryNote(state.outwardEntry);
    return (
      `[moved aside ${from}: ${what} -> ${to}. ` +
      `Review where it leads first, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
    );
  }
  if (state.relinkedRepository !== undefined) {
    return (
      `[moved aside ${from}: the repository its ${state.relinkedRepository} names became a link out of the workspace, where host git fetch or push would read or write another repository -> ${to}. ` +
      `Remove the link, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
    );
  }
  return (
    `[moved aside ${from} of a git directory the command created: host git there would run its hooks, or commands its config names (core.fsmonitor, filters, ...), or work in a directory outside the workspace (core.worktree) -> ${to}. ` +
    `To keep it, review it first, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
  );
}

/** What a pointer file git follows does, by kind (see {@link QuarantinedState.pointer}). */
const POINTER_USE: Record<NonNullable<QuarantinedState["pointer"]>["file"], string> = {
  ".git": "host git run in this directory would use the git directory it names: read that repository and commit into it",
  commondir:
    "host git in this git directory's worktree would use the repository it names for refs, objects and config: read that repository and commit into it",
  gitdir: "it names this worktree's .git file, which git worktree repair writes when it is missing",
};

/** Why a pointer was moved aside (see {@link QuarantinedState.pointer}). */
const POINTER_WHY: Record<NonNullable<QuarantinedState["pointer"]>["why"], string> = {
  outside: "it names a place outside the workspace",
  relinked:
    "it names a place inside the workspace as written, but the way there leaves the workspace through a symbolic link (or `..` after one)",
  swapped: "a directory on the way to what it names was swapped for a symbolic link while it was being looked at",
};

/** The note on a moved pointer: what it pointed to (as written) and why it was moved. */
function pointerNote(pointer: NonNullable<QuarantinedState["pointer"]>, from: string, to: string): string {
  return (
    `[moved aside ${from}: a pointer to ${JSON.stringify(pointer.value)}; ${POINTER_WHY[pointer.why]}, and ${POINTER_USE[pointer.file]} -> ${to}. ` +
    `Review where it leads first, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
  );
}
