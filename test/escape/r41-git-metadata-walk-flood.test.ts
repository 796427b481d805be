/**
 * Red team round 41: the link walk's bound (20,000 directories in one git directory, listed
 * breadth first with git's own directories first at each level) spent on directories git never
 * reads. The command makes 20,001 empty directories at the top of the protected `.git` (or in
 * `.git/refs/heads`) and links the reflog of the checked-out branch `feature/x`
 * (`logs/refs/heads/feature/x`, four levels down) to a host file: the walk used its bound on the
 * first levels and never listed `logs/refs/heads/feature`, and the user's next `git commit`
 * appended its reflog line to the host file (escaped on the code before this round, with the real
 * bound). Here the bound is lowered to 500 (and the flood to 501), which keeps the
 * file cheap: the walk's order and what it does past the bound are the same.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { gitDirectoryLinkLimits } from "../../src/tools/sandbox/git-directory-links.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGitOutput } from "./support/host-git.js";
import { oneCommitPlayground } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** The user's identity for the commit made on the host after the command. */
const USER = ["-c", "user.email=u@example.com", "-c", "user.name=U"];

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 41, the git-directory link walk's bound spent on directories git never reads"),
  () => {
    const grounds: Playground[] = [];
    const bound = gitDirectoryLinkLimits.maxDirectories;
    beforeAll(() => {
      gitDirectoryLinkLimits.maxDirectories = 500;
    });
    afterAll(() => {
      gitDirectoryLinkLimits.maxDirectories = bound;
    });
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** Floods `.git` (or not) and links the branch's reflog to a host file; the user commits. */
    async function floodAttempt(flood: number, where: string, scope: "workspace" | "local" = "workspace") {
      const { ground, root } = await oneCommitPlayground(grounds);
      hostGitOutput(root, ["checkout", "-q", "-b", "feature/x"]);
      const victim = path.join(ground.outside, "victim");
      writeFileSync(victim, "host\n");
      const reflog = ".git/logs/refs/heads/feature/x";
      const result = await sh(
        attackRun(root, scope),
        `${flood > 0 ? `(cd ${where} && seq -f 'f%g' 1 ${flood} | xargs mkdir) && ` : ""}` +
          `rm -f ${reflog} && ln -s ${quote(victim)} ${reflog} && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      hostGitOutput(root, [...USER, "commit", "-q", "--allow-empty", "-m", "user"]);
      return { written: readFileSync(victim, "utf8") !== "host\n", text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "directories past the link walk's bound made at the top of the protected .git (or in .git/refs/heads) spend it: a reflog linked to a host file four levels down is left, and the user's commit appends to the host file",
      async () => {
        const escapes: string[] = [];
        for (const where of [".git", ".git/refs/heads"]) {
          const denied = await floodAttempt(gitDirectoryLinkLimits.maxDirectories + 1, where);
          // Git's own directories come before the flood: the loose objects, hooks and info are not among what the bound left.
          expect(denied.text).not.toMatch(/moved aside \.git\/(objects|hooks|info)[^:]*: a directory/);
          if (denied.written) escapes.push(`${where}: the user's commit wrote the host file`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${where}: nothing moved aside`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the user's commit appends to the host file through the link.
        const control = await floodAttempt(0, ".git", "local");
        expect(control.written, control.text).toBe(true);
      },
      180_000,
    );
  },
);
