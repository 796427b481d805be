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
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
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
      "[moved aside git sequencer state that was not there when the command started: .git/rebase-merge -> .git/atc-quarantine-rebase-merge-",
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

  escapeAttempt("git-metadata", "spend the control-file removal's entry budget before planting a rebase", async () => {
    // 10,001 entries in a directory made at config.worktree's place, removed before rebase-merge
    // on the old code, which then left rebase-merge "not removed whole".
    const spend = "mkdir .git/config.worktree && (cd .git/config.worktree && seq 1 10001 | xargs touch)";
    const denied = await fresh();
    const result = await sh(
      attackRun(denied.root, "workspace"),
      `M=${quote(denied.marker)}; ${spend} && ${PLANT_REBASE} && echo planted`,
    );
    expect(result.stdout).toBe("planted");
    hostGit(denied.root, ["rebase", "--continue"]);
    expect(existsSync(denied.marker)).toBe(false);
    // The quarantine is outside the removal's budget: config.worktree is still left over it.
    expect(result.text).toContain("[not removed whole: ");
    expect(result.text).toContain(".git/rebase-merge -> .git/atc-quarantine-rebase-merge-");
    expect(existsSync(path.join(denied.root, ".git", "rebase-merge"))).toBe(false);
    // Control: under local the state stays, beside a directory at config.worktree, and host git
    // runs the line. One entry there, not 10,001: git reads config.worktree (or not) whatever it
    // holds, and the budget is the workspace scope's alone; creating 10,001 files took 3.5-9.7 s
    // of the loaded machine each time (the test took 8.8-16 s of its 20).
    const control = await fresh();
    const directory = "mkdir .git/config.worktree && touch .git/config.worktree/1";
    await sh(attackRun(control.root, "local"), `M=${quote(control.marker)}; ${directory} && ${PLANT_REBASE}`);
    expect(statSync(path.join(control.root, ".git", "config.worktree")).isDirectory()).toBe(true);
    hostGit(control.root, ["rebase", "--continue"]);
    expect(existsSync(control.marker)).toBe(true);
  });

  escapeAttempt("git-metadata", "plant an interrupted rebase in a linked worktree the command adds", async () => {
    const plant = `git worktree add -q wt -b wtb && G=$(git -C wt rev-parse --absolute-git-dir) && ${PLANT_REBASE.replace("cd .git", 'cd "$G"')} && echo planted`;
    for (const scope of ["workspace", "local"] as const) {
      const { root, marker } = await fresh();
      const result = await sh(attackRun(root, scope), `M=${quote(marker)}; ${plant}`);
      expect(result.stdout, scope).toBe("planted");
      hostGit(path.join(root, "wt"), ["rebase", "--continue"]);
      if (scope === "workspace") {
        expect(existsSync(marker), scope).toBe(false);
        expect(result.text).toContain(".git/worktrees/wt/rebase-merge -> .git/worktrees/wt/atc-quarantine-rebase-merge-");
        // The worktree itself works on the host.
        expect(hostGit(path.join(root, "wt"), ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("wtb");
      } else {
        expect(existsSync(marker), scope).toBe(true);
      }
    }
  });

  escapeAttempt("git-metadata", "rewrite a moved-aside todo list before the user restores it with the result's mv", async () => {
    for (const scope of ["workspace", "local"] as const) {
      const { root, marker } = await fresh();
      // A rebase the command stops at a break: moved aside when the command ends.
      const first = await sh(
        attackRun(root, "workspace"),
        "git checkout -q side && GIT_SEQUENCE_EDITOR=\"sed -i '1i break'\" git rebase -q -i main; echo stopped",
      );
      const restore = /mv '(\.git\/atc-quarantine-rebase-merge-[0-9TZ]+)' '\.git\/rebase-merge'/.exec(first.text);
      expect(restore, first.text).not.toBeNull();
      const moved = restore?.[1] ?? "";
      // A later command appends an exec line to it, or swaps the directory for a planted one.
      const second = await sh(
        attackRun(root, scope),
        `M=${quote(marker)}; Q=${quote(moved)}; printf 'exec touch %s\\n' "$M" >> "$Q/git-rebase-todo"; ` +
          `cp -r "$Q" planted && mv "$Q" gone; cp -r planted "$Q"; echo tried`,
      );
      expect(second.stdout, scope).toContain("tried");
      execFileSync("sh", ["-c", restore?.[0] ?? "false"], { cwd: root });
      hostGit(root, ["rebase", "--continue"]);
      if (scope === "workspace") {
        expect(existsSync(marker), second.text).toBe(false);
        expect(hostGit(root, ["log", "--format=%s", "-3"]).trim().split("\n")).toEqual(["c", "b", "a"]);
      } else {
        // Control: under local the line was appended and host git ran it after the restore.
        expect(existsSync(marker), second.text).toBe(true);
      }
    }
  });

  it("a directory a command names like a quarantine is not named in the result (the host names only what it moved)", async () => {
    const { root, marker } = await fresh();
    const result = await sh(
      attackRun(root, "workspace"),
      `M=${quote(marker)}; mkdir .git/atc-quarantine-rebase-merge-20260101T000000Z && cd .git/atc-quarantine-rebase-merge-20260101T000000Z && printf 'exec touch %s\\n' "$M" > git-rebase-todo && echo made`,
    );
    expect(result.stdout).toBe("made");
    expect(result.text).not.toContain("atc-quarantine");
    expect(result.text).not.toContain("moved aside");
  });

  it("a rebase stopped with autostashed changes is moved aside, not deleted: restored as the result says, --abort gives the changes back", async () => {
    const { root } = await fresh();
    // A conflict: main and side both change a.txt.
    hostGit(root, ["checkout", "-q", "side"]);
    await writeFile(path.join(root, "a.txt"), "side\n");
    hostGit(root, ["commit", "-q", "-am", "side a"]);
    hostGit(root, ["checkout", "-q", "main"]);
    await writeFile(path.join(root, "a.txt"), "main\n");
    hostGit(root, ["commit", "-q", "-am", "main a"]);
    // The user's uncommitted change, which --autostash keeps only in rebase-merge/autostash.
    await writeFile(path.join(root, "b.txt"), "precious\n");
    const result = await sh(attackRun(root, "workspace"), "git rebase -q --autostash side; echo rebase=$?");
    expect(result.stdout).toContain("rebase=1");
    const match = /mv '(\.git\/atc-quarantine-rebase-merge-[0-9TZ]+)' '\.git\/rebase-merge'/.exec(result.text);
    expect(match, result.text).not.toBeNull();
    const autostash = /stashed by --autostash in commit ([0-9a-f]{40})/.exec(result.text)?.[1];
    expect(autostash, result.text).toBeDefined();
    expect(result.text).toContain(`git stash store -m autostash ${autostash}`);
    expect(existsSync(path.join(root, ".git", "rebase-merge"))).toBe(false);
    expect(readFileSync(path.join(root, match?.[1] ?? "", "autostash"), "utf8").trim()).toBe(autostash);
    // The documented restore (the result's own mv command), then the user's abort: the branch
    // and the uncommitted change are back.
    execFileSync("sh", ["-c", match?.[0] ?? "false"], { cwd: root });
    hostGit(root, ["rebase", "--abort"]);
    expect(hostGit(root, ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("main");
    expect(readFileSync(path.join(root, "b.txt"), "utf8")).toBe("precious\n");
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("main\n");
  });

  it("a rebase the user starts on the host while a command runs is moved aside (said in the result), and restored by the documented mv", async () => {
    const { root } = await fresh();
    const run = attackRun(root, "workspace");
    const started = sh(run, "sleep 3; echo done");
    // While the command sleeps: the user's own rebase of side onto main, stopped at a break.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    hostGit(root, ["checkout", "-q", "side"]);
    hostGit(root, ["rebase", "-i", "main"], { GIT_SEQUENCE_EDITOR: "sed -i '1i break'" });
    expect(existsSync(path.join(root, ".git", "rebase-merge"))).toBe(true);
    const result = await started;
    expect(result.stdout).toBe("done");
    const match = /mv '(\.git\/atc-quarantine-rebase-merge-[0-9TZ]+)' '\.git\/rebase-merge'/.exec(result.text);
    expect(match, result.text).not.toBeNull();
    expect(result.text).toContain("one the user started on the host while the command ran is moved too");
    expect(readdirSync(path.join(root, ".git")).filter((name) => name.startsWith("atc-quarantine-"))).toHaveLength(1);
    execFileSync("sh", ["-c", match?.[0] ?? "false"], { cwd: root });
    hostGit(root, ["rebase", "--continue"]);
    expect(hostGit(root, ["log", "--format=%s", "-3"]).trim().split("\n")).toEqual(["c", "b", "a"]);
  });

  it("positive control: a rebase the command runs to its end in the sandbox works", async () => {
    const { root } = await fresh();
    const result = await sh(attackRun(root, "workspace"), "git rebase -q main side && git log --format=%s -3 | tr '\\n' ' '");
    expect(result.stdout).toBe("c b a");
    expect(result.text).not.toContain("moved aside");
    expect(hostGit(root, ["status", "--short"])).toBe("");
  });
});
