/**
 * The sandbox's own git-state decisions compare names folded (src/tools/sandbox/git-names.ts), as
 * the file tools' guard does: on a case- or normalisation-folding file system (APFS/HFS+, ext4 or
 * tmpfs with `casefold`, vfat, exFAT, NTFS, CIFS) a `.GIT` or `head` a command makes is the
 * `.git` or `HEAD` host git opens, and `HOOKS/` in a git directory the `hooks/` it runs. No
 * folding file system can be mounted on the machine these tests were written on (the kernel has
 * no `CONFIG_UNICODE`: `mkfs.ext4 -O casefold` and tmpfs `casefold` mounts are refused; no vfat),
 * so the folding case is tested here at the level of each decision, and end to end on Linux by
 * what the sandbox does with the look-alike (git-names-folded-sandbox.test.ts).
 */
import type { Dirent } from "node:fs";
import { describe, expect, it } from "vitest";
import { foldGitName, isDotGitName, isGitNameSpelling, isHeadName } from "../../src/tools/sandbox/git-names.js";
import { gitDirectoryLookAlike, gitEntries } from "../../src/tools/sandbox/git-protection.js";
import { CASELESS_GIT_STATE_PATTERN, sandboxExecProfile } from "../../src/tools/sandbox/sandbox-exec-profile.js";

/** Spellings a file system may take for `.git` (case, Unicode case, HFS+ ignorables, NTFS). */
const DOT_GIT_SPELLINGS = [
  ".git",
  ".GIT",
  ".Git",
  ".gIt",
  ".g\u200cit",
  "\ufeff.git",
  ".git.",
  ".git ",
  ".git. .",
  "git~1",
  "GIT~1",
  ".git::$INDEX_ALLOCATION",
  ".ｇｉｔ",
  "．git",
];
const HEAD_SPELLINGS = ["HEAD", "head", "Head", "HEAD.", "HE\u200dAD", "ＨＥＡＤ", "HEAD::$DATA"];
/** Ordinary names, some close to git's: never taken for it. */
const ORDINARY = [
  ".gitignore",
  ".gitmodules",
  ".github",
  "git",
  ".gi",
  "gitx",
  "notes.TXT",
  "HEADER",
  "ahead",
  "head.txt",
  "",
  ".",
  "..",
];

function dirent(name: string, kind: "file" | "directory" | "link"): Dirent {
  return {
    name,
    isFile: () => kind === "file",
    isDirectory: () => kind === "directory",
    isSymbolicLink: () => kind === "link",
  } as unknown as Dirent;
}

