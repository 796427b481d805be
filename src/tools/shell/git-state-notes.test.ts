import { describe, expect, it } from "vitest";
import type { QuarantinedState } from "../sandbox/sequencer-quarantine.js";
import { NOTED_GIT_STATE_MOVES, newGitStateNotes } from "./git-state-notes.js";

const ROOT = "/ws";

function unlisted(index: number, git = "/ws/.git"): QuarantinedState {
  return { from: `${git}/f${index}`, to: `${git}/atc-quarantine-unlisted-f${index}-19700101T000000Z`, outwardEntry: "unlisted" };
}

describe("newGitStateNotes", () => {
  it("tells the first moves one by one and the rest in one note, however many a command caused", () => {
    const states = [
      ...Array.from({ length: 40_000 }, (_, index) => unlisted(index)),
      {
        from: "/ws/sub/.git/logs/HEAD",
        to: "/ws/sub/.git/atc-quarantine-link-logs-HEAD-19700101T000000Z",
        outwardEntry: "link" as const,
      },
    ];
    const notes = newGitStateNotes(states, ROOT);
    expect(notes).toHaveLength(NOTED_GIT_STATE_MOVES + 1);
    expect(notes.join("\n").length).toBeLessThan(40_000);
    expect(notes[0]).toContain("mv '.git/atc-quarantine-unlisted-f0-19700101T000000Z' '.git/f0'");
    expect(notes.at(-1)).toBe(
      `[moved aside ${states.length - NOTED_GIT_STATE_MOVES} more entries the same way (${40_000 - NOTED_GIT_STATE_MOVES} unlisted, 1 link), ` +
        "each to atc-quarantine-<kind>-<its path>-<time> at the top of its git directory. " +
        "List them from the workspace root: ls -d '.git/atc-quarantine-*' 'sub/.git/atc-quarantine-*']",
    );
  });

  it("tells every move one by one up to the bound (control)", () => {
    const states = Array.from({ length: NOTED_GIT_STATE_MOVES }, (_, index) => unlisted(index));
    const notes = newGitStateNotes(states, ROOT);
    expect(notes).toHaveLength(NOTED_GIT_STATE_MOVES);
    expect(notes.every((note) => note.startsWith("[moved aside .git/f"))).toBe(true);
  });

  it("names at most ten git directories in the rest's note", () => {
    const states = Array.from({ length: NOTED_GIT_STATE_MOVES + 30 }, (_, index) => unlisted(index, `/ws/r${index}/.git`));
    const rest = newGitStateNotes(states, ROOT).at(-1) ?? "";
    expect(rest).toContain("(30 git directories; the first 10 here)");
    expect(rest.match(/atc-quarantine-\*/g)).toHaveLength(10);
  });

  it("says what a moved pointer pointed to, as written, and why it was moved, not the generic hooks note", () => {
    const notes = newGitStateNotes(
      [
        {
          from: "/ws/x/.git",
          to: "/ws/x/atc-quarantine-.git-19700101T000000Z",
          pointer: { file: ".git", value: "../hostgit", why: "relinked" },
        },
        {
          from: "/ws/.git/worktrees/e/commondir",
          to: "/ws/.git/worktrees/e/atc-quarantine-commondir-19700101T000000Z",
          pointer: { file: "commondir", value: "../../../d/../.git", why: "relinked" },
        },
        {
          from: "/ws/.git/worktrees/e/gitdir",
          to: "/ws/.git/worktrees/e/atc-quarantine-gitdir-19700101T000000Z",
          pointer: { file: "gitdir", value: "/home/u/.git", why: "outside" },
        },
      ],
      ROOT,
    );
    expect(notes[0]).toContain(
      '[moved aside x/.git: a pointer to "../hostgit"; it names a place inside the workspace as written',
    );
    expect(notes[0]).toContain("host git run in this directory would use the git directory it names");
    expect(notes[1]).toContain('a pointer to "../../../d/../.git"');
    expect(notes[1]).toContain("refs, objects and config");
    expect(notes[2]).toContain('a pointer to "/home/u/.git"; it names a place outside the workspace');
    expect(notes[2]).toContain("git worktree repair");
    for (const note of notes) expect(note).not.toContain("run its hooks");
  });
});
