/**
 * Repository files that are symbolic links to files outside the workspace, one file at a time:
 * the commit-graph (single file, and a split chain's graph file and chain list), `packed-refs`,
 * `objects/info/alternates` itself, `HEAD` and a loose ref; round 25: `config`, `shallow`,
 * `info/grafts`, a pack's `.pack` and `.idx` files, a replace ref. Under sandbox "workspace" each is
 * refused with `repository_outside_workspace` (the confined reader opens the file and checks where
 * the descriptor really is before reading a byte). Every attempt has two controls: the same link
 * with its target inside the workspace answers under the sandbox, and the outside link answers
 * without it (so the refusal is the sandbox's, not a broken layout).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { expectGitToolsAnswered, expectGitToolsFailed, gitToolCalls } from "./support/git-tool-calls.js";

const gitCapability = capability("git");
const MARKER = "linked-file-marker-7d31";
const author = { name: "Linker", email: "linker@example.com" };

const CALLS = gitToolCalls(MARKER, "file.txt");

let scratch: string;
let template: string;
let counter = 0;
let branch = "";
let graphChainFile = "";
let firstCommit = "";
let packName = "";

async function expectRefused(workspace: string, outsideDirectory: string): Promise<void> {
  await expectGitToolsFailed(workspace, "workspace", CALLS, ["repository_outside_workspace"], [outsideDirectory]);
}

async function expectAnswered(workspace: string, sandbox: SandboxScope): Promise<void> {
  await expectGitToolsAnswered(workspace, sandbox, CALLS, MARKER);
}

/** A fresh workspace holding a copy of the template repository, prepared by `prepare` (git CLI). */
function newWorkspace(prepare: (workspace: string) => void = () => {}): string {
  const workspace = path.join(scratch, `workspace-${++counter}`);
  mkdirSync(workspace, { recursive: true });
  cpSync(template, workspace, { recursive: true });
  prepare(workspace);
  return workspace;
}

/** Moves `.git/<relative>` to `directory` and leaves a symbolic link to it in its place. */
function linkTo(workspace: string, relative: string, directory: string): void {
  const original = path.join(workspace, ".git", relative);
  expect(existsSync(original), relative).toBe(true);
  mkdirSync(directory, { recursive: true });
  const moved = path.join(directory, path.basename(relative));
  renameSync(original, moved);
  symlinkSync(moved, original);
}

/** Gives the first commit a replacement (`git replace`), so the reader reads `refs/replace/` and `config`. */
function replaceFirstCommit(workspace: string): void {
  const tree = git(workspace, ["rev-parse", `${firstCommit}^{tree}`]).trim();
  const replacement = git(workspace, ["commit-tree", tree, "-m", "replaced first"]).trim();
  git(workspace, ["replace", firstCommit, replacement]);
}

/**
 * The attack and its controls for one repository file: linked outside, it is refused under the
 * sandbox and followed without it; linked to the same bytes inside the workspace, it is followed
 * under the sandbox.
 */
async function attackLink(relative: string, prepare?: (workspace: string) => void): Promise<void> {
  const attacked = newWorkspace(prepare);
  const outsideDirectory = path.join(scratch, `outside-${counter}`);
  linkTo(attacked, relative, outsideDirectory);
  await expectRefused(attacked, outsideDirectory);
  await expectAnswered(attacked, "unrestricted");
  const control = newWorkspace(prepare);
  linkTo(control, relative, path.join(control, "elsewhere"));
  await expectAnswered(control, "workspace");
}

