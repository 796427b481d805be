/**
 * Spec conformance, variants round 3: one wording for a special file in every model-visible
 * message. A named pipe was "a named pipe (FIFO)"... in four spellings: the file tools said
 * "named pipe (FIFO)", grep's note on why ripgrep was not run "a named pipe", the git tools' damaged
 * repository "a FIFO (named pipe)", the host stores' broken entries "a FIFO". Now each says
 * "a named pipe (FIFO)" (`src/errors/special-file-kind.ts`). Also: a host fs client whose stats
 * answer only isFile / isDirectory still serves the git tools. Through the package entries.
 */
import { execFileSync } from "node:child_process";
import * as nodeFs from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createGitTools, GIT_TOOL_NAMES } from "agent-tool-catalog/git";
import { createSkillManageTool, DirectorySkillStore } from "agent-tool-catalog/host";
import { createFileTools, createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { modelError, okText, runCommonJs } from "./support.js";

const PIPE = "a named pipe (FIFO)";
const ripgrep = capability("ripgrep");

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-special-wording-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

let counter = 0;
async function directory(): Promise<string> {
  const made = path.join(base, `w${++counter}`);
  await mkdir(made, { recursive: true });
  return made;
}

function gitRepository(root: string): void {
  const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "first needle");
}

function gitRun(root: string, options: Parameters<typeof createGitTools>[0] = {}): Run {
  const run = createRegistry({ tools: createGitTools(options) }).createRun({ permissions: { workspace: root } });
  run.activate([...GIT_TOOL_NAMES]);
  return run;
}

describe("a named pipe is called the same in every tool's message", () => {
  it("read and write (unrestricted and workspace sandbox)", async () => {
    const root = await directory();
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    for (const sandbox of ["unrestricted", "workspace"] as const) {
      const run = createRegistry({ tools: createFileTools() }).createRun({ permissions: { workspace: root, sandbox } });
      const read = modelError(await run.call("read", { path: "pipe" }), "special_file_refused");
      expect(read.message, sandbox).toContain(`it is ${PIPE}, not a regular file`);
      // Positive control: a regular file beside it reads.
      await writeFile(path.join(root, "plain.txt"), "x\n");
      expect(okText(await run.call("read", { path: "plain.txt" }))).toContain("x");
    }
  });

  it.skipIf(ripgrep.missing)("grep's note on why ripgrep was not run", async () => {
    const root = await directory();
    await writeFile(path.join(root, "probe.txt"), "needle\n");
    execFileSync("mkfifo", [path.join(root, ".gitignore")]);
    const run = createRegistry({ tools: [createGrepTool({ searchTimeoutMs: 8_000 })] }).createRun({
      profile: "full",
      permissions: { workspace: root },
    });
    const output = okText(await run.call("grep", { pattern: "needle" }));
    expect(output).toContain("probe.txt:1:needle");
    expect(output).toContain(`.gitignore is ${PIPE})`);
  });

  it("the git tools' damaged repository, with the node driver and through a host fs client", async () => {
    const root = await directory();
    gitRepository(root);
    // Positive control: the repository answers before HEAD is replaced.
    expect((await gitRun(root).call("git_log_search", { query: "needle" })).ok).toBe(true);
    nodeFs.rmSync(path.join(root, ".git/HEAD"));
    execFileSync("mkfifo", [path.join(root, ".git/HEAD")]);
    for (const options of [{}, { fs: nodeFs }]) {
      const error = modelError(await gitRun(root, options).call("git_log_search", { query: "needle" }), "corrupt_object");
      expect(error.message).toContain(`".git/HEAD" is ${PIPE}, not a regular file`);
    }
  });

  it("a host fs client whose stats answer only isFile and isDirectory still serves the git tools", async () => {
    const root = await directory();
    gitRepository(root);
    // The stats isomorphic-git needs, without isFIFO / isSocket / isCharacterDevice / isBlockDevice.
    const bare = (stats: nodeFs.Stats) => ({
      ...stats,
      isFile: () => stats.isFile(),
      isDirectory: () => stats.isDirectory(),
      isSymbolicLink: () => stats.isSymbolicLink(),
    });
    const promises = {
      ...nodeFs.promises,
      stat: async (file: string) => bare(await nodeFs.promises.stat(file)),
      lstat: async (file: string) => bare(await nodeFs.promises.lstat(file)),
    };
    const found = await gitRun(root, { fs: { promises } as never }).call("git_log_search", { query: "needle" });
    expect(okText(found)).toContain("first needle");
  });

  it("the host stores' broken entries (skill_manage list)", async () => {
    const root = await directory();
    const skills = path.join(root, "skills");
    await mkdir(path.join(skills, "pipe"), { recursive: true });
    await mkdir(path.join(skills, "good"), { recursive: true });
    execFileSync("mkfifo", [path.join(skills, "pipe", "SKILL.md")]);
    await writeFile(path.join(skills, "good", "SKILL.md"), "---\nname: good\ndescription: A good skill.\n---\nBody.\n");
    const run = createRegistry({ tools: [createSkillManageTool(new DirectorySkillStore(skills))] }).createRun({
      profile: "full",
    });
    run.activate(["skill_manage"]);
    const listed = okText(await run.call("skill_manage", { action: "list" }));
    expect(listed).toContain("good");
    expect(listed).toContain(`it is ${PIPE}, not a regular file`);
  });

  it("from CommonJS: read of a named pipe", async () => {
    const root = await directory();
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    const message = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      createRegistry({ tools: createFileTools() }).createRun({ permissions: { workspace: ${JSON.stringify(root)} } })
        .call("read", { path: "pipe" }).then((result) => console.log(JSON.stringify(result.error.message)));`);
    expect(message).toContain(`it is ${PIPE}, not a regular file`);
  });
});
