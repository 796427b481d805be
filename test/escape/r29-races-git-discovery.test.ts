/**
 * Red team round 29: the git tools' repository discovery raced by a real background process. The
 * workspace's `.git` flips, by renames, between a directory (a repository inside the workspace,
 * whose history the tools may read) and a `gitdir:` file pointing at a repository outside, as
 * fast as a shell can rename, while every git tool is called again and again under sandbox
 * "workspace". A check that saw the inside directory and a read that then followed the file would
 * answer from the outside repository. Round 20's `.git` swaps were made between calls; here the
 * swap runs during them. Control: the same race under "unrestricted" answers from the outside
 * repository in at least one call.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { callGitTools, gitToolCalls, makeSecretRepository } from "./support/git-tool-calls.js";

const gitCapability = capability("git");
const SECRET = "outside-secret-r29";
const INSIDE = "inside-history-r29";
const ROUNDS = 20;

let scratch: string;
let outsideGitDirectory: string;
let counter = 0;

/** A workspace whose `.git` a background shell flips between an inside repository and a gitdir: file. */
function racedWorkspace(): { workspace: string; swapper: ChildProcess } {
  const workspace = path.join(scratch, `workspace-${++counter}`);
  makeSecretRepository(workspace, INSIDE);
  writeFileSync(path.join(workspace, "pointer"), `gitdir: ${outsideGitDirectory}\n`);
  // rename(2) each step: `.git` is the directory (held 2 ms), absent, the file (held 2 ms), absent, ...
  const loop = [
    "const { renameSync } = require('node:fs');",
    "const hold = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);",
    "for (;;) { renameSync('.git', 'dir-aside'); renameSync('pointer', '.git'); hold();",
    "  renameSync('.git', 'pointer'); renameSync('dir-aside', '.git'); hold(); }",
  ].join("\n");
  const swapper = spawn(process.execPath, ["-e", loop], { cwd: workspace, stdio: "ignore" });
  return { workspace, swapper };
}

async function stop(swapper: ChildProcess): Promise<void> {
  if (swapper.exitCode !== null || swapper.signalCode !== null) return;
  const exited = new Promise((resolve) => swapper.once("exit", resolve));
  swapper.kill("SIGKILL");
  await exited;
}

/** Every git tool, `ROUNDS` times, during the race: the texts of the answers. */
async function raceAnswers(sandbox: SandboxScope): Promise<string[]> {
  const { workspace, swapper } = racedWorkspace();
  try {
    const texts: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const query of [SECRET, INSIDE]) {
        const answers = await callGitTools(workspace, sandbox, gitToolCalls(query, "secret.txt"));
        texts.push(...answers.map(({ result }) => JSON.stringify(result)));
      }
    }
    return texts;
  } finally {
    await stop(swapper);
  }
}

describe.skipIf(gitCapability.missing)(gitCapability.label("escape attempts: git discovery raced"), () => {
  beforeAll(() => {
    scratch = temporaryDirectory("escape-r29-git-race");
    outsideGitDirectory = path.join(makeSecretRepository(path.join(scratch, "outside"), SECRET).directory, ".git");
  });
  afterAll(() => removeDirectory(scratch));

  escapeAttempt(
    "races",
    "the workspace's .git flips between an inside repository and a gitdir: file to an outside one while every git tool runs (workspace)",
    async () => {
      const denied = await raceAnswers("workspace");
      for (const text of denied) {
        // The log search repeats its query; anything else holding the secret came from outside.
        expect(text.replace(`"query":"${SECRET}"`, "")).not.toContain(SECRET);
        expect(text).not.toContain(path.dirname(outsideGitDirectory));
      }
      // The race is real: some calls under the sandbox answer, from the inside repository (most
      // find no repository, or are refused as outside, depending on the moment).
      expect(denied.some((text) => text.startsWith('{"ok":true'))).toBe(true);
      expect(denied.some((text) => text.includes("repository_outside_workspace"))).toBe(true);
      // Control: unrestricted, the same race answers from the outside repository.
      const control = await raceAnswers("unrestricted");
      expect(control.some((text) => text.replace(`"query":"${SECRET}"`, "").includes(SECRET))).toBe(true);
    },
    240_000,
  );
});
