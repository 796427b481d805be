/**
 * The ignore-file pre-check before ripgrep met a `.git` that is not a directory: in a git worktree
 * or a submodule `.git` is a FILE, so `lstat('<ws>/.git/info/exclude')` fails with ENOTDIR, and a
 * `.git` link to itself (`ln -s .git sub/.git`, which a sandboxed command can make) fails with
 * ELOOP. Only ENOENT was taken as "no file": every grep failed with `tool_failed`. Any error of the
 * metadata calls means ripgrep's own open fails at once too, so there is nothing unsafe to open.
 * Controls: the same trees answer with ripgrep applying the regular ignore files beside them.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

describe.skipIf(ripgrep.missing)(ripgrep.label("grep's ignore-file pre-check on a .git that is not a directory"), () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-scan-errors-"));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function grep(root: string, engine: "auto" | "ripgrep", args: Record<string, unknown> = {}) {
    const run = createRegistry({ tools: [createGrepTool({ engine, searchTimeoutMs: 8_000 })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox: "unrestricted" },
    });
    const result = await run.call("grep", { pattern: "needle", ...args });
    return { result, output: String(result.ok ? result.output : `${result.error.code}: ${result.error.message}`) };
  }

  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });

  it("a git worktree (its .git is a file): ripgrep answers, applying the worktree's .gitignore", async () => {
    const repo = path.join(base, "repo");
    await mkdir(repo);
    git(repo, "init", "-q");
    await writeFile(path.join(repo, "f.txt"), "needle\n");
    await writeFile(path.join(repo, "hidden.txt"), "needle\n");
    await writeFile(path.join(repo, ".gitignore"), "hidden.txt\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "init");
    git(repo, "worktree", "add", "-q", path.join(base, "wt"));
    const wt = path.join(base, "wt");
    await writeFile(path.join(wt, "hidden.txt"), "needle\n");
    for (const engine of ["auto", "ripgrep"] as const) {
      const { result, output } = await grep(wt, engine);
      expect(result.ok, output).toBe(true);
      expect(output).toContain("f.txt:1:needle");
      expect(output).not.toContain("hidden.txt");
      expect(output).toMatch(/\[engine: ripgrep, sandbox [^;\]]+\]$/);
    }
  });

  it("a submodule-like .git file below and a .git link to itself: ripgrep answers", async () => {
    const root = path.join(base, "loops");
    await mkdir(path.join(root, "sub", "mod"), { recursive: true });
    await writeFile(path.join(root, "f.txt"), "needle\n");
    await writeFile(path.join(root, "sub", "g.txt"), "needle\n");
    await writeFile(path.join(root, "sub", "mod", "h.txt"), "needle\n");
    await writeFile(path.join(root, "sub", "mod", ".git"), "gitdir: ../../nowhere\n");
    await writeFile(path.join(root, "sub", ".ignore"), "ignored.txt\n");
    await writeFile(path.join(root, "sub", "ignored.txt"), "needle\n");
    await symlink(".git", path.join(root, "sub", ".git"));
    for (const engine of ["auto", "ripgrep"] as const) {
      for (const args of [{}, { path: "sub" }, { path: "sub/mod" }]) {
        const { result, output } = await grep(root, engine, args);
        expect(result.ok, output).toBe(true);
        expect(output).toContain("h.txt:1:needle");
        expect(output).not.toContain("ignored.txt");
        expect(output).toMatch(/\[engine: ripgrep, sandbox [^;\]]+\]$/);
      }
    }
  });
});