describe.skipIf(gitCapability.missing)(
  gitCapability.label("hostile git layouts: repository files linked outside the workspace"),
  () => {
    beforeAll(() => {
      scratch = temporaryDirectory("escape-hostile-links");
      template = path.join(scratch, "template");
      mkdirSync(template, { recursive: true });
      git(template, ["init", "-q"]);
      const repository = new FixtureRepository(template);
      repository.write("file.txt", "one\n").commit("first", author);
      repository.write("file.txt", `${MARKER}\n`).commit(`add ${MARKER}`, author);
      git(template, ["repack", "-adq"]);
      branch = git(template, ["symbolic-ref", "--short", "HEAD"]).trim();
      firstCommit = git(template, ["rev-parse", "HEAD~1"]).trim();
      const pack = readdirSync(path.join(template, ".git", "objects", "pack")).find((name) => name.endsWith(".pack"));
      packName = (pack ?? "").slice(0, -".pack".length);
      // The split graph's file name is its hash: the same for every copy of the template.
      const probe = path.join(scratch, "probe");
      cpSync(template, probe, { recursive: true });
      git(probe, ["commit-graph", "write", "--reachable", "--split"]);
      const chain = readFileSync(path.join(probe, ".git", "objects", "info", "commit-graphs", "commit-graph-chain"), "latin1");
      graphChainFile = `objects/info/commit-graphs/graph-${chain.trim().split("\n")[0]}.graph`;
    });
    afterAll(() => removeDirectory(scratch));

    escapeAttempt("git-metadata", "objects/info/commit-graph a symbolic link to an outside file", () =>
      attackLink("objects/info/commit-graph", (workspace) => git(workspace, ["commit-graph", "write", "--reachable"])),
    );

    escapeAttempt(
      "git-metadata",
      "a split commit-graph's graph file, and its chain list, symbolic links to outside files",
      async () => {
        const split = (workspace: string) => {
          git(workspace, ["commit-graph", "write", "--reachable", "--split"]);
          rmSync(path.join(workspace, ".git", "objects", "info", "commit-graph"), { force: true });
        };
        await attackLink(graphChainFile, split);
        await attackLink("objects/info/commit-graphs/commit-graph-chain", split);
      },
    );

    escapeAttempt("git-metadata", "packed-refs a symbolic link to an outside file", () =>
      attackLink("packed-refs", (workspace) => git(workspace, ["pack-refs", "--all"])),
    );

    escapeAttempt("git-metadata", "objects/info/alternates itself a symbolic link to an outside file", () =>
      attackLink("objects/info/alternates", (workspace) => {
        // The alternate it names is inside the workspace: only the list itself is outside.
        const objects = path.join(workspace, ".git", "objects");
        renameSync(objects, path.join(workspace, "shared-objects"));
        mkdirSync(path.join(objects, "info"), { recursive: true });
        writeFileSync(path.join(objects, "info", "alternates"), `${path.join(workspace, "shared-objects")}\n`);
      }),
    );

    escapeAttempt("git-metadata", ".git/HEAD a symbolic link to an outside file", () => attackLink("HEAD"));

    escapeAttempt("git-metadata", "a loose ref file (refs/heads/<branch>) a symbolic link to an outside file", () =>
      attackLink(`refs/heads/${branch}`),
    );

    // Round 25: the other repository files the reader opens on every call.
    escapeAttempt(
      "git-metadata",
      ".git/config a symbolic link to an outside file, read for core.useReplaceRefs once there are replace refs",
      () => attackLink("config", replaceFirstCommit),
    );

    escapeAttempt("git-metadata", ".git/shallow and .git/info/grafts symbolic links to outside files", async () => {
      await attackLink("shallow", (workspace) => writeFileSync(path.join(workspace, ".git", "shallow"), `${"1".repeat(40)}\n`));
      await attackLink("info/grafts", (workspace) => {
        mkdirSync(path.join(workspace, ".git", "info"), { recursive: true });
        writeFileSync(path.join(workspace, ".git", "info", "grafts"), `${firstCommit}\n`);
      });
    });

    escapeAttempt("git-metadata", "a pack's .pack file, and its .idx file, symbolic links to outside files", async () => {
      await attackLink(`objects/pack/${packName}.pack`);
      await attackLink(`objects/pack/${packName}.idx`);
    });

    escapeAttempt("git-metadata", "a replace ref (refs/replace/<id>) a symbolic link to an outside file", () =>
      attackLink(`refs/replace/${firstCommit}`, replaceFirstCommit),
    );
  },
);
