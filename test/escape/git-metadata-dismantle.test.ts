/**
 * Escape attempts over several calls against git directories not named `.git`: one command
 * dismantles the repository (moves its HEAD, objects and refs away) so that the next call no
 * longer recognises it, then writes its config with an fsmonitor command (bash or the write tool)
 * and puts everything back; the host's git then runs it. The control runs the same calls under
 * scope `local`, where host git does run the planted command.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createBashTool, createFileTools } from "agent-tool-catalog/tools";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

function hostGit(cwd: string, args: readonly string[]): void {
  try {
    execFileSync("git", [...args], { cwd, stdio: "ignore", timeout: 20_000 });
  } catch {
    // The marker decides, not git's exit status.
  }
}

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: dismantled git directories"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  function runIn(sandbox: "workspace" | "local", workspace: string): Run {
    return createRegistry({ tools: [...createFileTools(), createBashTool()] }).createRun({
      profile: "full",
      permissions: { sandbox, workspace },
    });
  }

  /**
   * In a fresh workspace with a separate git directory (`.realgit`, named by the `.git` file) and
   * a bare `mirror.git`: dismantle `gitDirectory`, plant its config (`via` bash or write), restore,
   * then run host git on it. Says whether the planted fsmonitor ran.
   */
  async function attempt(scope: "workspace" | "local", gitDirectory: string, via: "bash" | "write"): Promise<boolean> {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    hostGit(root, ["init", "-q", "--separate-git-dir", path.join(root, ".realgit")]);
    hostGit(root, ["init", "-q", "--bare", path.join(root, "mirror.git")]);
    const marker = path.join(ground.outside, "fired");
    const run = runIn(scope, root);
    const parts = ["HEAD", "objects", "refs"];
    await sh(run, parts.map((part) => `mv ${gitDirectory}/${part} ${gitDirectory}/${part}-away`).join("; "));
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = ${gitDirectory === "mirror.git"}\n\tfsmonitor = "touch ${marker}; echo"\n`;
    if (via === "write") await run.call("write", { path: `${gitDirectory}/config`, content: config });
    else await sh(run, `printf '%s' ${quote(config)} > ${gitDirectory}/config`);
    await sh(run, parts.map((part) => `mv ${gitDirectory}/${part}-away ${gitDirectory}/${part}`).join("; "));
    if (gitDirectory === "mirror.git") hostGit(root, ["--git-dir", "mirror.git", "--work-tree", ".", "status"]);
    else hostGit(root, ["status"]);
    return existsSync(marker);
  }

  for (const gitDirectory of ["mirror.git", ".realgit"]) {
    for (const via of ["bash", "write"] as const) {
      escapeAttempt(
        "git-metadata",
        `dismantle ${gitDirectory} in one call, plant its config with ${via} in the next`,
        async () => {
          expect(await attempt("workspace", gitDirectory, via)).toBe(false);
          expect(await attempt("local", gitDirectory, via)).toBe(true);
        },
      );
    }
  }
});
