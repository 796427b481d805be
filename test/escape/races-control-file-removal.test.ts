/**
 * Escape attempts on the host's clean-up after a command: the git control files a command creates
 * where none existed (`config`, `commondir`, `gitdir`, `config.worktree` of every git directory
 * found at spawn) are removed by the host, with the host's rights, once the command has ended.
 * The command moves a parent of such a git directory away (a plain workspace directory, not
 * pinned) and leaves a link to a host directory at its name, so that the path the host removes
 * leads out of the workspace, or without a link, so that the path finds nothing. Controls: the link does lead out (a host lookup by that path finds
 * the outside file), and a control file created in a git directory left in place is still removed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** Python that makes a chain of 2,100 directories `d/d/d/...` from its working directory. */
const DEEP_TREE = 'import os\nfor _ in range(2100):\n    os.mkdir("d")\n    os.chdir("d")';

/** Python that removes such a chain below its working directory, deepest first. */
const UNDO_DEEP_TREE =
  'import os\ndepth = 0\nwhile os.path.isdir("d"):\n    os.chdir("d")\n    depth += 1\nfor _ in range(depth):\n    os.chdir("..")\n    os.rmdir("d")';

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: the host's removal of created control files"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  async function ground(): Promise<Playground> {
    const made = await playground();
    grounds.push(made);
    return made;
  }

  /** A directory the scan takes for a bare repository (a `HEAD` as git writes it). */
  function bareRepository(directory: string): void {
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, "HEAD"), "ref: refs/heads/main\n");
  }

  escapeAttempt(
    "races",
    "a parent of a bare repository swapped for a link to a host directory: the host's removal of its absent config deletes the host's file",
    async () => {
      const { workspace, outside } = await ground();
      // The scan takes `a/.ssh` for a bare repository and lists `a/.ssh/config` as absent; the
      // host has a `.ssh/config` of its own under `outside`.
      bareRepository(path.join(workspace, "a", ".ssh"));
      bareRepository(path.join(workspace, "b", "kept.git"));
      mkdirSync(path.join(outside, ".ssh"));
      writeFileSync(path.join(outside, ".ssh", "config"), "Host prod\n");
      const result = await sh(
        attackRun(workspace, "workspace"),
        `printf '[core]\\n' > b/kept.git/config && mv a a-away && ln -s ${quote(outside)} a && echo swapped`,
      );
      expect(result.stdout).toBe("swapped");
      // The link leads out: a lookup by the path the host removes finds the host's file.
      expect(lstatSync(path.join(workspace, "a", ".ssh", "config")).isFile()).toBe(true);
      expect(existsSync(path.join(outside, ".ssh", "config"))).toBe(true);
      // Control: the control file created in the repository left in place is removed, and said so.
      expect(existsSync(path.join(workspace, "b", "kept.git", "config"))).toBe(false);
      expect(result.text).toContain("b/kept.git/config");
      expect(result.text).not.toContain("a/.ssh/config");
    },
    20_000,
  );

  escapeAttempt(
    "races",
    "a parent of a nested .git swapped for a link: the host's recursive removal of an absent gitdir empties a host directory of that name",
    async () => {
      const { workspace, outside } = await ground();
      bareRepository(path.join(workspace, "vendor", "lib", ".git"));
      mkdirSync(path.join(outside, "lib", ".git", "gitdir", "keep"), { recursive: true });
      writeFileSync(path.join(outside, "lib", ".git", "gitdir", "keep", "data"), "host data\n");
      const result = await sh(
        attackRun(workspace, "workspace"),
        `mv vendor vendor-away && ln -s ${quote(outside)} vendor && echo swapped`,
      );
      expect(result.stdout).toBe("swapped");
      expect(lstatSync(path.join(workspace, "vendor", "lib", ".git", "gitdir")).isDirectory()).toBe(true);
      expect(readdirSync(path.join(outside, "lib", ".git", "gitdir", "keep"))).toEqual(["data"]);
      // Control: the same name created in place is removed (a directory too).
      const control = await sh(attackRun(workspace, "workspace"), "mkdir -p vendor-away/lib/.git/gitdir/x && echo made");
      expect(control.stdout).toBe("made");
      expect(existsSync(path.join(workspace, "vendor-away", "lib", ".git", "gitdir"))).toBe(false);
    },
    20_000,
  );

  escapeAttempt(
    "git-metadata",
    "a config planted in a bare repository whose parent is then moved away: the removal by path finds nothing and the config stays",
    async () => {
      const { workspace } = await ground();
      bareRepository(path.join(workspace, "a", "x.git"));
      const plant = "printf '[core]\\n\\tfsmonitor = \"touch fired; echo\"\\n' > a/x.git/config && mv a a-away && echo moved";
      const result = await sh(attackRun(workspace, "workspace"), plant);
      expect(result.stdout).toBe("moved");
      expect(existsSync(path.join(workspace, "a-away", "x.git", "config"))).toBe(false);
      // The result names the file as the scan saw it.
      expect(result.text).toContain("a/x.git/config");
      // Control: under scope local (no git protection) the same command leaves the config there.
      execFileSync("rm", ["-rf", path.join(workspace, "a-away")]);
      bareRepository(path.join(workspace, "a", "x.git"));
      expect((await sh(attackRun(workspace, "local"), plant)).stdout).toBe("moved");
      expect(existsSync(path.join(workspace, "a-away", "x.git", "config"))).toBe(true);
    },
    20_000,
  );

  escapeAttempt(
    "resources",
    "a 2,100-deep tree in place of a control file: the host's removal neither overflows its stack nor stalls",
    async () => {
      const { workspace } = await ground();
      bareRepository(path.join(workspace, "deep.git"));
      // Each step is relative, so the tree's depth is bounded by nothing but the command's time
      // (its full path is over 4,200 characters, past PATH_MAX).
      const result = await sh(
        attackRun(workspace, "workspace"),
        `mkdir deep.git/commondir && cd deep.git/commondir && python3 -c ${quote(DEEP_TREE)} && echo built`,
        { timeout_seconds: 30 },
      );
      expect(result.stdout).toBe("built");
      expect(result.status).toBe("exit code 0");
      // Control: a call after it runs (the host is alive and its event loop answers).
      const control = await sh(attackRun(workspace, "workspace"), "echo alive");
      expect(control.stdout).toBe("alive");
      // What is left past the removal's depth bound (a harmless directory to git) is removed
      // step by step (the playground's path-based removal fails on its length, GNU rm took 9 s at 5,000 deep);
      // so is what the link walk moved aside past its own depth bound (round 41: `atc-quarantine-unlisted-*`).
      const git = path.join(workspace, "deep.git");
      const movedAside = readdirSync(git).filter((name) => name.startsWith("atc-quarantine-unlisted-"));
      for (const directory of ["commondir", ...movedAside]) {
        execFileSync("python3", ["-c", UNDO_DEEP_TREE], { cwd: path.join(git, directory) });
      }
    },
    30_000,
  );

  escapeAttempt(
    "resources",
    "30,000 entries in a directory in place of a control file: the removal stops at its budget and the result says what was left",
    async () => {
      const { workspace } = await ground();
      bareRepository(path.join(workspace, "w.git"));
      bareRepository(path.join(workspace, "small.git"));
      const fill = "import os\nfor i in range(30000):\n    open(str(i), 'w').close()";
      const result = await sh(
        attackRun(workspace, "workspace"),
        `mkdir -p small.git/config/x && mkdir w.git/config && cd w.git/config && python3 -c ${quote(fill)} && echo filled`,
        { timeout_seconds: 60 },
      );
      expect(result.stdout).toBe("filled");
      // What is left is said (it was not: only what was removed was named).
      expect(result.text).toMatch(/\[not removed whole: [^\]]*w\.git\/config\]/);
      const left = readdirSync(path.join(workspace, "w.git", "config")).length;
      expect(left).toBeGreaterThanOrEqual(30_000 - 10_000);
      expect(left).toBeLessThan(30_000);
      // Control: a small one is removed whole and named as removed.
      expect(existsSync(path.join(workspace, "small.git", "config"))).toBe(false);
      expect(result.text).toMatch(/\[removed git control files [^\]]*small\.git\/config/);
    },
    60_000,
  );
});
