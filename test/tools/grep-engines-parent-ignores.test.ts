/**
 * A grep of a directory below the workspace root applies the ignore files of the root and of every
 * directory between it and the searched one, as `rg` run at the root does, and none above the
 * workspace root. ripgrep ran with `--no-ignore-parent` on the searched directory, so `path: "sub"`
 * found `sub/e.txt` that the root's `.gitignore` lists, while the JavaScript engine hid it.
 * Control: the `rg` CLI's own answer at the workspace root with grep's flags.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");
/** The scopes each comparison runs under: `workspace` only where bubblewrap runs (skipped loudly). */
const SCOPES = [
  { sandbox: "unrestricted", missing: false, label: (title: string) => title },
  { sandbox: "workspace", missing: bubblewrap.missing, label: (title: string) => bubblewrap.label(title) },
] as const;

/** The files `rg` lists run at `workspace` with grep's flags, optionally of `target` only. */
function rgAtRoot(workspace: string, target?: string): string[] {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-parent"];
  for (const name of [".git", "node_modules", ".hg", ".svn"]) args.push("--glob", `!${name}`);
  args.push("-l", "needle", ...(target === undefined ? [] : [target]));
  try {
    const printed = execFileSync("rg", args, { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return printed.trim().split("\n").sort();
  } catch (error) {
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
}

async function grepFiles(
  workspace: string,
  engine: "ripgrep" | "javascript" | "auto",
  start: string | undefined,
  sandbox: "unrestricted" | "workspace" = "unrestricted",
): Promise<{ files: string[]; engine: string }> {
  const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
    profile: "full",
    permissions: { workspace, sandbox },
  });
  const result = await run.call("grep", { pattern: "needle", files_only: true, ...(start === undefined ? {} : { path: start }) });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  const lines = String(result.ok && result.output).split("\n");
  const files = lines.slice(0, -1).filter((line) => line !== "" && !line.startsWith("No matches"));
  return { files: files.sort(), engine: lines.at(-1) ?? "" };
}

describe.skipIf(ripgrep.missing)(ripgrep.label("grep applies the ignore files between the workspace root and its path"), () => {
  let outer: string;
  let workspace: string;
  beforeAll(async () => {
    // The workspace lies inside a larger git repository whose .gitignore (above the workspace) never applies.
    outer = await mkdtemp(path.join(tmpdir(), "atc-grep-parent-ignores-"));
    execFileSync("git", ["init", "-q", outer]);
    workspace = path.join(outer, "ws");
    const files: Record<string, string> = {
      ".gitignore": "top.txt\n",
      "ws/.gitignore": "e.txt\n/f.txt\nsub/g.txt\n*.log\n!keep.log\nsub/deep/\nn.txt\n",
      "ws/.rgignore": "r.txt\n",
      "ws/.git/info/exclude": "x.txt\n",
      "ws/sub/.gitignore": "!n.txt\n",
      "ws/a/.gitignore": "w.txt\n",
      "ws/a/.ignore": "*.tmp\n",
      "ws/c/.gitignore": "/d/q.txt\n",
    };
    for (const name of ["e.txt", "f.txt", "g.txt", "h.log", "keep.log", "n.txt", "r.txt", "x.txt", "top.txt", "plain.txt"]) {
      files[`ws/${name}`] = "needle\n";
      files[`ws/sub/${name}`] = "needle\n";
    }
    for (const name of ["sub/deep/y.txt", "a/b/w.txt", "a/b/v.txt", "a/b/s.tmp", "a/b/g.txt", "c/d/q.txt", "c/d/o.txt"]) {
      files[`ws/${name}`] = "needle\n";
    }
    await writeTree(outer, files);
  });
  afterAll(async () => {
    await rm(outer, { recursive: true, force: true });
  });

  for (const scope of SCOPES) {
    it.skipIf(scope.missing)(
      scope.label(`path sub: both engines name what rg at the workspace root names under sub (${scope.sandbox})`),
      async () => {
        const expected = rgAtRoot(workspace).filter((file) => file.startsWith("sub/"));
        // top.txt: the .gitignore above the workspace is not applied; n.txt: sub's negation wins.
        expect(expected).toEqual(["sub/f.txt", "sub/keep.log", "sub/n.txt", "sub/plain.txt", "sub/top.txt"]);
        for (const engine of ["ripgrep", "javascript"] as const) {
          const found = await grepFiles(workspace, engine, "sub", scope.sandbox);
          expect(found.files, `${engine} ${scope.sandbox}`).toEqual(expected);
          if (engine === "ripgrep") expect(found.engine).toMatch(/^\[engine: ripgrep, sandbox/);
        }
      },
    );

    it.skipIf(scope.missing)(
      scope.label(`path a/b: the ignore files of a (between the root and a/b) apply (${scope.sandbox})`),
      async () => {
        const expected = rgAtRoot(workspace).filter((file) => file.startsWith("a/b/"));
        expect(expected).toEqual(["a/b/g.txt", "a/b/v.txt"]);
        for (const engine of ["ripgrep", "javascript"] as const) {
          expect((await grepFiles(workspace, engine, "a/b", scope.sandbox)).files, `${engine} ${scope.sandbox}`).toEqual(
            expected,
          );
        }
      },
    );
  }

  it("the workspace root: the same as rg there, the .gitignore above it not applied", async () => {
    const expected = rgAtRoot(workspace);
    expect(expected).toContain("top.txt");
    for (const engine of ["ripgrep", "javascript"] as const) {
      expect((await grepFiles(workspace, engine, undefined)).files, engine).toEqual(expected);
    }
  });

  it("a pattern anchored in a directory between: the JavaScript engine answers, as rg at the root", async () => {
    const expected = rgAtRoot(workspace).filter((file) => file.startsWith("c/d/"));
    expect(expected).toEqual(["c/d/o.txt"]);
    for (const engine of ["ripgrep", "javascript", "auto"] as const) {
      const found = await grepFiles(workspace, engine, "c/d");
      expect(found.files, engine).toEqual(expected);
      if (engine !== "javascript")
        expect(found.engine).toMatch(/javascript worker \(ripgrep was not run: c\/\.gitignore has a pattern anchored/);
    }
  });

  it("a path that is an ignored file is searched, as rg searches a file named on its own", async () => {
    expect(rgAtRoot(workspace, "sub/e.txt")).toEqual(["sub/e.txt"]);
    for (const engine of ["ripgrep", "javascript"] as const) {
      expect((await grepFiles(workspace, engine, "sub/e.txt")).files, engine).toEqual(["sub/e.txt"]);
    }
  });
});

describe.skipIf(ripgrep.missing)(ripgrep.label("an unsafe ignore file between the workspace root and the path"), () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-parent-unsafe-"));
    await writeTree(workspace, { "a/b/v.txt": "needle\n", "a/b/w.txt": "needle\n", "a/.ignore": "w.txt\n" });
    execFileSync("mkfifo", [path.join(workspace, "a", ".gitignore")]);
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("ripgrep is not run on it: the JavaScript engine answers and says why", async () => {
    const found = await grepFiles(workspace, "auto", "a/b");
    expect(found.files).toEqual(["a/b/v.txt"]);
    expect(found.engine).toMatch(/javascript worker \(ripgrep was not run: a\/\.gitignore is a named pipe \(FIFO\)\)/);
  });

  it("engine ripgrep: the JavaScript engine answers too (the other ignore files applied), and says why", async () => {
    const found = await grepFiles(workspace, "ripgrep", "a/b");
    expect(found.files).toEqual(["a/b/v.txt"]);
    expect(found.engine).toMatch(/javascript worker \(ripgrep was not run: a\/\.gitignore is a named pipe \(FIFO\)\)/);
  });

  it("control: searched from a, whose ignore files ripgrep reads itself, the pipe is found too", async () => {
    const found = await grepFiles(workspace, "auto", "a");
    expect(found.engine).toMatch(/a\/\.gitignore is a named pipe \(FIFO\)/);
  });
});

describe.skipIf(ripgrep.missing)(ripgrep.label("an unsafe ignore file above the workspace"), () => {
  let outer: string;
  let workspace: string;
  beforeAll(async () => {
    outer = await mkdtemp(path.join(tmpdir(), "atc-grep-above-unsafe-"));
    workspace = path.join(outer, "ws");
    await writeTree(workspace, { "sub/v.txt": "needle\n" });
  });
  afterAll(async () => {
    await rm(outer, { recursive: true, force: true });
  });

  it("control: with none, ripgrep answers", async () => {
    const found = await grepFiles(workspace, "auto", "sub");
    expect(found.files).toEqual(["sub/v.txt"]);
    expect(found.engine).toMatch(/^\[engine: ripgrep, sandbox/);
  });

  // ripgrep opens the ignore files of every directory above the search root, --no-ignore-parent
  // or not: a named pipe there blocked it until grep's timeout.
  it("a named pipe .gitignore above the workspace: ripgrep is not run, the JavaScript engine answers", async () => {
    execFileSync("mkfifo", [path.join(outer, ".gitignore")]);
    for (const start of [undefined, "sub"]) {
      const found = await grepFiles(workspace, "auto", start);
      expect(found.files, String(start)).toEqual(["sub/v.txt"]);
      expect(found.engine).toMatch(
        /^\[engine: javascript worker \(ripgrep was not run: .*\.gitignore is a named pipe \(FIFO\)\)/,
      );
    }
  });
});

describe.skipIf(ripgrep.missing)(ripgrep.label("a .git that is a file (a worktree, a submodule)"), () => {
  let outer: string;
  let workspace: string;
  beforeAll(async () => {
    outer = await mkdtemp(path.join(tmpdir(), "atc-grep-git-file-"));
    workspace = path.join(outer, "ws");
    await writeTree(outer, {
      ".git": "gitdir: /nowhere/.git/worktrees/x\n",
      "ws/.gitignore": "e.txt\n",
      "ws/.ignore": "i.txt\n",
      "ws/pkg/e.txt": "needle\n",
      "ws/pkg/sub/.git": "gitdir: /nowhere/.git/modules/sub\n",
      "ws/pkg/sub/e.txt": "needle\n",
      "ws/pkg/sub/i.txt": "needle\n",
      "ws/pkg/sub/v.txt": "needle\n",
    });
  });
  afterAll(async () => {
    await rm(outer, { recursive: true, force: true });
  });

  // Its `.git/info/exclude` is no file (ENOTDIR, as ripgrep's open): grep failed with tool_failed.
  // The root's .gitignore does not apply inside the nested repository (as rg and git), its .ignore does.
  it("both engines name what rg at the root names, whatever the path", async () => {
    const expected = rgAtRoot(workspace);
    expect(expected).toEqual(["pkg/sub/e.txt", "pkg/sub/v.txt"]);
    for (const start of [undefined, "pkg", "pkg/sub"]) {
      const below = expected.filter((file) => start === undefined || file.startsWith(`${start}/`));
      for (const engine of ["ripgrep", "javascript"] as const) {
        const found = await grepFiles(workspace, engine, start);
        expect(found.files, `${engine} ${start}`).toEqual(below);
      }
    }
  });

  it("engine lines: ripgrep answers unless a .gitignore above the path would reach into the nested repository", async () => {
    expect((await grepFiles(workspace, "auto", undefined)).engine).toMatch(/^\[engine: ripgrep, sandbox/);
    expect((await grepFiles(workspace, "auto", "pkg/sub")).engine).toMatch(/^\[engine: ripgrep, sandbox/);
    expect((await grepFiles(workspace, "auto", "pkg")).engine).toMatch(
      /^\[engine: javascript worker \(ripgrep was not run: a \.gitignore above the path does not apply in the git repository nested below it/,
    );
  });
});
