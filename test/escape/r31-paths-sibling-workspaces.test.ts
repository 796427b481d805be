/**
 * Red team round 31: two top-level runs whose workspaces nest (a host running one agent on a
 * repository and another on one of its packages, `/repo` and `/repo/sub`), where the outer run's
 * sandboxed command replaces `sub` (or a link the host gave the inner run's workspace through,
 * `/repo/current`) by a link to a host directory while the inner run is live. The workspace is
 * resolved at every use (so a workspace reached through a link works), and the inner run's file
 * tools followed the new link: they read, wrote, edited, patched, listed and globbed the host
 * directory (its `bash` and `grep` refused, finding their working directory outside the
 * workspace). Child runs were held (paths-child-run-workspace.test.ts); these two runs are not
 * parent and child. Held when nothing of the outside directory is read, listed or written.
 * Controls: before the swap the inner run works in its directory; a run the host makes after the
 * swap on the same path follows the link (the host said so) and reads the secret; with the
 * directory put back, the inner run works again.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createRegistry, type Registry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { createGitTools, GIT_TOOL_NAMES } from "../../src/git/index.js";
import { createFileTools } from "../../src/tools/fs/file-tools.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { FixtureRepository, git } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { makeSecretRepository } from "./support/git-tool-calls.js";
import { type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const gitCapability = capability("git");

const SECRET = "r31 host secret";

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 31, a sibling run's workspace swapped"), () => {
  let ground: Playground;
  let registry: Registry;
  let outer: Run;
  beforeEach(async () => {
    ground = await playground();
    writeFileSync(path.join(ground.outside, "secret.txt"), `${SECRET}\n`);
    mkdirSync(path.join(ground.workspace, "sub"));
    writeFileSync(path.join(ground.workspace, "sub", "secret.txt"), "inside\n");
    registry = createRegistry({ tools: [...createFileTools(), createBashTool(), ...createGitTools()] });
    outer = registry.createRun({ profile: "full", permissions: { sandbox: "workspace", workspace: ground.workspace } });
  });
  afterEach(async () => {
    await registry.close();
    await ground.dispose();
  });

  const inner = (workspace: string) => registry.createRun({ profile: "full", permissions: { sandbox: "workspace", workspace } });
  const text = (result: ToolCallResult) => (result.ok ? String(result.output) : `error:${result.error.code}`);

  /** What `run` reaches of the outside directory through its workspace: each way in its own entry. */
  async function reach(run: Run): Promise<string[]> {
    const before = readdirSync(ground.outside).sort();
    const reached: string[] = [];
    const answers: Record<string, ToolCallResult> = {
      read: await run.call("read", { path: "secret.txt" }),
      write: await run.call("write", { path: "written.txt", content: "x\n" }),
      edit: await run.call("edit", { path: "secret.txt", old_text: SECRET, new_text: "edited" }),
      replace: await run.call("replace", { path: "secret.txt", find: "host", replace: "edited" }),
      apply_patch: await run.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch" }),
      ls: await run.call("ls", { path: "." }),
      glob: await run.call("glob", { pattern: "*" }),
      grep: await run.call("grep", { pattern: "r31 host" }),
      bash: await run.call("bash", { command: "cat secret.txt; echo x > bashed.txt" }),
    };
    for (const [tool, answer] of Object.entries(answers)) {
      if (text(answer).includes(SECRET) || text(answer).includes(ground.outside)) reached.push(`${tool} saw`);
    }
    if (readFileSync(path.join(ground.outside, "secret.txt"), "utf8") !== `${SECRET}\n`) reached.push("changed secret.txt");
    const added = readdirSync(ground.outside)
      .sort()
      .filter((name) => !before.includes(name));
    if (added.length > 0) reached.push(`created ${added.join(",")}`);
    return reached;
  }

  escapeAttempt(
    "paths",
    "a sibling run's command replaces the directory of a live run's workspace by a link out",
    async () => {
      const workspace = path.join(ground.workspace, "sub");
      const run = inner(workspace);
      // Control: the inner run works in its own directory.
      expect(text(await run.call("read", { path: "secret.txt" }))).toContain("inside");
      expect((await run.call("write", { path: "own.txt", content: "own\n" })).ok).toBe(true);
      const swapped = await sh(outer, `mv sub sub.real && ln -s ${quote(ground.outside)} sub && echo swapped`);
      expect(swapped.stdout).toContain("swapped");
      expect(await reach(run)).toEqual([]);
      // Control: a run the host makes now, on the same path, follows the link out (the host's choice).
      expect(text(await inner(workspace).call("read", { path: "secret.txt" }))).toContain(SECRET);
      // Control: the directory put back, the first run works there again.
      expect((await sh(outer, "rm sub && mv sub.real sub && echo back")).stdout).toContain("back");
      expect(text(await run.call("read", { path: "own.txt" }))).toContain("own");
      expect(existsSync(path.join(ground.outside, "own.txt"))).toBe(false);
    },
    60_000,
  );

  escapeAttempt(
    "paths",
    "a sibling run's command repoints the link a live run's workspace was given through",
    async () => {
      mkdirSync(path.join(ground.workspace, "releases", "1"), { recursive: true });
      writeFileSync(path.join(ground.workspace, "releases", "1", "secret.txt"), "inside\n");
      symlinkSync("releases/1", path.join(ground.workspace, "current"));
      const workspace = path.join(ground.workspace, "current");
      const run = inner(workspace);
      expect(text(await run.call("read", { path: "secret.txt" }))).toContain("inside");
      const swapped = await sh(outer, `ln -sfn ${quote(ground.outside)} current && echo swapped`);
      expect(swapped.stdout).toContain("swapped");
      expect(await reach(run)).toEqual([]);
      // Control: a run the host makes now follows the repointed link out.
      expect(text(await inner(workspace).call("read", { path: "secret.txt" }))).toContain(SECRET);
    },
    60_000,
  );

  describe.skipIf(gitCapability.missing)(gitCapability.label("git tools"), () => {
    escapeAttempt(
      "paths",
      "a sibling run's command replaces a live run's repository by a link to a host repository (git tools)",
      async () => {
        makeSecretRepository(path.join(ground.outside, "repo"), "outside-secret-r31");
        const own = path.join(ground.workspace, "sub");
        git(own, ["init", "-q"]);
        new FixtureRepository(own).write("a.txt", "a\n").commit("inside-commit", { name: "In", email: "in@example.com" });
        const run = inner(own);
        run.activate([...GIT_TOOL_NAMES]);
        // Control: the run's git tools read its own repository.
        expect(JSON.stringify(await run.call("git_log_search", { query: "inside-commit" }))).toContain("inside-commit");
        const swapped = await sh(
          outer,
          `mv sub sub.real && ln -s ${quote(path.join(ground.outside, "repo"))} sub && echo swapped`,
        );
        expect(swapped.stdout).toContain("swapped");
        const answer = await run.call("git_log_search", { query: "outside-secret-r31" });
        expect(JSON.stringify(answer)).not.toContain("add outside-secret-r31");
        expect(answer.ok ? "ok" : answer.error.code).toBe("repository_outside_workspace");
        // Control: a run the host makes now follows the link to the outside repository.
        const fresh = inner(own);
        fresh.activate([...GIT_TOOL_NAMES]);
        expect(JSON.stringify(await fresh.call("git_log_search", { query: "outside-secret-r31" }))).toContain(
          "add outside-secret-r31",
        );
      },
      60_000,
    );
  });
});
