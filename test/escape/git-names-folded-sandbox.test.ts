/**
 * Look-alikes of git's names under the bubblewrap sandbox. On a case- or normalisation-folding
 * file system (ext4 or tmpfs with `casefold`, vfat, exFAT, NTFS, CIFS; APFS on macOS) the `.GIT`
 * a command writes is the `.git` host git opens, `head` is `HEAD`, and `HOOKS/` in a git directory
 * is the `hooks/` it runs: the sandbox's scans compared listed names as bytes and overlooked them.
 * No folding file system can be mounted here (the kernel lacks `CONFIG_UNICODE`, see
 * git-names-folded-decisions.test.ts), so these attempts run on an ordinary Linux file system,
 * where host git does not take the look-alike for git's name, and check what the sandbox does
 * with it: a `.GIT` pointer is followed to the repository it names (whose planted config is
 * moved aside) and kept read-only at the next spawn, a `head` git accepts makes its directory a
 * protected git directory, and look-alikes made in a git directory are moved aside (those present
 * at spawn kept read-only). Each has a positive control: the ordinary name beside it
 * (`notes.TXT`) is untouched.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

function hostGit(cwd: string, args: readonly string[]): void {
  execFileSync("git", [...args], { cwd, stdio: "ignore", timeout: 20_000 });
}

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: look-alikes of git's names"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  async function workspace(): Promise<string> {
    const ground = await playground();
    grounds.push(ground);
    hostGit(ground.workspace, ["init", "-q", "-b", "main"]);
    return ground.workspace;
  }

  const FSMONITOR = "printf '[core]\\n\\tbare = true\\n\\tfsmonitor = touch /tmp/never-run; echo\\n'";

  escapeAttempt("git-metadata", "a .GIT pointer to a repository the walk skips has its config moved aside", async () => {
    const root = await workspace();
    // `.GIT` (folded: `.git`) and, as the positive control, `notes.TXT` with the same content.
    for (const [name, repository] of [
      [".GIT", "evil"],
      ["notes.TXT", "other"],
    ] as const) {
      const attack = `git init -q --bare node_modules/${repository} && ${FSMONITOR} > node_modules/${repository}/config && mkdir -p sub-${repository} && printf 'gitdir: ../node_modules/${repository}\\n' > sub-${repository}/${name} && echo planted`;
      const result = await sh(attackRun(root, "workspace"), attack);
      expect(result.stdout, result.text).toContain("planted");
    }
    // Host git on a folding file system would run the fsmonitor of node_modules/evil from sub-evil.
    expect(existsSync(path.join(root, "node_modules/evil/config"))).toBe(false);
    expect(readdirSync(path.join(root, "node_modules/evil")).some((name) => name.startsWith("atc-quarantine-config-"))).toBe(
      true,
    );
    expect(readFileSync(path.join(root, "node_modules/other/config"), "utf8")).toContain("fsmonitor");
  });

  escapeAttempt(
    "git-metadata",
    "a .GIT pointer present at spawn is read-only, and so is the git directory it names",
    async () => {
      const root = await workspace();
      for (const [name, repository] of [
        [".GIT", "evil"],
        ["notes.TXT", "other"],
      ] as const) {
        hostGit(root, ["init", "-q", "--bare", `node_modules/${repository}`]);
        mkdirSync(path.join(root, `sub-${repository}`));
        writeFileSync(path.join(root, `sub-${repository}`, name), `gitdir: ../node_modules/${repository}\n`);
      }
      const run = attackRun(root, "workspace");
      const rewrite = await sh(run, "echo 'gitdir: /tmp' > sub-evil/.GIT && echo rewrote");
      expect(rewrite.stdout, rewrite.text).not.toContain("rewrote");
      const config = await sh(run, `${FSMONITOR} > node_modules/evil/config && echo planted`);
      expect(config.stdout, config.text).not.toContain("planted");
      expect(readFileSync(path.join(root, "sub-evil/.GIT"), "utf8")).toContain("node_modules/evil");
      // Positive control: the ordinary name and the repository only it names stay writable.
      const control = await sh(
        run,
        `echo 'gitdir: /tmp' > sub-other/notes.TXT && ${FSMONITOR} > node_modules/other/config && echo wrote`,
      );
      expect(control.stdout, control.text).toContain("wrote");
    },
  );

  escapeAttempt("git-metadata", "a head git accepts makes its directory a protected git directory", async () => {
    const root = await workspace();
    for (const directory of ["bare", "plain"]) {
      mkdirSync(path.join(root, directory));
      writeFileSync(path.join(root, directory, "config"), "[core]\n\tbare = true\n");
    }
    writeFileSync(path.join(root, "bare/head"), "ref: refs/heads/main\n");
    // Positive control: a `head` git does not accept leaves its directory an ordinary one.
    writeFileSync(path.join(root, "plain/head"), "a head of lettuce\n");
    const run = attackRun(root, "workspace");
    const planted = await sh(run, "printf '\\tfsmonitor = touch /tmp/never-run\\n' >> bare/config && echo planted");
    expect(planted.stdout, planted.text).not.toContain("planted");
    expect(readFileSync(path.join(root, "bare/config"), "utf8")).not.toContain("fsmonitor");
    const control = await sh(run, "printf '\\tname = x\\n' >> plain/config && echo wrote");
    expect(control.stdout, control.text).toContain("wrote");
  });

  escapeAttempt(
    "git-metadata",
    "a head a command writes makes its directory a new git directory whose config is moved aside",
    async () => {
      const root = await workspace();
      const attack = [
        "mkdir made plain",
        "printf 'ref: refs/heads/main\\n' > made/head",
        // Positive control: a `head` git does not accept.
        "echo 'a head of lettuce' > plain/head",
        `${FSMONITOR} > made/config`,
        `${FSMONITOR} > plain/config`,
        "echo planted",
      ].join(" && ");
      const result = await sh(attackRun(root, "workspace"), attack);
      expect(result.stdout, result.text).toContain("planted");
      expect(existsSync(path.join(root, "made/config"))).toBe(false);
      expect(readdirSync(path.join(root, "made")).some((name) => name.startsWith("atc-quarantine-config-"))).toBe(true);
      expect(readFileSync(path.join(root, "plain/config"), "utf8")).toContain("fsmonitor");
    },
  );

  escapeAttempt("git-metadata", "look-alikes a command makes in the workspace's .git are moved aside", async () => {
    const root = await workspace();
    const gitDirectory = path.join(root, ".git");
    const attack = [
      "mkdir .git/HOOKS",
      "printf '#!/bin/sh\\ntouch /tmp/never-run\\n' > .git/HOOKS/pre-commit",
      "printf '[core]\\n\\tfsmonitor = touch /tmp/never-run\\n' > .git/CONFIG.WORKTREE",
      "echo /tmp > .git/Commondir",
      "mkdir .git/Rebase-Merge",
      "echo note > .git/NOTES.TXT",
      "echo planted",
    ].join(" && ");
    const result = await sh(attackRun(root, "workspace"), attack);
    expect(result.stdout, result.text).toContain("planted");
    for (const name of ["HOOKS", "CONFIG.WORKTREE", "Commondir", "Rebase-Merge"]) {
      expect(existsSync(path.join(gitDirectory, name)), name).toBe(false);
      expect(
        readdirSync(gitDirectory).some((entry) => entry.startsWith(`atc-quarantine-${name}-`)),
        name,
      ).toBe(true);
    }
    expect(result.text).toContain(
      "[moved aside a look-alike of a git directory's hooks that was not there when the command started: .git/HOOKS -> .git/atc-quarantine-HOOKS-",
    );
    // Positive control: an ordinary name in the same directory stays.
    expect(readFileSync(path.join(gitDirectory, "NOTES.TXT"), "utf8")).toBe("note\n");
  });

  escapeAttempt("git-metadata", "look-alikes present at spawn are read-only and stay where they are", async () => {
    const root = await workspace();
    const gitDirectory = path.join(root, ".git");
    mkdirSync(path.join(gitDirectory, "HOOKS"));
    writeFileSync(path.join(gitDirectory, "HOOKS", "README"), "the user's\n");
    writeFileSync(path.join(gitDirectory, "NOTES.TXT"), "note\n");
    const run = attackRun(root, "workspace");
    const planted = await sh(run, "printf '#!/bin/sh\\n' > .git/HOOKS/pre-commit && echo planted");
    expect(planted.stdout, planted.text).not.toContain("planted");
    const moved = await sh(run, "mv .git/HOOKS .git/elsewhere && echo moved");
    expect(moved.stdout, moved.text).not.toContain("moved");
    expect(readdirSync(path.join(gitDirectory, "HOOKS"))).toEqual(["README"]);
    // Positive control: the ordinary name beside it is writable.
    const control = await sh(run, "echo changed > .git/NOTES.TXT && echo wrote");
    expect(control.stdout, control.text).toContain("wrote");
  });
});
