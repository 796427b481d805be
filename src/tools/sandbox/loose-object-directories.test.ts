import { execFileSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DIRECTORY_FLAGS } from "./byte-paths.js";
import { outwardGitEntries } from "./git-directory-links.js";
import { gitScanTiming } from "./git-protection.js";
import { looseDirectoryCounts } from "./loose-object-directories.js";

/** Past the margin set below: what the walk lists now is settled. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

describe("loose-object directories the link walk skips", () => {
  const made: string[] = [];
  let previous = 0n;
  beforeAll(() => {
    previous = gitScanTiming.racyMarginNs;
    gitScanTiming.racyMarginNs = 100_000_000n;
  });
  afterAll(() => {
    gitScanTiming.racyMarginNs = previous;
  });
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** A workspace with a git directory holding loose-object directories `ab` (one object) and `cd` (empty), settled and walked once. */
  async function walked() {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-loose-skip-")));
    made.push(base);
    const root = path.join(base, "ws");
    const git = path.join(root, ".git");
    mkdirSync(path.join(git, "objects", "ab"), { recursive: true });
    mkdirSync(path.join(git, "objects", "cd"));
    writeFileSync(path.join(git, "objects", "ab", "0123"), "x");
    mkdirSync(path.join(base, "outside"));
    writeFileSync(path.join(base, "outside", "victim"), "v");
    const descriptor = openSync(git, DIRECTORY_FLAGS);
    await settle();
    const found = (): string[] =>
      outwardGitEntries(descriptor, root, false)
        .map((entry) => entry.relative)
        .sort();
    expect(found()).toEqual([]);
    return { base, root, git, descriptor, found, victim: path.join(base, "outside", "victim") };
  }

  /** How many loose-object directories one walk listed and skipped. */
  function counted(walk: () => string[]): { found: string[]; listed: number; skipped: number } {
    const before = { ...looseDirectoryCounts };
    const found = walk();
    return { found, listed: looseDirectoryCounts.listed - before.listed, skipped: looseDirectoryCounts.skipped - before.skipped };
  }

  it("skips unchanged clean directories and lists one a link was added to, also with its times put back", async () => {
    const { git, descriptor, found, victim } = await walked();
    try {
      expect(counted(found)).toEqual({ found: [], listed: 0, skipped: 2 });
      const ab = path.join(git, "objects", "ab");
      const times = path.join(git, "..", "times");
      writeFileSync(times, "");
      execFileSync("touch", ["-r", ab, times]);
      symlinkSync(victim, path.join(ab, "4567"));
      // The modification and access times put back exactly (nanoseconds); the change time cannot be.
      execFileSync("touch", ["-r", times, ab]);
      expect(counted(found)).toEqual({ found: ["objects/ab/4567"], listed: 1, skipped: 1 });
    } finally {
      closeSync(descriptor);
    }
  });

  it("lists a directory renamed in whole, and never skips one holding a link kept because it led inside", async () => {
    const { root, git, descriptor, found, victim } = await walked();
    try {
      // Renamed in whole, with the old directory's times: a new inode.
      const prepared = path.join(root, "prepared");
      mkdirSync(prepared);
      symlinkSync(victim, path.join(prepared, "89ab"));
      execFileSync("touch", ["-r", path.join(git, "objects", "cd"), prepared]);
      rmSync(path.join(git, "objects", "cd"), { recursive: true });
      renameSync(prepared, path.join(git, "objects", "cd"));
      expect(counted(found).found).toEqual(["objects/cd/89ab"]);
      // A link leading inside (kept); once settled, what it leads to becomes a link out.
      mkdirSync(path.join(root, "store"));
      writeFileSync(path.join(root, "store", "cdef"), "x");
      symlinkSync("../../../store/cdef", path.join(git, "objects", "ab", "cdef"));
      await settle();
      expect(counted(found)).toEqual({ found: ["objects/cd/89ab"], listed: 2, skipped: 0 });
      rmSync(path.join(root, "store"), { recursive: true });
      symlinkSync(path.dirname(victim), path.join(root, "store"));
      writeFileSync(path.join(path.dirname(victim), "cdef"), "host");
      expect(counted(found)).toEqual({ found: ["objects/ab/cdef", "objects/cd/89ab"], listed: 2, skipped: 0 });
    } finally {
      closeSync(descriptor);
    }
  });
});
