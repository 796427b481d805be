/**
 * grep's look at the ignore files ripgrep would open walked every directory below the search
 * root, gitignored ones too, which ripgrep never enters: 20,000 directories under a gitignored
 * `.venv/` cost 0.4-0.7 s of the host's CPU per grep, and a named pipe `.gitignore` deep in it
 * (never opened by ripgrep) made the JavaScript engine answer. The look now applies the ignore
 * rules as it walks (the JavaScript engine's matcher and reader). Controls: the same tree without
 * the ignore rule is walked whole (the named pipe is found), and the answer equals the `rg` CLI's.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

/** The filters grep gives ripgrep (see `ripgrepArguments`). */
const RG_FILTERS = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-parent"].concat([
  "--glob",
  "!.git",
  "--glob",
  "!node_modules",
  "--glob",
  "!.hg",
  "--glob",
  "!.svn",
]);

/** Directories under the ignored `.venv/` (as a Python virtual environment of a few packages). */
const IGNORED_DIRECTORIES = 20_000;

describe.skipIf(ripgrep.missing)(ripgrep.label("grep's ignore-file look skips what ripgrep skips"), () => {
  let base: string;
  let ignored: string;
  let plain: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-ignored-trees-"));
    ignored = path.join(base, "ignored");
    plain = path.join(base, "plain");
    for (const root of [ignored, plain]) {
      await mkdir(path.join(root, "src", "deep"), { recursive: true });
      await writeFile(path.join(root, "src", "a.txt"), "needle one\n");
      await writeFile(path.join(root, "src", "deep", "b.txt"), "x\nneedle two\n");
    }
    await writeFile(path.join(ignored, ".gitignore"), ".venv/\n");
    await writeFile(path.join(ignored, "src", ".gitignore"), "*.log\n");
    await writeFile(path.join(ignored, "src", "c.log"), "needle log\n");
    const venv = path.join(ignored, ".venv");
    for (let outer = 0; outer < IGNORED_DIRECTORIES / 100; outer++) {
      for (let inner = 0; inner < 99; inner++) mkdirSync(path.join(venv, `p${outer}`, `m${inner}`), { recursive: true });
    }
    await writeFile(path.join(venv, "p0", "m0", "site.txt"), "needle venv\n");
    // ripgrep never opens it: the directory is ignored.
    execFileSync("mkfifo", [path.join(venv, "p7", "m3", ".gitignore")]);
    // The control: a named pipe in a directory that is not ignored is still found.
    await mkdir(path.join(plain, "build"));
    execFileSync("mkfifo", [path.join(plain, "build", ".gitignore")]);
  }, 120_000);
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function grep(root: string) {
    const run = createRegistry({ tools: [createGrepTool({ searchTimeoutMs: 20_000 })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox: "unrestricted" },
    });
    const before = process.cpuUsage();
    const result = await run.call("grep", { pattern: "needle" });
    const used = process.cpuUsage(before);
    return { output: String(result.ok ? result.output : result.error.message), cpuMs: (used.user + used.system) / 1000 };
  }

  /** The `rg` CLI's lines with the filters the tool gives it. */
  function rgLines(root: string): string[] {
    const out = execFileSync(
      "rg",
      [...RG_FILTERS, "--line-number", "--with-filename", "--no-heading", "needle"],
      // stdin ignored: rg given no path searches the working directory, not its stdin.
      { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    return out.trimEnd().split("\n").sort();
  }

  it("ripgrep answers, as the rg CLI, and the ignored directories cost the host next to nothing", async () => {
    // Warm: the first call compiles the schema and starts the tool's machinery.
    await grep(plain);
    const costs: number[] = [];
    const controls: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const { output, cpuMs } = await grep(ignored);
      expect(output).toMatch(/\[engine: ripgrep, sandbox [^\]]+\]$/);
      expect(output.split("\n").slice(0, -1).sort()).toEqual(rgLines(ignored));
      costs.push(cpuMs);
      // The same call on the small tree alone: what a grep costs the host without the ignored part.
      controls.push((await grep(path.join(plain, "src"))).cpuMs);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1] as number;
    // Walking the 20,000 directories cost 400-700 ms of CPU; not walking them, a few ms.
    expect(median(costs), `${costs.join(", ")} vs ${controls.join(", ")}`).toBeLessThan(median(controls) + 100);
  }, 120_000);

  it("a directory named .ignore is entered, as ripgrep enters it: a named pipe in it is found", async () => {
    const root = path.join(base, "named-dir");
    await mkdir(path.join(root, ".ignore"), { recursive: true });
    await writeFile(path.join(root, "a.txt"), "needle\n");
    execFileSync("mkfifo", [path.join(root, ".ignore", ".gitignore")]);
    const { output } = await grep(root);
    expect(output).toMatch(/ripgrep was not run: \.ignore\/\.gitignore is a named pipe/);
    expect(output).toContain("a.txt:1:needle");
  });

  it("control: a named pipe .gitignore in a directory ripgrep enters is still found", async () => {
    const { output } = await grep(plain);
    expect(output).toMatch(/ripgrep was not run: build\/\.gitignore is a named pipe/);
    expect(output).toContain("src/a.txt:1:needle one");
  });
});
