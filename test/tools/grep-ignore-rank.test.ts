/**
 * How ignore rules of several directories and kinds rank: ripgrep (the `ignore` crate's
 * `Ignore::matched_ignore`) takes, for each kind separately, the match of the deepest directory
 * that has one (within a file its last matching rule), then `.rgignore` over `.ignore` over
 * `.gitignore` over `.git/info/exclude`. grep's matcher (the JavaScript engine's, and the look at
 * the ignore files ripgrep would open) let the last matching rule of all the files win, so a root
 * `.ignore`'s `!build/` did not re-include what a deeper `.gitignore` ignored (the JavaScript
 * engine hid the file, the look skipped a directory ripgrep enters) and a deeper `.gitignore`'s
 * `!build/` re-included what the root's `.ignore` ignored. Control: the `rg` CLI, grep's flags.
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
const bubblewrap = capability("bubblewrap");

/** The filters grep gives ripgrep (see `ripgrepArguments`). */
const RG_FILTERS = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-parent"].concat(
  ...[".git", "node_modules", ".hg", ".svn"].map((name) => ["--glob", `!${name}`]),
);

/** A layout (file -> text; every file holding `needle` is a candidate) and what rg lists of it. */
interface Layout {
  readonly name: string;
  readonly files: Readonly<Record<string, string>>;
  readonly listed: readonly string[];
}

const N = "needle\n";

const LAYOUTS: readonly Layout[] = [
  {
    name: "(a) root .ignore re-includes over a deeper .gitignore",
    files: { ".ignore": "!build/\n", "sub/.gitignore": "build/\n", "sub/build/x.txt": N, "sub/y.txt": N },
    listed: ["sub/build/x.txt", "sub/y.txt"],
  },
  {
    name: "(b) a deeper .gitignore does not re-include over the root .ignore",
    files: { ".ignore": "build/\n", "sub/.gitignore": "!build/\n", "sub/build/x.txt": N, "sub/y.txt": N },
    listed: ["sub/y.txt"],
  },
  {
    name: "(c) root .rgignore re-includes over a deeper .ignore",
    files: { ".rgignore": "!build/\n", "sub/.ignore": "build/\n", "sub/build/x.txt": N, "sub/y.txt": N },
    listed: ["sub/build/x.txt", "sub/y.txt"],
  },
  {
    name: "a deeper .ignore does not re-include over the root .rgignore",
    files: { ".rgignore": "build/\n", "sub/.ignore": "!build/\n", "sub/build/x.txt": N },
    listed: [],
  },
  {
    name: "a deeper .rgignore re-includes over the root .ignore",
    files: { ".ignore": "build/\n", "sub/.rgignore": "!build/\n", "sub/build/x.txt": N },
    listed: ["sub/build/x.txt"],
  },
  {
    name: "same kind: the deeper .gitignore's negation wins",
    files: { ".gitignore": "build/\n", "sub/.gitignore": "!build/\n", "sub/build/x.txt": N, "build/z.txt": N },
    listed: ["sub/build/x.txt"],
  },
  {
    name: "same kind: the deeper .gitignore's rule wins over the root's negation",
    files: { ".gitignore": "!build/\n", "sub/.gitignore": "build/\n", "sub/build/x.txt": N },
    listed: [],
  },
  {
    name: "same file: the last matching rule wins",
    files: {
      "sub/.gitignore": "!build/\nbuild/\n",
      "sub/.ignore": "*.log\n!keep.log\n",
      "sub/build/x.txt": N,
      "sub/keep.log": N,
      "sub/a.log": N,
    },
    listed: ["sub/keep.log"],
  },
  {
    name: "files: root .ignore re-includes *.log over a deeper .gitignore",
    files: { ".ignore": "!*.log\n", "sub/deep/.gitignore": "*.log\n", "sub/deep/a.log": N, "sub/deep/b.txt": N },
    listed: ["sub/deep/a.log", "sub/deep/b.txt"],
  },
  {
    name: "three levels: the middle .ignore decides over .gitignore above and below",
    files: {
      ".gitignore": "build/\n",
      "sub/.ignore": "!build/\n",
      "sub/deep/.gitignore": "build/\n",
      "sub/deep/build/x.txt": N,
      "build/z.txt": N,
    },
    listed: ["sub/deep/build/x.txt"],
  },
  {
    name: "exclude: a root .ignore re-includes over a nested repository's exclude",
    files: { ".ignore": "!build/\n", "sub/.git/info/exclude": "build/\n", "sub/build/x.txt": N },
    listed: ["sub/build/x.txt"],
  },
  {
    name: "exclude: the same directory's .gitignore re-includes over its exclude",
    files: { "sub/.git/info/exclude": "build/\n", "sub/.gitignore": "!build/\n", "sub/build/x.txt": N },
    listed: ["sub/build/x.txt"],
  },
  {
    name: "exclude: the deeper exclude wins over the root's",
    files: { ".git/info/exclude": "!build/\n", "sub/.git/info/exclude": "build/\n", "sub/build/x.txt": N, "build/z.txt": N },
    listed: ["build/z.txt"],
  },
  {
    name: "exclude: an exclude's negation does not re-include over a .gitignore",
    files: { ".gitignore": "build/\n", ".git/info/exclude": "!build/\n", "build/z.txt": N, "y.txt": N },
    listed: ["y.txt"],
  },
  {
    name: "hidden directory: root .ignore re-includes .cache/ over a deeper .gitignore",
    files: { ".ignore": "!.cache/\n", "sub/.gitignore": ".cache/\n", "sub/.cache/x.txt": N },
    listed: ["sub/.cache/x.txt"],
  },
  {
    name: "hidden directory: a deeper .gitignore does not re-include .cache/ over the root .ignore",
    files: { ".ignore": ".cache/\n", "sub/.gitignore": "!.cache/\n", "sub/.cache/x.txt": N, "sub/.h.txt": N },
    listed: ["sub/.h.txt"],
  },
];

