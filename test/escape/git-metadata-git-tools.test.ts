/**
 * Hostile repository layouts against the git history tools under sandbox "workspace": a model
 * that can write files in the workspace plants a `.git` file, `commondir`, alternates or
 * symbolic links that lead to a repository outside, then asks a git tool about it. Every
 * attempt must be refused with `repository_outside_workspace` and reveal nothing of the outside
 * repository; each has positive controls: the same layout leading to a repository inside the
 * workspace works, and the same outside layout without the sandbox is followed (so the attack is
 * real, not a broken setup).
 */
import { cpSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { gitRun } from "../git/support/git-run.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { expectGitToolsAnswered, expectGitToolsFailed, gitToolCalls, makeSecretRepository } from "./support/git-tool-calls.js";

const gitCapability = capability("git");
const SECRET = "outside-secret-7f3a";
const author = { name: "Outsider", email: "outsider@example.com" };

/** Every git tool, each asked something the outside repository would answer. */
const CALLS = gitToolCalls(SECRET, "secret.txt");

let scratch: string;
/** A repository outside every workspace, holding the secret. */
let outside: FixtureRepository;

let counter = 0;
function newWorkspace(): string {
  const directory = path.join(scratch, `workspace-${++counter}`);
  mkdirSync(directory, { recursive: true });
  return directory;
}

/** Every tool refused, with the structured code, and nothing of the outside repository in the answer. */
async function expectRefused(workspace: string): Promise<void> {
  await expectGitToolsFailed(workspace, "workspace", CALLS, ["repository_outside_workspace"], [SECRET, outside.directory]);
}

/** Every tool answers from the secret repository (the layout works where it is allowed). */
async function expectAnswered(workspace: string, sandbox: SandboxScope): Promise<void> {
  await expectGitToolsAnswered(workspace, sandbox, CALLS, SECRET);
}

describe.skipIf(gitCapability.missing)(gitCapability.label("git tools read only inside the workspace sandbox"), () => {
  beforeAll(() => {
    scratch = temporaryDirectory("escape-git-tools");
    outside = makeSecretRepository(path.join(scratch, "outside"), SECRET);
  });
  afterAll(() => removeDirectory(scratch));

  escapeAttempt("git-metadata", "a .git file with gitdir: pointing at an outside repository", async () => {
    const workspace = newWorkspace();
    writeFileSync(path.join(workspace, ".git"), `gitdir: ${path.join(outside.directory, ".git")}\n`);
    await expectRefused(workspace);
    // Controls: followed without the sandbox; an inside gitdir works under it.
    await expectAnswered(workspace, "unrestricted");
    const inside = newWorkspace();
    makeSecretRepository(path.join(inside, "repo-data"), SECRET);
    writeFileSync(path.join(inside, ".git"), "gitdir: repo-data/.git\n");
    await expectAnswered(inside, "workspace");
  });

  escapeAttempt("git-metadata", "a relative gitdir: that climbs out with ../", async () => {
    const workspace = newWorkspace();
    writeFileSync(path.join(workspace, ".git"), `gitdir: ${path.relative(workspace, path.join(outside.directory, ".git"))}\n`);
    await expectRefused(workspace);
    await expectAnswered(workspace, "local");
  });

  escapeAttempt("git-metadata", ".git/commondir pointing at an outside repository's git directory", async () => {
    const workspace = newWorkspace();
    const gitdir = path.join(workspace, ".git");
    mkdirSync(gitdir);
    writeFileSync(path.join(gitdir, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(gitdir, "commondir"), `${path.join(outside.directory, ".git")}\n`);
    await expectRefused(workspace);
    await expectAnswered(workspace, "unrestricted");
    // Control: a commondir inside the workspace (a linked worktree of an inside repository) works.
    const inside = newWorkspace();
    makeSecretRepository(path.join(inside, "main"), SECRET);
    mkdirSync(path.join(inside, ".git"));
    writeFileSync(path.join(inside, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(inside, ".git", "commondir"), "../main/.git\n");
    await expectAnswered(inside, "workspace");
  });

  escapeAttempt("git-metadata", "objects/info/alternates naming an outside object directory", async () => {
    const workspace = newWorkspace();
    // A clone --shared borrows every object through alternates; its own object directory is empty.
    git(scratch, ["clone", "-q", "--shared", outside.directory, workspace]);
    expect(readdirSync(path.join(workspace, ".git", "objects", "pack"))).toEqual([]);
    await expectRefused(workspace);
    await expectAnswered(workspace, "unrestricted");
    const inside = newWorkspace();
    makeSecretRepository(path.join(inside, "origin"), SECRET);
    git(inside, ["clone", "-q", "--shared", path.join(inside, "origin"), path.join(inside, "clone")]);
    // The workspace holds both the clone and the repository it borrows from.
    writeFileSync(path.join(inside, ".git"), "gitdir: clone/.git\n");
    await expectAnswered(inside, "workspace");
  });

  escapeAttempt("git-metadata", ".git itself a symbolic link to an outside git directory", async () => {
    const workspace = newWorkspace();
    symlinkSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"));
    await expectRefused(workspace);
    await expectAnswered(workspace, "unrestricted");
    const inside = newWorkspace();
    makeSecretRepository(path.join(inside, "data"), SECRET);
    symlinkSync(path.join(inside, "data", ".git"), path.join(inside, ".git"));
    await expectAnswered(inside, "workspace");
  });

  escapeAttempt("git-metadata", ".git/objects a symbolic link to an outside object directory", async () => {
    const workspace = newWorkspace();
    cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
    const objects = path.join(workspace, ".git", "objects");
    removeDirectory(objects);
    symlinkSync(path.join(outside.directory, ".git", "objects"), objects);
    await expectRefused(workspace);
    await expectAnswered(workspace, "unrestricted");
    const inside = newWorkspace();
    cpSync(path.join(outside.directory, ".git"), path.join(inside, ".git"), { recursive: true });
    renameSync(path.join(inside, ".git", "objects"), path.join(inside, "objects-elsewhere"));
    symlinkSync(path.join(inside, "objects-elsewhere"), path.join(inside, ".git", "objects"));
    await expectAnswered(inside, "workspace");
  });

  escapeAttempt("git-metadata", "loose object files that are symbolic links to outside files", async () => {
    const workspace = newWorkspace();
    cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
    const objects = path.join(workspace, ".git", "objects");
    // Replace every loose object file with a link to the same file outside.
    for (const head of readdirSync(objects)) {
      if (!/^[0-9a-f]{2}$/.test(head)) continue;
      for (const name of readdirSync(path.join(objects, head))) {
        const target = path.join(objects, head, name);
        removeDirectory(target);
        symlinkSync(path.join(outside.directory, ".git", "objects", head, name), target);
      }
    }
    await expectRefused(workspace);
    await expectAnswered(workspace, "unrestricted");
    // Control: the real copies work.
    const inside = newWorkspace();
    cpSync(path.join(outside.directory, ".git"), path.join(inside, ".git"), { recursive: true });
    await expectAnswered(inside, "workspace");
  });

  escapeAttempt("git-metadata", "a branch ref that is a symbolic link to a ref file outside", async () => {
    const workspace = newWorkspace();
    cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
    const outsideRef = path.join(outside.directory, ".git", "refs", "heads", `stolen-${counter}`);
    writeFileSync(outsideRef, `${outside.head()}\n`);
    symlinkSync(outsideRef, path.join(workspace, ".git", "refs", "heads", "stolen"));
    const run = gitRun(workspace, {}, "workspace");
    const result = await run.call("git_diff_range", { from: "stolen" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("repository_outside_workspace");
    // Control: without the sandbox the link is followed.
    expect((await gitRun(workspace, {}, "unrestricted").call("git_diff_range", { from: "stolen" })).ok).toBe(true);
    // Control: a plain branch of the same repository works under the sandbox.
    expect((await run.call("git_diff_range", { from: "main~1" })).ok).toBe(true);
  });

  escapeAttempt(
    "git-metadata",
    "config that git executes (core.fsmonitor, core.sshCommand, core.pager, diff.external, textconv, hooks) run by a git tool",
    async () => {
      // A model may write the workspace repository's config in scope "unrestricted" or before
      // the run; the git tools must never hand it to a program. Each command leaves a marker.
      const workspace = newWorkspace();
      git(workspace, ["init", "-q"]);
      const repository = new FixtureRepository(workspace);
      repository.write("a.txt", "one\n").commit("first", author);
      repository.write("a.txt", "two\n").commit("second", author);
      const marker = (name: string) => path.join(scratch, `ran-${counter}-${name}`);
      const touch = (name: string) => `touch ${marker(name)}; false`;
      git(workspace, ["config", "core.fsmonitor", touch("fsmonitor")]);
      git(workspace, ["config", "core.sshCommand", touch("ssh")]);
      git(workspace, ["config", "core.pager", touch("pager")]);
      git(workspace, ["config", "diff.external", touch("external")]);
      git(workspace, ["config", "diff.evil.textconv", touch("textconv")]);
      writeFileSync(path.join(workspace, ".gitattributes"), "* diff=evil\n");
      for (const hook of ["post-checkout", "pre-commit", "post-index-change", "reference-transaction"]) {
        writeFileSync(path.join(workspace, ".git", "hooks", hook), `#!/bin/sh\n${touch(hook)}\n`, { mode: 0o755 });
      }
      const names = [
        "fsmonitor",
        "ssh",
        "pager",
        "external",
        "textconv",
        "post-checkout",
        "pre-commit",
        "post-index-change",
        "reference-transaction",
      ];
      for (const sandbox of ["workspace", "unrestricted"] as const) {
        const run = gitRun(workspace, {}, sandbox);
        for (const [name, input] of [
          ...gitToolCalls(SECRET, "a.txt"),
          ["git_diff_range", { from: "HEAD~1", path: "a.txt" }] as const,
        ]) {
          const result = await run.call(name, input);
          expect({ name, sandbox, ok: result.ok }).toEqual({ name, sandbox, ok: true });
        }
      }
      expect(names.filter((name) => readdirSync(scratch).includes(path.basename(marker(name))))).toEqual([]);
      // Control: the git CLI on the same repository does run them (fsmonitor on status, textconv on diff).
      git(workspace, ["status"]);
      try {
        git(workspace, ["diff", "--textconv", "HEAD~1", "--", "a.txt"]);
      } catch {
        // The textconv command exits 1 after leaving its marker: git reports that.
      }
      const ran = names.filter((name) => readdirSync(scratch).includes(path.basename(marker(name))));
      expect(ran).toEqual(expect.arrayContaining(["external"]));
    },
  );
});
