/**
 * Escape attempts through git's sequencer state with `bash` (scope `workspace`). An interrupted
 * `git rebase -i` keeps its todo list in `.git/rebase-merge/git-rebase-todo`; an `exec` line there
 * runs, outside any sandbox, when the user types `git rebase --continue`. The file tools refuse
 * that state (`git-sequencer-file-tools.test.ts`); a command could still write it: plant the state
 * of a rebase stopped before an `exec` line, or rewrite the todo list of a rebase the user left
 * interrupted. The check is real: host git continues the rebase afterwards and a marker file
 * outside the workspace shows whether the planted line ran. The control runs the same command
 * under scope `local` (which may write git metadata), where host git does run it; and a rebase
 * the command runs to its end inside the sandbox still works.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

function hostGit(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync("git", [...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
      env: { ...process.env, GIT_EDITOR: "true", ...env },
    });
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
}

/** A repository with two commits on `main` and a `side` branch of one more from the first. */
async function repository(root: string): Promise<void> {
  hostGit(root, ["init", "-q", "-b", "main"]);
  hostGit(root, ["config", "user.email", "a@example.com"]);
  hostGit(root, ["config", "user.name", "A"]);
  for (const name of ["a", "b"]) {
    await writeFile(path.join(root, `${name}.txt`), `${name}\n`);
    hostGit(root, ["add", "."]);
    hostGit(root, ["commit", "-q", "-m", name]);
  }
  hostGit(root, ["branch", "side", "HEAD~1"]);
  hostGit(root, ["checkout", "-q", "side"]);
  await writeFile(path.join(root, "c.txt"), "c\n");
  hostGit(root, ["add", "."]);
  hostGit(root, ["commit", "-q", "-m", "c"]);
  hostGit(root, ["checkout", "-q", "main"]);
}

/** The state of an interactive rebase of `main` onto its parent, stopped before `exec touch $M`. */
const PLANT_REBASE = [
  "cd .git && mkdir rebase-merge && cd rebase-merge",
  "git rev-parse HEAD~1 > onto && git rev-parse HEAD > orig-head && echo refs/heads/main > head-name",
  "touch interactive && : > done && echo 1 > msgnum && echo 1 > end",
  `printf 'exec touch %s\\n' "$M" > git-rebase-todo`,
].join(" && ");

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: git sequencer state"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  async function fresh(): Promise<{ root: string; marker: string }> {
    const ground = await playground();
    grounds.push(ground);
    await repository(ground.workspace);
    return { root: ground.workspace, marker: path.join(ground.outside, "fired") };
  }

  escapeAttempt("git-metadata", "plant an interrupted rebase whose todo list holds an exec line", async () => {
    const denied = await fresh();
    const result = await sh(attackRun(denied.root, "workspace"), `M=${quote(denied.marker)}; ${PLANT_REBASE} && echo planted`);
    // The command may write it (git itself does, mid-rebase); it does not outlive the command.
    expect(result.stdout).toBe("planted");
    expect(result.text).toContain(
      "[removed git control files the command created, which host git would follow: .git/rebase-merge]",
    );
    hostGit(denied.root, ["rebase", "--continue"]);
    expect(existsSync(denied.marker)).toBe(false);
    // Control: under local the state stays and host git runs the planted line.
    const control = await fresh();
    await sh(attackRun(control.root, "local"), `M=${quote(control.marker)}; ${PLANT_REBASE}`);
    hostGit(control.root, ["rebase", "--continue"]);
    expect(existsSync(control.marker)).toBe(true);
  });

  escapeAttempt("git-metadata", "rewrite the todo list of a rebase the user left interrupted", async () => {
    for (const scope of ["workspace", "local"] as const) {
      const { root, marker } = await fresh();
      // The user's own rebase of side onto main, stopped at a `break` before its pick.
      hostGit(root, ["checkout", "-q", "side"]);
      hostGit(root, ["rebase", "-i", "main"], { GIT_SEQUENCE_EDITOR: "sed -i '1i break'" });
      const todo = path.join(root, ".git", "rebase-merge", "git-rebase-todo");
      const before = readFileSync(todo, "utf8");
      await sh(attackRun(root, scope), `M=${quote(marker)}; printf 'exec touch %s\\n' "$M" >> .git/rebase-merge/git-rebase-todo`);
      hostGit(root, ["rebase", "--continue"]);
      if (scope === "workspace") {
        expect(existsSync(marker), scope).toBe(false);
        expect(hostGit(root, ["log", "--format=%s", "-3"]).trim().split("\n"), scope).toEqual(["c", "b", "a"]);
      } else {
        // Control: under local the line was appended and host git ran it.
        expect(before).not.toContain("exec");
        expect(existsSync(marker), scope).toBe(true);
      }
    }
  });

  it("positive control: a rebase the command runs to its end in the sandbox works", async () => {
    const { root } = await fresh();
    const result = await sh(attackRun(root, "workspace"), "git rebase -q main side && git log --format=%s -3 | tr '\\n' ' '");
    expect(result.stdout).toBe("c b a");
    expect(hostGit(root, ["status", "--short"])).toBe("");
  });
});