describe.skipIf(ripgrep.missing)(ripgrep.label("grep ranks ignore rules as ripgrep: by kind, then by depth"), () => {
  let base: string;
  let counter = 0;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-ignore-rank-"));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function plant(files: Readonly<Record<string, string>>): Promise<string> {
    const root = path.join(base, `w${++counter}`);
    await mkdir(root);
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), text);
    }
    return root;
  }

  function rgListed(root: string): string[] {
    // rg exits 1 when nothing matches.
    let printed = "";
    try {
      printed = execFileSync("rg", [...RG_FILTERS, "-l", "needle"], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      if ((error as { status?: number }).status !== 1) throw error;
    }
    return printed
      .split("\n")
      .filter((line) => line !== "")
      .sort();
  }

  async function grep(
    root: string,
    engine: "auto" | "ripgrep" | "javascript",
    sandbox: "workspace" | "unrestricted" = "unrestricted",
    searched?: string,
  ) {
    const run = createRegistry({ tools: [createGrepTool({ engine, searchTimeoutMs: 8_000 })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox },
    });
    const result = await run.call("grep", {
      pattern: "needle",
      files_only: true,
      ...(searched === undefined ? {} : { path: searched }),
    });
    return String(result.ok ? result.output : result.error.message);
  }

  /** The files a files-only answer names (its last line is the engine note). */
  function named(output: string): string[] {
    return output
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("["))
      .filter((line) => !line.startsWith("No matches"))
      .sort();
  }

  it.each(LAYOUTS.map((layout) => [layout.name, layout] as const))("%s: rg, and both engines", async (_name, layout) => {
    const root = await plant(layout.files);
    expect(rgListed(root)).toEqual([...layout.listed].sort());
    for (const engine of ["javascript", "ripgrep"] as const) {
      expect(named(await grep(root, engine)), engine).toEqual([...layout.listed].sort());
    }
  });

  // A search of a subdirectory lists what rg run at the root lists there: ripgrep given the ignore
  // files above the subdirectory with --ignore-file ranks them below every ignore file of the tree.
  it.each(
    LAYOUTS.filter((layout) => Object.keys(layout.files).some((file) => file.startsWith("sub/"))).map(
      (layout) => [layout.name, layout] as const,
    ),
  )("%s: grep of sub/ (auto and javascript) lists what rg at the root lists there", async (_name, layout) => {
    const root = await plant(layout.files);
    const expected = rgListed(root).filter((file) => file.startsWith("sub/"));
    for (const engine of ["auto", "javascript"] as const) {
      const output = await grep(root, engine, "unrestricted", "sub");
      expect(named(output), `${engine}: ${output}`).toEqual(expected);
    }
  });

  it("positive control: a subdirectory search with ignore files of one kind above and below stays with ripgrep", async () => {
    const root = await plant({ ".gitignore": "build/\n", "sub/.gitignore": "!build/\n", "sub/build/x.txt": N, "sub/y.txt": N });
    const output = await grep(root, "auto", "unrestricted", "sub");
    expect(named(output)).toEqual(["sub/build/x.txt", "sub/y.txt"]);
    expect(output).toMatch(/\[engine: ripgrep, sandbox [^\]]+\]$/);
  });

  it("(a) the look enters a directory a root .ignore re-includes: a named pipe .gitignore there is found", async () => {
    const root = await plant({ ".ignore": "!build/\n", "sub/.gitignore": "build/\n", "sub/build/x.txt": N });
    execFileSync("mkfifo", [path.join(root, "sub", "build", ".gitignore")]);
    const output = await grep(root, "auto");
    expect(output).toMatch(/ripgrep was not run: sub\/build\/\.gitignore is a named pipe/);
    expect(output).toContain("sub/build/x.txt");
    expect(output).toMatch(/\[engine: javascript/);
  });

  it("(b) control: the look does not enter a directory ripgrep does not: ripgrep answers", async () => {
    const root = await plant({ ".ignore": "build/\n", "sub/.gitignore": "!build/\n", "sub/build/x.txt": N, "sub/y.txt": N });
    execFileSync("mkfifo", [path.join(root, "sub", "build", ".gitignore")]);
    const output = await grep(root, "auto");
    expect(named(output)).toEqual(["sub/y.txt"]);
    expect(output).toMatch(/\[engine: ripgrep, sandbox [^\]]+\]$/);
  });

  it.skipIf(bubblewrap.missing)(
    bubblewrap.label("(a) confined: a .gitignore linked out of the workspace in a re-included directory is found"),
    async () => {
      const outside = path.join(base, "outside-list");
      await writeFile(outside, "x.txt\n");
      const root = await plant({ ".ignore": "!build/\n", "sub/.gitignore": "build/\n", "sub/build/x.txt": N });
      await symlink(outside, path.join(root, "sub", "build", ".gitignore"));
      const confined = await grep(root, "auto", "workspace");
      expect(confined).toContain("sub/build/.gitignore is a link out of the workspace");
      expect(named(confined)).toEqual(["sub/build/x.txt"]);
      // Control: not confined, ripgrep follows the link, which hides the file.
      const followed = await grep(root, "auto", "unrestricted");
      expect(named(followed)).toEqual([]);
      expect(followed).toMatch(/\[engine: ripgrep, sandbox [^\]]+\]$/);
    },
  );
});
