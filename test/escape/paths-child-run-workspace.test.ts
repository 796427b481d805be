/**
 * Escape attempts at host files through a child run's workspace (round 22). A child run (a
 * sub-agent, a workflow step, a forked skill) may be given a workspace inside its parent's, never
 * wider: `narrowPermissions` compared the paths as text, so `<parent>/sub/../..` (which starts with
 * `<parent>/`) and `<parent>/link`, a link the parent's own sandboxed command made to a host
 * directory, passed, and the child's file tools (and commands, given the real path as `cwd`) worked there. A directory the child
 * was given may also be replaced by such a link after the child was made. Controls: a child on a
 * real directory inside reads and writes there, and the host files the attacks aim at exist.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createRegistry, type Registry, type Run } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { createGitTools, GIT_TOOL_NAMES } from "../../src/git/index.js";
import { createMonitorTool } from "../../src/host/index.js";
import { createFileTools } from "../../src/tools/fs/file-tools.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { FixtureRepository, git } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { makeSecretRepository } from "./support/git-tool-calls.js";
import { type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: a child run's workspace"), () => {
  let ground: Playground;
  let registry: Registry;
  let parent: Run;
  beforeEach(async () => {
    ground = await playground();
    writeFileSync(path.join(ground.outside, "secret"), "host secret\n");
    mkdirSync(path.join(ground.workspace, "sub"));
    registry = createRegistry({ tools: [...createFileTools(), createBashTool(), createMonitorTool(), ...createGitTools()] });
    parent = registry.createRun({ profile: "full", permissions: { sandbox: "workspace", workspace: ground.workspace } });
  });
  afterEach(async () => {
    await registry.close();
    await ground.dispose();
  });

  /** A child of the parent run on `workspace`, or the refusal's message. */
  function child(workspace: string): Run | string {
    try {
      return registry.createRun({ parent, profile: "full", permissions: { workspace } });
    } catch (error) {
      return String(error);
    }
  }

  /** What `run` reaches of the outside directory, seen from its workspace as `relative`. */
  async function reach(run: Run, relative: string): Promise<string[]> {
    const reached: string[] = [];
    const read = await run.call("read", { path: `${relative}/secret` });
    if (read.ok && String(read.output).includes("host secret")) reached.push("read");
    await run.call("write", { path: `${relative}/written-by-tool`, content: "x\n" });
    if (existsSync(path.join(ground.outside, "written-by-tool"))) reached.push("write");
    const shell = await sh(run, `cat ${quote(`${relative}/secret`)}; echo x > ${quote(`${relative}/written-by-bash`)}`);
    if (shell.stdout.includes("host secret")) reached.push("bash read");
    if (existsSync(path.join(ground.outside, "written-by-bash"))) reached.push("bash write");
    // The same with the outside directory's real path as the working directory.
    const there = await sh(run, "cat secret; echo x > written-by-bash-cwd", { cwd: ground.outside });
    if (there.stdout.includes("host secret")) reached.push("bash read (cwd)");
    if (existsSync(path.join(ground.outside, "written-by-bash-cwd"))) reached.push("bash write (cwd)");
    const found = await run.call("grep", { pattern: "host secret", path: relative });
    if (found.ok && String(found.output).includes("secret")) reached.push("grep");
    run.activate(["monitor"]);
    const started = await run.call("monitor", {
      action: "start",
      command: "cat secret; echo x > written-by-monitor",
      cwd: relative,
    });
    if (started.ok) {
      const { id } = started.output as { id: string };
      const waited = await run.call("monitor", { action: "wait", id, timeout_seconds: 10 });
      if (JSON.stringify(waited).includes("host secret")) reached.push("monitor read");
    }
    if (existsSync(path.join(ground.outside, "written-by-monitor"))) reached.push("monitor write");
    return reached;
  }

  escapeAttempt(
    "paths",
    "a child workspace <parent>/sub/../.. (inside as text, the parent's parent on disk)",
    async () => {
      // Control: the host's /tmp holds the outside directory, so the climb would reach it.
      expect(path.dirname(ground.outside)).toBe(path.dirname(ground.workspace));
      const made = child(`${ground.workspace}/sub/../..`);
      if (typeof made === "string") expect(made).toContain("must be its parent's workspace");
      else expect(await reach(made, path.basename(ground.outside))).toEqual([]);
    },
    30_000,
  );

  escapeAttempt(
    "paths",
    "a child workspace on a link the parent's sandboxed command made to a host directory",
    async () => {
      const made = await sh(parent, `ln -s ${quote(ground.outside)} out && cat out/secret`);
      // Control: the link is there; the parent's own sandbox does not follow it out.
      expect(made.stdout).not.toContain("host secret");
      expect(readFileSync(path.join(ground.workspace, "out/secret"), "utf8")).toBe("host secret\n");
      const run = child(`${ground.workspace}/out`);
      if (typeof run === "string") expect(run).toContain("outside");
      else expect(await reach(run, ".")).toEqual([]);
    },
    30_000,
  );

  escapeAttempt(
    "paths",
    "a child's workspace directory replaced by the parent's command with a link to a host directory",
    async () => {
      const run = child(`${ground.workspace}/sub`);
      if (typeof run === "string") throw new Error(run);
      // Control: the child reads and writes in its real directory, with both kinds of tools.
      writeFileSync(path.join(ground.workspace, "sub/own"), "own\n");
      expect(await run.call("read", { path: "own" })).toMatchObject({ ok: true });
      expect(await run.call("write", { path: "by-tool", content: "x\n" })).toMatchObject({ ok: true });
      expect((await sh(run, "cat own && echo x > by-bash")).stdout).toContain("own");
      expect(
        existsSync(path.join(ground.workspace, "sub/by-tool")) && existsSync(path.join(ground.workspace, "sub/by-bash")),
      ).toBe(true);
      const swapped = await sh(parent, `mv sub sub.real && ln -s ${quote(ground.outside)} sub && echo swapped`);
      expect(swapped.stdout).toContain("swapped");
      expect(await reach(run, ".")).toEqual([]);
    },
    30_000,
  );

  escapeAttempt(
    "paths",
    "a child's repository replaced by the parent's command with a link to a host repository (git tools)",
    async () => {
      makeSecretRepository(path.join(ground.outside, "repo"), "outside-secret-4711");
      const own = path.join(ground.workspace, "sub");
      git(own, ["init", "-q"]);
      new FixtureRepository(own).write("a.txt", "a\n").commit("inside-commit", { name: "In", email: "in@example.com" });
      const run = child(own);
      if (typeof run === "string") throw new Error(run);
      run.activate([...GIT_TOOL_NAMES]);
      // Control: the child's git tools read its own repository.
      expect(JSON.stringify(await run.call("git_log_search", { query: "inside-commit" }))).toContain("inside-commit");
      const swapped = await sh(
        parent,
        `mv sub sub.real && ln -s ${quote(path.join(ground.outside, "repo"))} sub && echo swapped`,
      );
      expect(swapped.stdout).toContain("swapped");
      const answer = await run.call("git_log_search", { query: "outside-secret-4711" });
      expect(JSON.stringify(answer)).not.toContain("add outside-secret-4711");
      expect(answer.ok ? "ok" : answer.error.code).toBe("repository_outside_workspace");
    },
    30_000,
  );
});
