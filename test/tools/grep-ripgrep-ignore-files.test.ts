/**
 * The ignore files ripgrep opens itself (`.gitignore`, `.ignore`, `.rgignore`, `.git/info/exclude`
 * of every directory it enters) on hostile trees: a named pipe blocked it until grep's timeout, a
 * link to `/dev/zero` made it read without end, a file over 1 MiB was read whole, and a link out of
 * a confined workspace was applied. grep now looks at them first: the JavaScript engine answers
 * (it does not apply such a file), or, with `engine: "ripgrep"`, ripgrep applies no ignore file and
 * the answer says so. Controls: the same ignore file as a regular file is applied by ripgrep.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");

describe.skipIf(ripgrep.missing)(ripgrep.label("grep's ripgrep and the ignore files it would open"), () => {
  let base: string;
  let outside: string;
  let counter = 0;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-ignore-kinds-"));
    outside = path.join(base, "outside-list");
    await writeFile(outside, "probe.txt\n");
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  /** A workspace with `probe.txt` and `other.txt` holding `needle`; `plant` makes the ignore file. */
  async function workspace(plant: (root: string) => Promise<void>): Promise<string> {
    const root = path.join(base, `w${++counter}`);
    await mkdir(path.join(root, "sub"), { recursive: true });
    await writeFile(path.join(root, "probe.txt"), "needle\n");
    await writeFile(path.join(root, "sub", "other.txt"), "needle\n");
    await plant(root);
    return root;
  }

  async function grep(root: string, engine: "auto" | "ripgrep", sandbox: "workspace" | "unrestricted" = "unrestricted") {
    const run = createRegistry({ tools: [createGrepTool({ engine, searchTimeoutMs: 8_000 })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox },
    });
    const started = performance.now();
    const result = await run.call("grep", { pattern: "needle" });
    return { result, ms: performance.now() - started, output: String(result.ok ? result.output : result.error.message) };
  }

  const hostile: [string, (root: string) => Promise<void>, RegExp][] = [
    [
      "a named pipe .gitignore",
      async (root) => void execFileSync("mkfifo", [path.join(root, ".gitignore")]),
      /\.gitignore is a named pipe \(FIFO\)/,
    ],
    [
      "a named pipe .rgignore below",
      async (root) => void execFileSync("mkfifo", [path.join(root, "sub", ".rgignore")]),
      /sub\/\.rgignore is a named pipe \(FIFO\)/,
    ],
    [
      "a named pipe .ignore",
      async (root) => void execFileSync("mkfifo", [path.join(root, ".ignore")]),
      /\.ignore is a named pipe \(FIFO\)/,
    ],
    [
      "a named pipe .git/info/exclude below",
      async (root) => {
        await mkdir(path.join(root, "sub", ".git", "info"), { recursive: true });
        execFileSync("mkfifo", [path.join(root, "sub", ".git", "info", "exclude")]);
      },
      /sub\/\.git\/info\/exclude is a named pipe \(FIFO\)/,
    ],
    [
      "a .gitignore linked to /dev/zero",
      async (root) => symlink("/dev/zero", path.join(root, ".gitignore")),
      /\.gitignore is a character device/,
    ],
    [
      "a .gitignore over 1 MiB",
      async (root) => {
        await writeFile(path.join(root, ".gitignore"), "probe.txt\n");
        await truncate(path.join(root, ".gitignore"), 2 * 1024 * 1024);
      },
      /\.gitignore is over 1 MiB/,
    ],
  ];

  for (const [name, plant, note] of hostile) {
    it(`${name}: answered at once by the JavaScript engine, which does not apply it`, async () => {
      const root = await workspace(plant);
      const { result, ms, output } = await grep(root, "auto");
      expect(result.ok, output).toBe(true);
      expect(ms).toBeLessThan(6_000);
      expect(output).toContain("probe.txt:1:needle");
      expect(output).toContain("sub/other.txt:1:needle");
      expect(output).toMatch(note);
      expect(output).toMatch(/\[engine: javascript worker \(ripgrep was not run: /);
    });
  }

  it("engine ripgrep: the JavaScript engine answers, applying the safe ignore files, and says why", async () => {
    const root = await workspace(async (r) => {
      execFileSync("mkfifo", [path.join(r, ".gitignore")]);
      await writeFile(path.join(r, "sub", ".ignore"), "other.txt\n");
    });
    const { result, output } = await grep(root, "ripgrep");
    expect(result.ok, output).toBe(true);
    expect(output).toContain("probe.txt:1:needle");
    // ripgrep run with --no-ignore listed it: sub/.ignore excludes it.
    expect(output).not.toContain("other.txt");
    expect(output).toMatch(/\[engine: javascript worker \(ripgrep was not run: \.gitignore is a named pipe \(FIFO\)\)\]/);
  });

  it("engine ripgrep: a named pipe .ignore inside a gitignored build/ does not make build/'s files searched", async () => {
    const root = await workspace(async (r) => {
      await writeFile(path.join(r, ".gitignore"), "build/\n");
      await mkdir(path.join(r, "build", "x"), { recursive: true });
      await writeFile(path.join(r, "build", "x", "big.txt"), "needle\n");
      execFileSync("mkfifo", [path.join(r, "build", "x", ".ignore")]);
    });
    for (const engine of ["auto", "ripgrep"] as const) {
      const { result, output } = await grep(root, engine);
      expect(result.ok, output).toBe(true);
      expect(output).toContain("probe.txt:1:needle");
      expect(output).not.toContain("big.txt");
    }
  });

  it("control: regular ignore files (a link inside the workspace too) are applied by ripgrep", async () => {
    const root = await workspace(async (r) => {
      await writeFile(path.join(r, "list"), "probe.txt\n");
      await symlink("list", path.join(r, ".gitignore"));
      await writeFile(path.join(r, "sub", ".rgignore"), "other.txt\n");
      await mkdir(path.join(r, ".gitignore-dir", ".gitignore"), { recursive: true });
    });
    for (const engine of ["auto", "ripgrep"] as const) {
      const { output } = await grep(root, engine);
      expect(output).toContain("No matches");
      expect(output).toMatch(/\[engine: ripgrep, sandbox [^;\]]+\]$/);
    }
  });

  it("a ripgrep config file named by RIPGREP_CONFIG_PATH changes nothing", async () => {
    const root = await workspace(async (r) => {
      await writeFile(path.join(r, "rgrc"), "--ignore-case\n--glob=!probe.txt\n--max-count=0\n");
    });
    const saved = process.env.RIPGREP_CONFIG_PATH;
    process.env.RIPGREP_CONFIG_PATH = path.join(root, "rgrc");
    try {
      // Control: rg itself reads it without --no-config (probe.txt is left out).
      const plain = execFileSync("rg", ["--files"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      expect(plain).not.toContain("probe.txt");
      for (const engine of ["auto", "ripgrep"] as const) {
        const { output } = await grep(root, engine);
        expect(output).toContain("probe.txt:1:needle");
        expect(output).toContain("sub/other.txt:1:needle");
        expect(output).toMatch(/\[engine: ripgrep, sandbox [^;\]]+\]$/);
      }
    } finally {
      if (saved === undefined) delete process.env.RIPGREP_CONFIG_PATH;
      else process.env.RIPGREP_CONFIG_PATH = saved;
    }
  });

  it.skipIf(bubblewrap.missing)(
    "a .gitignore linked out of a confined workspace is not applied (as the JavaScript engine)",
    async () => {
      const root = await workspace(async (r) => symlink(outside, path.join(r, ".gitignore")));
      const confined = await grep(root, "auto", "workspace");
      expect(confined.output).toContain("probe.txt:1:needle");
      expect(confined.output).toContain("a link out of the workspace");
      // Control: not confined, the link is followed by ripgrep and hides the file.
      const followed = await grep(root, "auto", "unrestricted");
      expect(followed.output).not.toContain("probe.txt");
      expect(followed.output).toMatch(/\[engine: ripgrep, sandbox [^;\]]+\]$/);
    },
  );
});
