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
});
