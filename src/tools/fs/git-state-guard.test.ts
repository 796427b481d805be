import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { protectedBelowSomeDirectory, protectedInGitDirectory } from "./git-state-guard.js";

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
