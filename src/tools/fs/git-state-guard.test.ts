import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldGitName, protectedBelowSomeDirectory, protectedInGitDirectory, touchesGitState } from "./git-state-guard.js";

/** Components that name git state somewhere, their neighbours, their case variants, and plain names. */
const COMPONENTS = [
  "config",
  "CONFIG",
  "config.worktree",
  "hooks",
  "commondir",
  "gitdir",
  "info",
  "worktrees",
  ".git",
  ".GIT",
  "objects",
  "modules",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "atc-quarantine-rebase-merge-1",
  "head",
  "HEAD",
  "refs",
  "src",
  "a.txt",
  "configs",
  "infos",
  // Unicode and NTFS look-alikes (see foldGitName) and ordinary names with such characters.
  ".g\u200cit",
  "\uff0e\uff47\uff49\uff54",
  ".git. ",
  "git~1",
  ".git::$INDEX_ALLOCATION",
  "config:x",
  "notes:v2",
  "hoo\u212as",
  "\uff43\uff4f\uff4e\uff46\uff49\uff47",
  "obje\u200bcts",
  "caf\u00e9",
  "\uff4e\uff4f\uff54\uff45\uff53.txt",
];

describe("protectedBelowSomeDirectory", () => {
  // The walks skip every `.git` look for a path this says false of (confined-file-scope.ts,
  // `gitFileLooked`): it must be true whenever any suffix is git state, as the per-depth check says.
  it("is true exactly when some suffix of the path is git state below a git directory", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...COMPONENTS), { maxLength: 7 }), (segments) => {
        const perDepth = segments.some((_, depth) => protectedInGitDirectory(segments.slice(depth)));
        expect(protectedBelowSomeDirectory(segments)).toBe(perDepth);
      }),
      { numRuns: 5000 },
    );
  });

  it("examples: objects/info after an earlier objects, a sequencer directory below another, plain paths", () => {
    expect(protectedBelowSomeDirectory(["objects", "pack", "objects", "info", "alternates"])).toBe(true);
    expect(protectedBelowSomeDirectory(["d", "sequencer", "todo"])).toBe(true);
    expect(protectedBelowSomeDirectory(["d", "config"])).toBe(true);
    expect(protectedBelowSomeDirectory(["vendor", "nm", "zod", "lib", "index.js"])).toBe(false);
    expect(protectedBelowSomeDirectory(["d", "HEAD"])).toBe(false);
  });
});

describe("foldGitName: the spellings a file system may take for one name", () => {
  it("refuses the look-alikes of .git and of names git executes that a folding file system could take for them", () => {
    for (const dotGit of [
      ".GIT",
      ".g\u200cit", // HFS+ ignores the zero-width non-joiner
      ".gi\ufefft", // and the byte order mark
      "\uff0e\uff47\uff49\uff54", // fullwidth (NFKC)
      ".\uff27\uff29\uff34",
      ".git.", // NTFS drops trailing dots and spaces
      ".git ",
      "GIT~1", // NTFS short name
      ".git::$INDEX_ALLOCATION", // NTFS: the directory's own index stream
      ".GIT:x", // NTFS: a stream of .git
      ".git. :stream",
      "git~1::$INDEX_ALLOCATION",
    ]) {
      expect(foldGitName(dotGit), JSON.stringify(dotGit)).toBe(".git");
      expect(touchesGitState(["src", dotGit]), JSON.stringify(dotGit)).toBe(true);
      expect(touchesGitState([dotGit, "config"]), JSON.stringify(dotGit)).toBe(true);
    }
    // Kelvin sign and long s: Unicode case folding makes them k and s.
    expect(touchesGitState([".git", "hoo\u212as", "pre-commit"])).toBe(true);
    expect(touchesGitState([".git", "hook\u017f", "pre-commit"])).toBe(true);
    expect(touchesGitState([".git", "\uff43\uff4f\uff4e\uff46\uff49\uff47"])).toBe(true);
    expect(touchesGitState([".git", "config."])).toBe(true);
    expect(protectedInGitDirectory(["obje\u200bcts", "info", "alternates"])).toBe(true);
    expect(protectedBelowSomeDirectory(["x", "re\u200cbase-merge", "git-rebase-todo"])).toBe(true);
  });

  it("control: ordinary names with such characters stay ordinary", () => {
    for (const name of [
      "\uff4e\uff4f\uff54\uff45\uff53.txt", // fullwidth notes.txt
      "caf\u00e9.txt",
      "cafe\u0301.txt",
      "re\u200cadme.md",
      ".gitignore",
      "\uff0e\uff47\uff49\uff54\uff49\uff47\uff4e\uff4f\uff52\uff45", // fullwidth .gitignore
      ".gi\u0307t", // a combining dot: no file system folds it away
      "git~2",
      "digit~1",
      ".gitx::$INDEX_ALLOCATION",
      "notes:v2.txt",
      ":git",
      "...",
      ". .",
    ]) {
      expect(touchesGitState([name]), JSON.stringify(name)).toBe(false);
      expect(touchesGitState(["src", name, "config"]), JSON.stringify(name)).toBe(false);
    }
    expect(touchesGitState(["\uff43\uff4f\uff4e\uff46\uff49\uff47"])).toBe(false);
    expect(protectedBelowSomeDirectory(["src", "\uff4e\uff4f\uff54\uff45\uff53.txt"])).toBe(false);
  });
});
