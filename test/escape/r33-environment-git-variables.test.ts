/**
 * Red team round 33: git's environment variables in the host's process. A host started from a git
 * hook, an alias or `git rebase --exec` inherits `GIT_DIR`, `GIT_WORK_TREE`, `GIT_COMMON_DIR`,
 * `GIT_INDEX_FILE`, `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES` pointing at
 * another repository (here, one outside the workspace holding a secret), and `GIT_CONFIG_*` that
 * would add config. Held when the git tools, asked about the workspace's repository under
 * `workspace` and `unrestricted`, answer from the workspace's repository only: the outside commit
 * and its secret appear in no answer, the workspace's commit does. Control: host git, run in the
 * workspace with the same variables, reads the outside repository (the variables are what git
 * follows).
 */
import { mkdirSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { FixtureRepository, git } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { callGitTools, gitToolCalls, makeSecretRepository } from "./support/git-tool-calls.js";

const gitCapability = capability("git");
const SECRET = "r33-git-env-secret";

let root: string;
let workspace: string;
let outside: string;

/** The variables git sets for a hook, and those a caller adds, all naming the outside repository. */
function variables(): Record<string, string> {
  const gitDirectory = path.join(outside, ".git");
  return {
    GIT_DIR: gitDirectory,
    GIT_WORK_TREE: outside,
    GIT_COMMON_DIR: gitDirectory,
    GIT_INDEX_FILE: path.join(gitDirectory, "index"),
    GIT_OBJECT_DIRECTORY: path.join(gitDirectory, "objects"),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(gitDirectory, "objects"),
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.worktree",
    GIT_CONFIG_VALUE_0: outside,
  };
}

describe.skipIf(gitCapability.missing)(
  gitCapability.label("escape attempts: round 33, git variables in the host's environment"),
  () => {
    beforeAll(async () => {
      root = await realpath(await mkdtemp(path.join(tmpdir(), "atc-escape-r33-env-")));
      workspace = path.join(root, "ws");
      outside = path.join(root, "outside");
      makeSecretRepository(outside, SECRET);
      mkdirSync(workspace);
      git(workspace, ["init", "-q"]);
      const own = new FixtureRepository(workspace);
      own.write("secret.txt", "mine\n").commit("workspace first", { name: "W", email: "w@example.com" });
      own.write("secret.txt", "mine too\n").commit("workspace second", { name: "W", email: "w@example.com" });
    });
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });

    escapeAttempt(
      "environment",
      "GIT_DIR, GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY, alternates and GIT_CONFIG_* naming an outside repository",
      async () => {
        const set = variables();
        const outsideIds = git(outside, ["rev-list", "HEAD"]).trim().split("\n");
        const saved = Object.fromEntries(Object.keys(set).map((name) => [name, process.env[name]]));
        try {
          Object.assign(process.env, set);
          for (const scope of ["workspace", "unrestricted"] as const) {
            const answers = await callGitTools(workspace, scope, gitToolCalls(SECRET, "secret.txt"));
            for (const { name, result } of answers) {
              const text = JSON.stringify(result);
              // (git_log_search echoes its query, the secret: the outside commit's message, author and id are looked for.)
              expect(text, `${scope} ${name}`).not.toContain(`add ${SECRET}`);
              expect(text, `${scope} ${name}`).not.toContain("Outsider");
              for (const id of outsideIds) expect(text, `${scope} ${name}`).not.toContain(id.slice(0, 7));
            }
            const history = answers.find((answer) => answer.name === "git_file_history");
            expect(JSON.stringify(history?.result), scope).toContain("workspace second");
          }
        } finally {
          for (const [name, value] of Object.entries(saved)) {
            if (value === undefined) delete process.env[name];
            else process.env[name] = value;
          }
        }
        // Control: host git in the workspace, given the variables, reads the outside repository.
        expect(git(workspace, ["log", "--format=%s"], set)).toContain(`add ${SECRET}`);
        expect(git(workspace, ["log", "--format=%s"])).not.toContain(SECRET);
      },
    );
  },
);
