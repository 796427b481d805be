import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configAssignments } from "./config-assignments.js";
import { workTreeInside, workTreeRelinked } from "./work-tree-value.js";

describe("core.worktree values of git directories in the workspace", () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-work-tree-")));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  const gitDirectory = path.join(root, "sub", ".git");
  mkdirSync(gitDirectory, { recursive: true });
  mkdirSync(path.join(root, "tree"));
  mkdirSync(outside);
  symlinkSync(outside, path.join(root, "out"));
  mkdirSync(path.join(outside, "inner"));
  symlinkSync(path.join(outside, "inner"), path.join(root, "deep"));
  symlinkSync(".", path.join(root, "self"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("keeps a value naming a directory inside, existing or not, relative or absolute", () => {
    for (const value of [
      " ../../tree",
      "../..",
      "../../absent/deeper",
      `${root}/tree`,
      "../../self/tree",
      "../../tree/../tree",
    ]) {
      expect(workTreeInside(value, gitDirectory, root), value).toBe(true);
    }
  });

  it("refuses one leading out: absolute, climbing, through a link, one git would expand or unquote, none", () => {
    for (const value of [
      outside,
      "../../..",
      "../../out",
      "../../out/deeper",
      // `..` after a link is taken from its target, as the kernel and git take it (round 43):
      // the workspace as written, the host directory holding `inner` to git.
      "../../deep/..",
      `${root}/deep/../tree`,
      "~/x",
      "%(prefix)/x",
      '"../../tree"',
      "../../tree # comment",
      "",
      undefined,
    ]) {
      expect(workTreeInside(value, gitDirectory, root), String(value)).toBe(false);
    }
  });

  it("calls relinked only an inside value now leading out; the host's outside value is its own", () => {
    expect(workTreeRelinked("../../out", gitDirectory, root)).toBe(true);
    expect(workTreeRelinked("../../deep/..", gitDirectory, root)).toBe(true);
    expect(workTreeRelinked("../../tree", gitDirectory, root)).toBe(false);
    expect(workTreeRelinked(outside, gitDirectory, root)).toBe(false);
    expect(workTreeRelinked('"../../out"', gitDirectory, root)).toBe(false);
  });

  it("judges git's reading of the value: a tab inside read as a space, a trailing \\v kept (round 45 follow-up)", () => {
    symlinkSync(outside, path.join(root, "x y"));
    symlinkSync(outside, path.join(root, "v\v"));
    mkdirSync(path.join(root, "in y"));
    // Git reads `../../x y` (a link out) and `../../v<VT>` (a link out); trimmed, both name missing entries.
    expect(workTreeInside("../../x\ty", gitDirectory, root)).toBe(false);
    expect(workTreeInside("../../v\v", gitDirectory, root)).toBe(false);
    expect(workTreeRelinked("../../x\ty", gitDirectory, root)).toBe(true);
    // The config line keeps the `\v` git keeps (a trimmed line lost it before the value was judged).
    expect(configAssignments("[core]\n\tworktree = ../../v\v\r\n")).toEqual([{ key: "core.worktree", value: " ../../v\v" }]);
    // Controls: the same spellings naming directories inside are kept.
    expect(workTreeInside("../../in\ty", gitDirectory, root)).toBe(true);
    expect(workTreeInside("../../tree\t ", gitDirectory, root)).toBe(true);
    expect(workTreeInside("../../tree\v", gitDirectory, root)).toBe(true);
  });

  it("reads core.worktree from [core] only, in any case, a key without = as undefined", () => {
    const text = '[core]\n\tWorkTree = ../a\n[core "x"]\n\tworktree = ../b\n[other]\n\tworktree = ../c\n[CORE]\n\tworktree\n';
    const worktrees = configAssignments(text).filter(({ key }) => key === "core.worktree");
    expect(worktrees.map(({ value }) => value)).toEqual([" ../a", undefined]);
    expect(configAssignments('[remote "origin"]\n\turl = ../src\n[branch "main"]\n\tremote = x \\\n')).toEqual([
      { key: "remote.<name>.url", value: " ../src" },
    ]);
  });
});
