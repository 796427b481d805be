/**
 * Escape attempt found at stop 43: a command writes a `HEAD` as git writes it at a work tree's
 * root (the workspace's, or a nested repository's). The next spawn took that root for a git
 * directory and pinned it (`--bind` onto itself) after the read-only mounts of the `.git` inside
 * it; a mount of a directory is made from the host's tree, without the sandbox's mounts below
 * it, so `.git/config` and `.git/hooks` were writable again (a `core.fsmonitor` for host git).
 * Now pins come first, parents before children, and the mount check requires every read-only
 * bind of the protection to be read-only at the top of its path. Controls: the command runs and
 * writes the work tree, and its `HEAD` stays (it is the command's file).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

const FSMONITOR = `'[core]\\n\\tfsmonitor = "touch fired; echo"\\n'`;

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: a HEAD at a work tree's root uncovers its .git"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    for (const where of [".", "sub"]) {
      escapeAttempt(
        "git-metadata",
        `a HEAD written at ${where === "." ? "the workspace's root" : "a nested work tree's root"}, then ${where}/.git/config and hooks`,
        async () => {
          const ground = await playground();
          grounds.push(ground);
          execFileSync("bash", ["-c", "git init -q . && git init -q sub"], { cwd: ground.workspace });
          const run = attackRun(ground.workspace, "workspace");
          const first = await sh(run, `printf 'ref: refs/heads/main\\n' > ${where}/HEAD && echo made`);
          expect(first.stdout).toBe("made");
          const second = await sh(
            run,
            `printf ${FSMONITOR} >> ${where}/.git/config && echo planted; printf '#!/bin/sh\\n' > ${where}/.git/hooks/pre-commit && echo planted; echo work > ${where}/work.txt && echo wrote`,
          );
          expect(second.stdout).toBe("wrote");
          expect(second.stderr).toContain("Read-only file system");
          const dotGit = path.join(ground.workspace, where, ".git");
          expect(readFileSync(path.join(dotGit, "config"), "utf8")).not.toContain("fsmonitor");
          expect(existsSync(path.join(dotGit, "hooks", "pre-commit"))).toBe(false);
          // Controls: the work tree was written, and the command's HEAD is still there.
          expect(readFileSync(path.join(ground.workspace, where, "work.txt"), "utf8")).toBe("work\n");
          expect(readFileSync(path.join(ground.workspace, where, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
        },
      );
    }
  },
);
