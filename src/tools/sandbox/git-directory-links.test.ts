import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DIRECTORY_FLAGS } from "./byte-paths.js";
import { alternatesRelinked, gitDirectoryLinkLimits, moveOutwardEntries, outwardGitEntries } from "./git-directory-links.js";

/** Places the next spawn binds read-only or pins, so a link left there (even leading inside) refuses it. */
const UNPINNABLE_PLACES = [
  "worktrees/x",
  "worktrees/level/y",
  "hooks",
  "config",
  "rebase-merge",
  "worktrees/wt/config.worktree",
  "worktrees/wt/objects/info",
  "worktrees/wt2/objects",
];

describe("outwardGitEntries", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** A workspace with a git directory `sub/.git` (refs, logs, objects) and a directory outside it. */
  function layout() {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-git-links-")));
    made.push(base);
    const root = path.join(base, "ws");
    const outside = path.join(base, "outside");
    const git = path.join(root, "sub", ".git");
    for (const directory of ["refs/heads", "logs/refs/heads", "objects/info", "objects/pack", "objects/ab", "modules/m"]) {
      mkdirSync(path.join(git, directory), { recursive: true });
    }
    mkdirSync(outside);
    writeFileSync(path.join(outside, "victim"), "x\n");
    writeFileSync(path.join(root, "inside"), "y\n");
    mkdirSync(path.join(root, "other", ".git", "objects"), { recursive: true });
    const descriptor = openSync(git, DIRECTORY_FLAGS);
    return { root, outside, git, descriptor };
  }

  it("finds links leading out of the workspace or nowhere, at any depth, and keeps links leading inside", () => {
    const { root, outside, git, descriptor } = layout();
    try {
      symlinkSync(path.join(outside, "victim"), path.join(git, "COMMIT_EDITMSG"));
      symlinkSync(path.join(outside, "not-yet"), path.join(git, "logs", "HEAD"));
      symlinkSync(outside, path.join(git, "objects", "pack-dir"));
      symlinkSync("../../../../inside", path.join(git, "refs", "heads", "main"));
      symlinkSync(path.join(outside, "victim"), path.join(git, "logs", "refs", "heads", "main"));
      // A loose object is looked at (git reads it by name, unchecked).
      symlinkSync(path.join(outside, "victim"), path.join(git, "objects", "ab", "cdef"));
      // Not looked at: submodule git directories (their own pass), earlier quarantines.
      symlinkSync(path.join(outside, "victim"), path.join(git, "modules", "m", "COMMIT_EDITMSG"));
      symlinkSync(path.join(outside, "victim"), path.join(git, "atc-quarantine-link-x"));
      const found = outwardGitEntries(descriptor, root, false).map((entry) => `${entry.kind}:${entry.relative}`);
      expect(found.sort()).toEqual([
        "link:COMMIT_EDITMSG",
        "link:logs/HEAD",
        "link:logs/refs/heads/main",
        "link:objects/ab/cdef",
        "link:objects/pack-dir",
      ]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("finds links leading inside where the spawn binds or pins (control entries, worktrees/ down to a git directory), and keeps the rest", () => {
    const { root, git, descriptor } = layout();
    try {
      const inner = path.join(root, "inner");
      mkdirSync(inner);
      mkdirSync(path.join(git, "worktrees", "level"), { recursive: true });
      mkdirSync(path.join(git, "worktrees", "wt", "objects"), { recursive: true });
      mkdirSync(path.join(git, "worktrees", "wt2"), { recursive: true });
      mkdirSync(path.join(git, "worktrees", "wt3"), { recursive: true });
      writeFileSync(path.join(git, "worktrees", "wt3", "HEAD"), "ref: refs/heads/main\n");
      mkdirSync(path.join(inner, "info"));
      // Kept: an `objects` link to a directory holding no `info` (the spawn binds nothing through it).
      symlinkSync(path.join(root, "other"), path.join(git, "worktrees", "wt3", "objects"));
      writeFileSync(path.join(git, "worktrees", "wt", "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(path.join(git, "worktrees", "wt2", "HEAD"), "ref: refs/heads/main\n");
      for (const place of UNPINNABLE_PLACES) symlinkSync(inner, path.join(git, place));
      // Kept: a ref or a file of a worktree's git directory the spawn does not bind (git writes through it).
      symlinkSync(inner, path.join(git, "refs", "heads", "main"));
      symlinkSync(inner, path.join(git, "worktrees", "wt", "ORIG_HEAD"));
      const found = outwardGitEntries(descriptor, root, false);
      expect(found.map(({ relative, kind }) => `${kind} ${relative}`).sort()).toEqual(
        UNPINNABLE_PLACES.map((place) => `unpinnable ${place}`).sort(),
      );
      const moved = moveOutwardEntries(descriptor, "sub/.git", found, new Date(0));
      expect(moved.find((state) => state.from === "sub/.git/worktrees/x")).toEqual({
        from: "sub/.git/worktrees/x",
        to: "sub/.git/atc-quarantine-unpinnable-worktrees-x-19700101T000000Z",
        outwardEntry: "unpinnable",
      });
      expect(outwardGitEntries(descriptor, root, false)).toEqual([]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("judges alternates only when asked: outside, quoted and unreadable ones out; inside ones and comments kept", () => {
    const { root, outside, git, descriptor } = layout();
    const alternates = path.join(git, "objects", "info", "alternates");
    const judged = (text: string) => {
      writeFileSync(alternates, text);
      return outwardGitEntries(descriptor, root, true).map((entry) => `${entry.kind}:${entry.relative}`);
    };
    try {
      expect(judged(`${outside}\n`)).toEqual(["alternates:objects/info/alternates"]);
      expect(judged(`# ${outside}\n../../../other/.git/objects\n`)).toEqual([]);
      expect(judged(`${path.join(root, "other", ".git", "objects")}\n`)).toEqual([]);
      expect(judged(`"${outside}"\n`)).toEqual(["alternates:objects/info/alternates"]);
      expect(judged("../../../../outside\n")).toEqual(["alternates:objects/info/alternates"]);
      symlinkSync(outside, path.join(root, "out"));
      expect(judged("../../../out\n")).toEqual(["alternates:objects/info/alternates"]);
      writeFileSync(alternates, `${outside}\n`);
      expect(outwardGitEntries(descriptor, root, false)).toEqual([]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("finds a protected repository's alternates relinked out: inside names only, through a link now leading out", () => {
    const { root, outside, git, descriptor } = layout();
    const alternates = path.join(git, "objects", "info", "alternates");
    try {
      mkdirSync(path.join(root, "store", "objects"), { recursive: true });
      writeFileSync(alternates, `${path.join(root, "store", "objects")}\n`);
      expect(alternatesRelinked(descriptor, root)).toBe(false);
      // The host's own setup naming an outside store is not judged.
      writeFileSync(alternates, `${outside}\n# x\n`);
      expect(alternatesRelinked(descriptor, root)).toBe(false);
      rmSync(path.join(root, "store"), { recursive: true });
      symlinkSync(outside, path.join(root, "store"));
      writeFileSync(alternates, `${outside}\n${path.join(root, "store", "objects")}\n`);
      expect(alternatesRelinked(descriptor, root)).toBe(true);
      writeFileSync(alternates, "../../../store/objects\n");
      expect(alternatesRelinked(descriptor, root)).toBe(true);
    } finally {
      closeSync(descriptor);
    }
  });

  it("names what it moves within a file name's 255 bytes, however long the path it was at", () => {
    const { root, outside, git, descriptor } = layout();
    try {
      // Three directories of 200-byte names (multi-byte characters among them): the path is 600+ bytes.
      const deep = path.join(git, "refs", "é".repeat(100), "x".repeat(200), "y".repeat(200));
      mkdirSync(deep, { recursive: true });
      symlinkSync(path.join(outside, "victim"), path.join(deep, "main"));
      symlinkSync(path.join(outside, "victim"), path.join(deep, "other"));
      const moved = moveOutwardEntries(descriptor, "sub/.git", outwardGitEntries(descriptor, root, false), new Date(0));
      expect(moved.map((entry) => path.basename(entry.from))).toEqual(["main", "other"]);
      const names = moved.map((entry) => path.basename(entry.to));
      expect(new Set(names).size).toBe(2);
      for (const name of names) {
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
        expect(name).toMatch(/^atc-quarantine-link-refs-é+/);
        expect(readlinkSync(path.join(git, name))).toBe(path.join(outside, "victim"));
      }
      // Control: a short path keeps its whole name.
      symlinkSync(path.join(outside, "victim"), path.join(git, "refs", "heads", "main"));
      expect(moveOutwardEntries(descriptor, "sub/.git", outwardGitEntries(descriptor, root, false), new Date(0))).toEqual([
        {
          from: "sub/.git/refs/heads/main",
          to: "sub/.git/atc-quarantine-link-refs-heads-main-19700101T000000Z",
          outwardEntry: "link",
        },
      ]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("moves only a link: what a racing command swapped in for it after the walk is put back and not reported", () => {
    const { root, outside, git, descriptor } = layout();
    try {
      const hooks = path.join(git, "hooks");
      symlinkSync(outside, hooks);
      const found = outwardGitEntries(descriptor, root, false);
      expect(found).toEqual([{ relative: "hooks", kind: "link" }]);
      // Between the walk and the move a command of the workspace still running exchanges the link for a directory.
      rmSync(hooks);
      mkdirSync(hooks);
      writeFileSync(path.join(hooks, "kept"), "z\n");
      expect(moveOutwardEntries(descriptor, "sub/.git", found, new Date(0))).toEqual([]);
      expect(readdirSync(hooks)).toEqual(["kept"]);
      expect(readdirSync(git).filter((name) => name.startsWith("atc-quarantine"))).toEqual([]);
      // Control: the link itself is moved and reported.
      rmSync(hooks, { recursive: true });
      symlinkSync(outside, hooks);
      expect(moveOutwardEntries(descriptor, "sub/.git", found, new Date(0))).toEqual([
        { from: "sub/.git/hooks", to: "sub/.git/atc-quarantine-link-hooks-19700101T000000Z", outwardEntry: "link" },
      ]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("moves each entry to the top of its git directory, where git reads nothing", () => {
    const { root, outside, git, descriptor } = layout();
    try {
      symlinkSync(path.join(outside, "victim"), path.join(git, "logs", "refs", "heads", "main"));
      const moved = moveOutwardEntries(descriptor, "sub/.git", outwardGitEntries(descriptor, root, false), new Date(0));
      expect(moved).toEqual([
        {
          from: "sub/.git/logs/refs/heads/main",
          to: "sub/.git/atc-quarantine-link-logs-refs-heads-main-19700101T000000Z",
          outwardEntry: "link",
        },
      ]);
      expect(readlinkSync(path.join(git, "atc-quarantine-link-logs-refs-heads-main-19700101T000000Z"))).toBe(
        path.join(outside, "victim"),
      );
      expect(outwardGitEntries(descriptor, root, false)).toEqual([]);
    } finally {
      closeSync(descriptor);
    }
  });

  it("lists git's own directories before a flood, and gives what its bounds leave unlisted to be moved aside", () => {
    const { root, outside, git, descriptor } = layout();
    const bounds = { ...gitDirectoryLinkLimits };
    try {
      gitDirectoryLinkLimits.maxDirectories = 20;
      gitDirectoryLinkLimits.maxDepth = 6;
      // A flood at the top of the git directory, git never reads it.
      for (let index = 0; index < 30; index++) mkdirSync(path.join(git, `f${index}`));
      symlinkSync(path.join(outside, "victim"), path.join(git, "objects", "ab", "cdef"));
      symlinkSync(path.join(outside, "victim"), path.join(git, "logs", "refs", "heads", "main"));
      // Deeper than the depth bound: `refs/heads/a/b/c` is the last level listed, its child is moved aside.
      mkdirSync(path.join(git, "refs", "heads", "a", "b", "c", "d", "e"), { recursive: true });
      const found = outwardGitEntries(descriptor, root, false);
      const links = found.filter((entry) => entry.kind === "link").map((entry) => entry.relative);
      const unlisted = found.filter((entry) => entry.kind === "unlisted").map((entry) => entry.relative);
      expect(links.sort()).toEqual(["logs/refs/heads/main", "objects/ab/cdef"]);
      expect(unlisted).toContain("refs/heads/a/b/c/d");
      // Only the flood's directories are left past the bound (20 listed, the rest unlisted).
      expect(unlisted.filter((relative) => !/^f\d+$/.test(relative))).toEqual(["refs/heads/a/b/c/d"]);
      expect(unlisted.length).toBeGreaterThan(10);
      const moved = moveOutwardEntries(descriptor, "sub/.git", found, new Date(0));
      expect(moved.filter((state) => state.outwardEntry === "unlisted")).toHaveLength(unlisted.length);
      gitDirectoryLinkLimits.maxDirectories = bounds.maxDirectories;
      expect(outwardGitEntries(descriptor, root, false)).toEqual([]);
    } finally {
      Object.assign(gitDirectoryLinkLimits, bounds);
      closeSync(descriptor);
    }
  });
});
