import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const git = capability("git");
let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-gitmeta-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});
function runIn(sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}
const codeOf = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

/** Every way a file tool can create or change a file: write, edit, replace, apply_patch (add, update, move, delete). */
async function attempts(run: Run, target: string): Promise<string[]> {
  return [
    codeOf(await run.call("write", { path: target, content: "[core]\n\tfsmonitor = touch /tmp/pwned\n" })),
    codeOf(await run.call("edit", { path: target, old_text: "bare", new_text: "fsmonitor" })),
    codeOf(await run.call("replace", { path: target, find: "bare", replace: "fsmonitor" })),
    codeOf(await run.call("apply_patch", { patch: `*** Begin Patch\n*** Add File: ${target}\n+x\n*** End Patch` })),
    codeOf(await run.call("apply_patch", { patch: `*** Begin Patch\n*** Delete File: ${target}\n*** End Patch` })),
    codeOf(
      await run.call("apply_patch", {
        patch: `*** Begin Patch\n*** Update File: notes.txt\n*** Move to: ${target}\n@@\n-n\n+m\n*** End Patch`,
      }),
    ),
  ];
}

describe.skipIf(git.missing)(git.label("file tools and git state under sandbox workspace"), () => {
  beforeEach(async () => {
    execFileSync("git", ["init", "-q", workspace]);
    execFileSync("git", ["-C", workspace, "submodule", "status"]);
    await mkdir(path.join(workspace, ".git", "modules", "sub"), { recursive: true });
    await writeFile(path.join(workspace, ".git", "modules", "sub", "config"), "[core]\n\tbare = false\n");
    await writeFile(path.join(workspace, "notes.txt"), "n\n");
  });

  for (const target of [
    ".git/config",
    ".git/config.worktree",
    ".git/hooks/pre-commit",
    ".git/commondir",
    ".git/info/attributes",
    ".git/objects/info/alternates",
    ".git/modules/sub/config",
    ".git/worktrees/w/gitdir",
    "sub/.git",
    ".GIT/config",
  ]) {
    escapeAttempt("git-metadata", `write/edit/replace/apply_patch cannot create or change ${target}`, async () => {
      const before = await readFile(path.join(workspace, ".git", "config"), "utf8");
      const codes = await attempts(runIn("workspace"), target);
      expect(codes.filter((code) => code === "ok")).toEqual([]);
      expect(codes).toContain("git_metadata_refused");
      expect(await readFile(path.join(workspace, ".git", "config"), "utf8")).toBe(before);
    });
  }

  it("positive control: unrestricted writes .git/config, and workspace still writes ordinary files and .gitignore", async () => {
    expect(codeOf(await runIn("unrestricted").call("write", { path: ".git/config", content: "[core]\n" }))).toBe("ok");
    const run = runIn("workspace");
    expect(codeOf(await run.call("write", { path: ".gitignore", content: "dist\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: "src/config", content: "x\n" }))).toBe("ok");
  });
});

describe.skipIf(git.missing)(git.label("file tools and git directories of any name under sandbox workspace"), () => {
  beforeEach(async () => {
    // The workspace's .git is a file naming ./.realgit, and a bare repository sits beside it.
    execFileSync("git", ["init", "-q", "--separate-git-dir", path.join(workspace, ".realgit"), workspace]);
    execFileSync("git", ["init", "-q", "--bare", path.join(workspace, "mirror.git")]);
    await writeFile(path.join(workspace, "notes.txt"), "n\n");
  });

  for (const target of [
    ".realgit/config",
    ".realgit/hooks/pre-commit",
    ".realgit/info/attributes",
    ".realgit/objects/info/alternates",
    "mirror.git/config",
    "mirror.git/hooks/pre-receive",
  ]) {
    escapeAttempt(
      "git-metadata",
      `write/edit/replace/apply_patch cannot change ${target} (a git directory not named .git)`,
      async () => {
        const before = await readFile(path.join(workspace, ".realgit", "config"), "utf8");
        const codes = await attempts(runIn("workspace"), target);
        expect(codes.filter((code) => code === "ok")).toEqual([]);
        expect(codes).toContain("git_metadata_refused");
        expect(await readFile(path.join(workspace, ".realgit", "config"), "utf8")).toBe(before);
        // The host's git really uses it: the attack would matter.
        expect(execFileSync("git", ["-C", workspace, "rev-parse", "--git-dir"], { encoding: "utf8" }).trim()).toBe(
          path.join(await realpath(workspace), ".realgit"),
        );
      },
    );
  }

  /** A patch adding 40 ordinary files in 4 directories (opened in one batch, one walk per directory), and `extra`. */
  const manyFiles = (extra: string | undefined) =>
    [
      "*** Begin Patch",
      ...Array.from({ length: 40 }, (_, index) => [`*** Add File: src/d${index % 4}/f${index}.txt`, `+${index}`]).flat(),
      ...(extra === undefined ? [] : [`*** Add File: ${extra}`, "+[core]"]),
      "*** End Patch",
    ].join("\n");

  for (const target of [".realgit/config", ".realgit/hooks/x", "mirror.git/config", "mirror.git/hooks/pre-receive"]) {
    escapeAttempt("git-metadata", `a 41-file apply_patch naming ${target} among ordinary files changes nothing`, async () => {
      const result = await runIn("workspace").call("apply_patch", { patch: manyFiles(target) });
      expect(codeOf(result)).toBe("git_metadata_refused");
      await expect(readFile(path.join(workspace, "src", "d0", "f0.txt"), "utf8")).rejects.toThrow();
      expect(await readFile(path.join(workspace, target), "utf8").catch(() => "absent")).not.toBe("[core]\n");
    });
  }

  it("positive control: the same 40 ordinary files without the git state are applied", async () => {
    expect(codeOf(await runIn("workspace").call("apply_patch", { patch: manyFiles(undefined) }))).toBe("ok");
    expect(await readFile(path.join(workspace, "src", "d3", "f39.txt"), "utf8")).toBe("39\n");
  });

  it("positive control: unrestricted writes .realgit/config; workspace writes ordinary files named config, HEAD and hooks/x", async () => {
    expect(codeOf(await runIn("unrestricted").call("write", { path: ".realgit/config", content: "[core]\n" }))).toBe("ok");
    const run = runIn("workspace");
    expect(codeOf(await run.call("write", { path: "conf/config", content: "x\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: "conf/HEAD", content: "x\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: "conf/hooks/x", content: "x\n" }))).toBe("ok");
    expect(codeOf(await run.call("write", { path: ".realgit/description", content: "x\n" }))).toBe("ok");
  });
});
