import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";

// An interrupted `git rebase -i` (or `git am`, `git cherry-pick`) keeps its todo list in the git
// directory. An `exec` line planted there runs, outside any sandbox, when the user types
// `git rebase --continue`: the file tools must not write there under the workspace sandbox.

const git = capability("git");
let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-gitseq-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});
function runIn(sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools({ redo: true }) }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
  });
}
const codeOf = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
const PLANTED = "exec touch /tmp/atc-pwned\n";
const TODO = "pick 0000000 first\n";
const QUARANTINED = "atc-quarantine-rebase-merge-20260101T000000Z";

/** Every way a file tool can create, change, move or remove a file at `target`; `reset` runs before each. */
async function attempts(
  run: Run,
  target: string,
  reset: (form: string) => Promise<void> = async () => {},
): Promise<Record<string, string>> {
  const forms: Record<string, () => Promise<ToolCallResult>> = {
    write: () => run.call("write", { path: target, content: PLANTED }),
    append: () => run.call("write", { path: target, content: PLANTED, append: true }),
    edit: () => run.call("edit", { path: target, old_text: "pick", new_text: "exec touch /tmp/atc-pwned\npick" }),
    replace: () => run.call("replace", { path: target, find: "pick", replace: "exec touch /tmp/atc-pwned\npick" }),
    add: () => run.call("apply_patch", { patch: `*** Begin Patch\n*** Add File: ${target}\n+exec x\n*** End Patch` }),
    update: () =>
      run.call("apply_patch", {
        patch: `*** Begin Patch\n*** Update File: ${target}\n@@\n-pick 0000000 first\n+exec x\n*** End Patch`,
      }),
    moveIn: () =>
      run.call("apply_patch", {
        patch: `*** Begin Patch\n*** Update File: plan.txt\n*** Move to: ${target}\n@@\n-exec x\n+exec y\n*** End Patch`,
      }),
    moveOut: () =>
      run.call("apply_patch", {
        patch: `*** Begin Patch\n*** Update File: ${target}\n*** Move to: moved.txt\n@@\n-pick 0000000 first\n+exec x\n*** End Patch`,
      }),
    delete: () => run.call("apply_patch", { patch: `*** Begin Patch\n*** Delete File: ${target}\n*** End Patch` }),
  };
  const codes: Record<string, string> = {};
  for (const [form, attempt] of Object.entries(forms)) {
    await reset(form);
    codes[form] = codeOf(await attempt());
  }
  return codes;
}

const allRefused = (codes: Record<string, string>) =>
  Object.fromEntries(Object.keys(codes).map((form) => [form, "git_metadata_refused"]));

/** Plants an interrupted rebase's todo (and `git am`'s, and a cherry-pick's) in `gitDirectory`. */
async function plantSequencerState(gitDirectory: string): Promise<void> {
  for (const [directory, file] of [
    ["rebase-merge", "git-rebase-todo"],
    ["rebase-apply", "0001"],
    ["sequencer", "todo"],
  ]) {
    await mkdir(path.join(gitDirectory, directory as string), { recursive: true });
    await writeFile(path.join(gitDirectory, directory as string, file as string), TODO);
  }
}

