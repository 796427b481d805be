/**
 * The gitlink quarantine (src/tools/sandbox/gitlink-quarantine.ts) decides by name: after a
 * command it looks at the `.git` of each gitlink's directory. It looked `.git` up by path, so on a
 * file system that tells names apart a `.GIT` a command made at a gitlink was never judged, and on
 * a case- or normalisation-folding one (where host `git status` enters that `.GIT` as the
 * submodule's `.git`) the spawn's protection, keyed by the name the scan used, did not match the
 * name the listing after the command gives. No folding file system can be mounted here (the
 * kernel has no `CONFIG_UNICODE`, `vfat` is not among /proc/filesystems and there is no
 * `mkfs.vfat`), so the decision is tested directly: every spelling of `.git` at a gitlink is
 * judged by the name it has, and an entry protected at spawn under any spelling (the folding
 * file system's `.git` lookup found `.GIT`) stays. Positive controls: an ordinary name beside it,
 * and a repository as `git init` leaves it, stay where they are.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { indexBudget } from "../../src/tools/sandbox/git-index-gitlinks.js";
import {
  GITLINK_LISTING_LIMIT,
  type GitlinkHolder,
  quarantineGitlinkRepositories,
} from "../../src/tools/sandbox/gitlink-quarantine.js";
import { inertGitlinkRepository } from "../../src/tools/sandbox/new-git-directories.js";
import { capability } from "../support/capabilities.js";
import { hostGit } from "./support/host-git.js";

const git = capability("git");

const FSMONITOR = "[core]\n\tbare = false\n\tfsmonitor = touch /tmp/never-run; echo\n";

describe.skipIf(git.missing)(git.label("the gitlink quarantine judges every spelling of .git"), () => {
  const made: string[] = [];
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** A workspace repository whose index lists each of `gitlinks` as a gitlink (160000). */
  function workspaceWith(gitlinks: readonly string[]): string {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-fold-gitlinks-")));
    made.push(root);
    hostGit(root, ["init", "-q", "-b", "main"]);
    writeFileSync(path.join(root, "a.txt"), "a\n");
    hostGit(root, ["add", "a.txt"]);
    hostGit(root, ["commit", "-q", "-m", "init"]);
    const commit = hostGit(root, ["rev-parse", "HEAD"]).trim();
    for (const gitlink of gitlinks) {
      hostGit(root, ["update-index", "--add", "--cacheinfo", `160000,${commit},${gitlink}`]);
      mkdirSync(path.join(root, gitlink));
    }
    return root;
  }

  /** A git directory at `directory` (by `git init`), with `config` replaced when given. */
  function gitDirectory(directory: string, config?: string): void {
    const scratch = mkdtempSync(path.join(tmpdir(), "atc-fold-init-"));
    made.push(scratch);
    hostGit(scratch, ["init", "-q", "-b", "main"]);
    execFileSync("mv", [path.join(scratch, ".git"), directory]);
    if (config !== undefined) writeFileSync(path.join(directory, "config"), config);
  }

  const quarantined = (directory: string, name: string) =>
    readdirSync(directory).some((entry) => entry.startsWith(`atc-quarantine-${name}-`));

  it("moves aside a .git a command made at a gitlink in any spelling, each by its own name", () => {
    const spellings = [".GIT", ".git.", "git~1", ".G\u200cit"];
    const root = workspaceWith(["lib", ...spellings.map((_, index) => `lib${index}`), "plain"]);
    gitDirectory(path.join(root, "lib", ".git"), FSMONITOR);
    for (const [index, name] of spellings.entries()) gitDirectory(path.join(root, `lib${index}`, name), FSMONITOR);
    // Positive control: an ordinary name at a gitlink is no repository host git enters.
    gitDirectory(path.join(root, "plain", "notes.TXT"), FSMONITOR);
    const moved = quarantineGitlinkRepositories(root, [{ root, gitDirectory: path.join(root, ".git") }], new Map());
    expect(moved.map((state) => path.relative(root, state.from)).sort()).toEqual(
      ["lib/.git", ...spellings.map((name, index) => `lib${index}/${name}`)].sort(),
    );
    spellings.forEach((name, index) => {
      expect(existsSync(path.join(root, `lib${index}`, name)), name).toBe(false);
      expect(quarantined(path.join(root, `lib${index}`), name), name).toBe(true);
    });
    expect(lstatSync(path.join(root, "plain", "notes.TXT")).isDirectory()).toBe(true);
  });

  it("keeps a .GIT protected at spawn under any spelling (a folding file system's .git lookup found it)", () => {
    const root = workspaceWith(["folded", "listed", "fresh"]);
    for (const directory of ["folded", "listed", "fresh"]) gitDirectory(path.join(root, directory, ".GIT"), FSMONITOR);
    const identity = (file: string) => {
      const stats = lstatSync(file, { bigint: true });
      return `${stats.dev}:${stats.ino}`;
    };
    const protectedDotGits = new Map([
      // The spawn scan's lookup of `folded/.git` on a folding file system opened `.GIT`.
      [path.join(root, "folded", ".git"), identity(path.join(root, "folded", ".GIT"))],
      [path.join(root, "listed", ".GIT"), identity(path.join(root, "listed", ".GIT"))],
      // Another entry's identity: `fresh/.GIT` was made in its place by the command.
      [path.join(root, "fresh", ".git"), identity(path.join(root, "listed", ".GIT"))],
    ]);
    const moved = quarantineGitlinkRepositories(root, [{ root, gitDirectory: path.join(root, ".git") }], protectedDotGits);
    expect(moved.map((state) => path.relative(root, state.from))).toEqual(["fresh/.GIT"]);
    expect(lstatSync(path.join(root, "folded", ".GIT")).isDirectory()).toBe(true);
    expect(lstatSync(path.join(root, "listed", ".GIT")).isDirectory()).toBe(true);
  });

  it("reads gitlink directories' listings within a bound, then looks .git up by name only", () => {
    const root = workspaceWith(["big", "lib"]);
    // The whole pass's listing budget, spent in the first gitlink's directory (the index's order).
    // Empty files as hard links to one outside the workspace (one link(2) each, not open(2) and close(2)).
    const empty = mkdtempSync(path.join(tmpdir(), "atc-fold-empty-"));
    made.push(empty);
    closeSync(openSync(path.join(empty, "file"), "w"));
    for (let index = 0; index < GITLINK_LISTING_LIMIT; index++)
      linkSync(path.join(empty, "file"), path.join(root, "big", `${index}`));
    gitDirectory(path.join(root, "lib", ".git"), FSMONITOR);
    gitDirectory(path.join(root, "lib", ".GIT"), FSMONITOR);
    const moved = quarantineGitlinkRepositories(root, [{ root, gitDirectory: path.join(root, ".git") }], new Map());
    // `.git` by path (on a folding file system that is the `.GIT` it holds); `.GIT` unlisted here.
    expect(moved.map((state) => path.relative(root, state.from))).toEqual(["lib/.git"]);
    expect(lstatSync(path.join(root, "lib", ".GIT")).isDirectory()).toBe(true);
  }, 180_000);

  it("judges the spelling found for what host git would run in it (planted config moved, git init's kept)", () => {
    const root = workspaceWith(["planted", "clean"]);
    gitDirectory(path.join(root, "planted", ".GIT"), FSMONITOR);
    // Positive control: as `git init` leaves it.
    gitDirectory(path.join(root, "clean", ".GIT"));
    const rootDescriptor = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    const judged: string[] = [];
    try {
      const moved = quarantineGitlinkRepositories(
        root,
        [{ root, gitDirectory: path.join(root, ".git") }],
        new Map(),
        new Date(),
        (held: GitlinkHolder, budget) => {
          judged.push(`${path.relative(root, held.shown)}/${held.dotGit}`);
          return inertGitlinkRepository({ descriptor: rootDescriptor, shown: root }, held, new Set(), budget);
        },
      );
      expect(judged.sort()).toEqual(["clean/.GIT", "planted/.GIT"]);
      expect(moved.map((state) => path.relative(root, state.from))).toEqual(["planted/.GIT"]);
      expect(lstatSync(path.join(root, "clean", ".GIT")).isDirectory()).toBe(true);
    } finally {
      closeSync(rootDescriptor);
    }
    // The judge alone, by the budget the quarantine passes: a planted `.GIT` is not inert.
    const holder = openSync(path.join(root, "clean"), constants.O_RDONLY | constants.O_DIRECTORY);
    const rootAgain = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      writeFileSync(path.join(root, "clean", ".GIT", "config"), FSMONITOR);
      expect(
        inertGitlinkRepository(
          { descriptor: rootAgain, shown: root },
          { descriptor: holder, shown: path.join(root, "clean"), dotGit: ".GIT" },
          new Set(),
          indexBudget(),
        ),
      ).toBe(false);
    } finally {
      closeSync(holder);
      closeSync(rootAgain);
    }
  });
});
