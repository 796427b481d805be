/**
 * Red team round 41: a `.git` pointer naming a git directory inside the workspace that leads out
 * through a link. The command makes `.git/modules/x` (left to the pass over submodule git
 * directories, which looked at directories only) a link to a host repository's git directory and
 * a directory `x` whose `.git` file names `../.git/modules/x` (as `git submodule add` writes
 * it); or names `../hostgit`, a link in the workspace to that git directory; or makes `x/.git` a
 * symlink to `../hostgit`. Host git run in `x` (the user's `git -C x log`, `commit`) then
 * worked on the host repository: read its history, moved its branch. The walk after each command
 * judged only where such a pointer's real path lands ("a target outside the workspace is not the
 * command's to write").
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit, hostGitOutput } from "./support/host-git.js";
import { oneCommitPlayground } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

type Spelling = "modules" | "worktrees" | "plain" | "symlink" | "absolute" | "update" | "inside" | "hostWorktree";
const git = capability("git");

/** The user's identity for the commit made on the host after the command. */
const USER = ["-c", "user.email=u@example.com", "-c", "user.name=U"];

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 41, a submodule git directory linked to a host repository's"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    async function modulesAttempt(scope: "workspace" | "local", spelling: Spelling) {
      const { ground, root } = await oneCommitPlayground(grounds);
      const host = path.join(ground.outside, "hostrepo");
      mkdirSync(host);
      hostGit(host, ["init", "-q", "-b", "main"]);
      writeFileSync(path.join(host, "secret.txt"), "r41-modules-secret\n");
      hostGit(host, ["add", "secret.txt"]);
      hostGit(host, ["commit", "-q", "-m", "host-secret-commit"]);
      const before = hostGit(host, ["rev-parse", "main"]).trim();
      if (spelling === "hostWorktree") hostGit(host, ["worktree", "add", "-q", "-b", "wt", path.join(root, "x")]);
      const result = await sh(
        attackRun(root, scope),
        `${
          {
            modules: `mkdir -p .git/modules x && ln -s ${quote(`${host}/.git`)} .git/modules/x && echo 'gitdir: ../.git/modules/x' > x/.git`,
            worktrees: `mkdir -p .git/worktrees x && ln -s ${quote(`${host}/.git`)} .git/worktrees/x && echo 'gitdir: ../.git/worktrees/x' > x/.git`,
            plain: `mkdir x && ln -s ${quote(`${host}/.git`)} hostgit && echo 'gitdir: ../hostgit' > x/.git`,
            symlink: `mkdir x && ln -s ${quote(`${host}/.git`)} hostgit && ln -s ../hostgit x/.git`,
            absolute: `mkdir x && echo ${quote(`gitdir: ${host}/.git`)} > x/.git`,
            // No pointer: a gitlink at `x` and `.gitmodules` naming it; the user's `git submodule update` uses `.git/modules/x` as it finds it.
            update: `mkdir -p .git/modules && ln -s ${quote(`${host}/.git`)} .git/modules/x && git update-index --add --cacheinfo 160000,${before},x && printf '[submodule "x"]\\n\\tpath = x\\n\\turl = ./nowhere\\n' > .gitmodules`,
            // Control: a pointer to a repository inside the workspace, made by the command, is kept.
            // Control: a linked worktree of the host repository the host made before the command (its `.git` file names the host's git directory) is kept.
            hostWorktree: "true",
            inside: `git init -q -b main inner && git -C inner -c user.email=m@e -c user.name=M commit -q --allow-empty -m inner-commit && mkdir x && echo 'gitdir: ../inner/.git' > x/.git`,
          }[spelling]
        } && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      let log = "";
      try {
        if (spelling === "update") hostGitOutput(root, ["submodule", "-q", "update", "--init"]);
        log = hostGitOutput(path.join(root, "x"), ["log", "--format=%s", "-1"]);
        hostGitOutput(path.join(root, "x"), [...USER, "commit", "-q", "--allow-empty", "-m", "user"]);
      } catch (error) {
        log += String(error);
      }
      const after = hostGit(host, ["rev-parse", "main"]).trim();
      return { read: log.includes("host-secret-commit"), moved: after !== before, log, text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "a .git file or symlink naming a git directory inside the workspace that is a link to a host repository's (.git/modules/x, .git/worktrees/x, a workspace link): the user's git there reads and moves the host repository",
      async () => {
        const escapes: string[] = [];
        for (const spelling of ["modules", "worktrees", "plain", "symlink", "absolute", "update"] as const) {
          const denied = await modulesAttempt("workspace", spelling);
          if (denied.read) escapes.push(`${spelling}: the user's log read the host repository`);
          if (denied.moved) escapes.push(`${spelling}: the user's commit moved the host repository's branch`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${spelling}: nothing moved aside`);
          // The pointer's note says what it pointed to and why (round 43), not the generic hooks note.
          if (spelling === "plain" && !denied.text.includes('x/.git: a pointer to "../hostgit"'))
            escapes.push(`plain: the note does not say what the pointer named: ${denied.text}`);
        }
        expect(escapes).toEqual([]);
        // Controls: with no git protection the user's git in x reads the host repository; a pointer inside is kept and works.
        const control = await modulesAttempt("local", "modules");
        expect(control.read, control.text).toBe(true);
        const inside = await modulesAttempt("workspace", "inside");
        expect(inside.text).not.toContain("[moved aside");
        expect(inside.log).toContain("inner-commit");
        const hostWorktree = await modulesAttempt("workspace", "hostWorktree");
        expect(hostWorktree.text).not.toContain("[moved aside");
        expect(hostWorktree.log).toContain("host-secret-commit");
      },
      120_000,
    );
  },
);