describe("the sandbox's git names, folded", () => {
  it("takes every spelling of .git and HEAD for them, and no ordinary name", () => {
    for (const name of DOT_GIT_SPELLINGS) expect(isDotGitName(name), JSON.stringify(name)).toBe(true);
    for (const name of HEAD_SPELLINGS) expect(isHeadName(name), JSON.stringify(name)).toBe(true);
    for (const name of ORDINARY) {
      expect(isDotGitName(name), JSON.stringify(name)).toBe(false);
      expect(isHeadName(name), JSON.stringify(name)).toBe(false);
    }
    expect(isHeadName(undefined)).toBe(false);
  });

  it("answers a plain name without folding exactly as folding does (the quick path loses no spelling)", () => {
    // Every printable ASCII first character before `.git`'s, `head`'s and `hooks`' tails, and a few non-ASCII ones.
    const firsts = [
      ...Array.from({ length: 95 }, (_, index) => String.fromCharCode(0x20 + index)),
      "\u200c",
      "．",
      "Ｈ",
      "\u212a",
    ];
    for (const folded of [".git", "head", "hooks", "config"]) {
      for (const first of firsts) {
        const rest = folded.slice(1);
        for (const tail of [
          rest,
          rest.toUpperCase(),
          `${rest}.`,
          `${rest} .`,
          `${rest}::$DATA`,
          `${rest}:x. `,
          `${rest}.ts`,
          `${rest}x`,
          rest.slice(1),
          "it~1",
          "IT~1.",
          "it~1:x",
          "it~2",
        ]) {
          const name = `${first}${tail}`;
          expect(isGitNameSpelling(name, folded), JSON.stringify(name)).toBe(foldGitName(name) === folded);
        }
      }
    }
  });

  it("folds NTFS alternate data streams to the file they belong to", () => {
    expect(foldGitName("config::$DATA")).toBe("config");
    expect(foldGitName("hooks:stream:$DATA")).toBe("hooks");
    expect(foldGitName(".git::$INDEX_ALLOCATION")).toBe(".git");
    // A leading colon is no stream of anything.
    expect(foldGitName(":config")).toBe(":config");
  });

  it("lists a directory's .git and HEAD entries by the names they have (the scan's and the walk's decision)", () => {
    const entries = [
      dirent(".GIT", "file"),
      dirent(".git.", "directory"),
      dirent("head", "file"),
      dirent("Head", "link"),
      dirent("HEAD.", "directory"),
      dirent("notes.TXT", "file"),
      dirent(".gitignore", "file"),
      dirent("src", "directory"),
    ];
    expect(gitEntries(entries)).toEqual({ dotGits: [".GIT", ".git."], heads: ["head", "Head"] });
    // Positive control: the names themselves.
    expect(gitEntries([dirent(".git", "directory"), dirent("HEAD", "file")])).toEqual({ dotGits: [".git"], heads: ["HEAD"] });
    expect(gitEntries([dirent("notes.TXT", "file")])).toEqual({ dotGits: [], heads: [] });
  });

  it("finds the look-alikes of git's names in a git directory (the spawn's and the after-command decision)", () => {
    const cases: [string, string | undefined][] = [
      ["HOOKS", "hooks"],
      ["hoo\u212as", "hooks"],
      ["Hooks.", "hooks"],
      ["CONFIG", "config"],
      ["config::$DATA", "config"],
      ["CONFIG.WORKTREE", "config.worktree"],
      ["Commondir", "commondir"],
      ["GITDIR", "gitdir"],
      ["INFO", "info"],
      ["Rebase-Merge", "rebase-merge"],
      ["REBASE-APPLY", "rebase-apply"],
      ["Sequencer", "sequencer"],
      ["ｃｏｎｆｉｇ", "config"],
      // The names themselves are protected by name, not as look-alikes; other names are not git's.
      ["hooks", undefined],
      ["config", undefined],
      ["rebase-merge", undefined],
      ["description", undefined],
      ["config.lock", undefined],
      ["NOTES.TXT", undefined],
      ["atc-quarantine-HOOKS-20260101T000000Z", undefined],
    ];
    for (const [name, folded] of cases) expect(gitDirectoryLookAlike(name), JSON.stringify(name)).toBe(folded);
  });

  it("keeps the macOS profile's caseless rule to the git state in a .git (the sandbox-exec decision)", () => {
    const pattern = new RegExp(CASELESS_GIT_STATE_PATTERN);
    const denied = [
      "/ws/.git/HOOKS/pre-commit",
      "/ws/.git/Hooks",
      "/ws/.git/hoo\u212as/post-checkout",
      "/ws/.git/hook\u017f/post-checkout",
      "/ws/.git/CONFIG",
      "/ws/.git/Config.Worktree",
      "/ws/.git/COMMONDIR",
      "/ws/.git/GitDir",
      "/ws/.git/INFO/attributes",
      "/ws/.git/OBJECTS/Info/alternates",
      "/ws/.GIT/hooks/pre-commit",
      "/ws/.git/config",
    ];
    const allowed = [
      "/ws/.git/objects/ab/cdef",
      "/ws/.git/HEAD",
      "/ws/.git/index",
      "/ws/.git/configs",
      "/ws/.git/hooksx/a",
      "/ws/src/HOOKS/a",
      "/ws/notes.TXT",
    ];
    for (const target of denied) expect(pattern.test(target), target).toBe(true);
    for (const target of allowed) expect(pattern.test(target), target).toBe(false);
    // Applied only inside the workspace's own .git, and as a deny.
    expect(sandboxExecProfile("workspace")).toContain(
      `(require-not (require-all (subpath (param "GIT_DIR")) (regex #"${CASELESS_GIT_STATE_PATTERN}")))`,
    );
  });
});