describe.skipIf(git.missing)(git.label("file tools and git sequencer state under sandbox workspace"), () => {
  beforeEach(async () => {
    execFileSync("git", ["init", "-q", workspace]);
    execFileSync("git", ["init", "-q", "--separate-git-dir", path.join(workspace, ".realgit"), path.join(workspace, "linked")]);
    execFileSync("git", ["init", "-q", "--bare", path.join(workspace, "mirror.git")]);
    await plantSequencerState(path.join(workspace, ".git"));
    await plantSequencerState(path.join(workspace, ".git", "modules", "libs", "sub"));
    await writeFile(path.join(workspace, ".git", "modules", "libs", "sub", "HEAD"), "ref: refs/heads/main\n");
    await plantSequencerState(path.join(workspace, ".realgit"));
    await plantSequencerState(path.join(workspace, "mirror.git"));
    // Sequencer state the sandbox moved aside after a command: the result tells the user to mv it back.
    for (const gitDirectory of [".git", ".git/modules/libs/sub", "mirror.git"]) {
      const quarantine = path.join(workspace, gitDirectory, QUARANTINED);
      await mkdir(quarantine, { recursive: true });
      await writeFile(path.join(quarantine, "git-rebase-todo"), TODO);
    }
    await writeFile(path.join(workspace, "plan.txt"), "exec x\n");
    await writeFile(path.join(workspace, "ordinary-todo"), TODO);
  });

  for (const target of [
    ".git/rebase-merge/git-rebase-todo",
    ".git/rebase-merge/git-rebase-todo.new",
    ".git/rebase-apply/0001",
    ".git/sequencer/todo",
    ".GIT/Rebase-Merge/git-rebase-todo",
    ".git/modules/libs/sub/rebase-merge/git-rebase-todo",
    ".git/worktrees/w/rebase-merge/git-rebase-todo",
    ".realgit/rebase-merge/git-rebase-todo",
    ".realgit/sequencer/todo",
    "mirror.git/rebase-merge/git-rebase-todo",
    "mirror.git/rebase-apply/0001",
    `.git/${QUARANTINED}/git-rebase-todo`,
    `.git/${QUARANTINED}/git-rebase-todo.new`,
    `.git/ATC-Quarantine-sequencer-20260101T000000Z-2/todo`,
    `.git/modules/libs/sub/${QUARANTINED}/git-rebase-todo`,
    `mirror.git/${QUARANTINED}/git-rebase-todo`,
  ]) {
    escapeAttempt(
      "git-metadata",
      `write/append/edit/replace/apply_patch (add, update, moves, delete) cannot touch ${target}`,
      async () => {
        const codes = await attempts(runIn("workspace"), target);
        expect(codes).toEqual(allRefused(codes));
        // Nothing planted: every todo is as git left it, and the moved-from file is still there.
        for (const todo of [
          ".git/rebase-merge/git-rebase-todo",
          ".git/sequencer/todo",
          ".git/modules/libs/sub/rebase-merge/git-rebase-todo",
          ".realgit/rebase-merge/git-rebase-todo",
          "mirror.git/rebase-merge/git-rebase-todo",
          `.git/${QUARANTINED}/git-rebase-todo`,
          `.git/modules/libs/sub/${QUARANTINED}/git-rebase-todo`,
          `mirror.git/${QUARANTINED}/git-rebase-todo`,
        ]) {
          expect(await readFile(path.join(workspace, todo), "utf8")).toBe(TODO);
        }
        expect(await readFile(path.join(workspace, "plan.txt"), "utf8")).toBe("exec x\n");
      },
    );
  }

  escapeAttempt("git-metadata", "a symlink to .git/rebase-merge does not reach the todo", async () => {
    await symlink(path.join(".git", "rebase-merge"), path.join(workspace, "plans"));
    const codes = await attempts(runIn("workspace"), "plans/git-rebase-todo");
    expect(codes).toEqual(allRefused(codes));
    expect(await readFile(path.join(workspace, ".git", "rebase-merge", "git-rebase-todo"), "utf8")).toBe(TODO);
  });

  escapeAttempt(
    "git-metadata",
    "undo and redo do not write a todo once the directory they wrote in became a git directory",
    async () => {
      // The model writes ordinary files; then the directory becomes a repository (`git init --bare`,
      // a clone) whose sequencer state those paths now name: undo and redo must not write there.
      const run = runIn("workspace");
      const [lib, other] = ["lib.git", "other.git"].map((name) => path.join(workspace, "vendor", name)) as [string, string];
      expect(codeOf(await run.call("write", { path: "vendor/other.git/sequencer/todo", content: PLANTED }))).toBe("ok");
      expect(codeOf(await run.call("write", { path: "vendor/lib.git/rebase-merge/done", content: PLANTED }))).toBe("ok");
      expect(codeOf(await run.call("undo", {}))).toBe("ok");
      for (const repo of [lib, other]) execFileSync("git", ["init", "-q", "--bare", repo]);
      await mkdir(path.join(lib, "rebase-merge"), { recursive: true });
      // Redo would create lib.git/rebase-merge/done; undo would delete other.git/sequencer/todo.
      expect(codeOf(await run.call("undo", { action: "redo" }))).toBe("git_metadata_refused");
      expect(await readFile(path.join(lib, "rebase-merge", "done"), "utf8").catch(() => "absent")).toBe("absent");
      expect(codeOf(await run.call("undo", { steps: 1 }))).toBe("git_metadata_refused");
      expect(await readFile(path.join(other, "sequencer", "todo"), "utf8")).toBe(PLANTED);
    },
  );

  it("positive control: the same undo and redo succeed while vendor/*.git are ordinary directories", async () => {
    const run = runIn("workspace");
    expect(codeOf(await run.call("write", { path: "vendor/other.git/sequencer/todo", content: PLANTED }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: "vendor/lib.git/rebase-merge/done", content: PLANTED }))).toBe("ok");
    expect(codeOf(await run.call("undo", {}))).toBe("ok");
    expect(codeOf(await run.call("undo", { action: "redo" }))).toBe("ok");
    expect(await readFile(path.join(workspace, "vendor", "lib.git", "rebase-merge", "done"), "utf8")).toBe(PLANTED);
    expect(codeOf(await run.call("undo", { steps: 2 }))).toBe("ok");
    expect(await readFile(path.join(workspace, "vendor", "other.git", "sequencer", "todo"), "utf8").catch(() => "absent")).toBe(
      "absent",
    );
  });

  it("positive control: the same writes to an ordinary file succeed, and the todo can still be read", async () => {
    // The ordinary file starts each form as the todo would be (fresh read state: a new run per form).
    const codes = await attempts(runIn("workspace"), "ordinary-todo", async (form) => {
      await writeFile(path.join(workspace, "ordinary-todo"), TODO);
      // Adding and moving in need the target absent (the refusals above are refused either way).
      if (form === "add" || form === "moveIn") await rm(path.join(workspace, "ordinary-todo"));
      await writeFile(path.join(workspace, "plan.txt"), "exec x\n");
      await rm(path.join(workspace, "moved.txt"), { force: true });
    });
    expect(codes).toEqual({
      write: "ok",
      append: "ok",
      edit: "ok",
      replace: "ok",
      add: "ok",
      update: "ok",
      moveIn: "ok",
      moveOut: "ok",
      delete: "ok",
    });
    const run = runIn("workspace");
    for (const todo of [".git/rebase-merge/git-rebase-todo", ".realgit/sequencer/todo", "mirror.git/rebase-apply/0001"]) {
      const read = await run.call("read", { path: todo });
      expect(read.ok ? JSON.stringify(read.output) : read.error.code).toContain("pick 0000000 first");
    }
    // A branch or directory of that name elsewhere is ordinary.
    expect(codeOf(await run.call("write", { path: ".git/refs/heads/sequencer", content: "x\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: "src/sequencer/todo", content: "x\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: `src/${QUARANTINED}/git-rebase-todo`, content: "x\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: `.git/refs/heads/${QUARANTINED}`, content: "x\n" }))).toBe("ok");
    // Unrestricted does not protect git state at all.
    expect(codeOf(await runIn("unrestricted").call("write", { path: ".git/sequencer/todo", content: PLANTED }))).toBe("ok");
  });
});
