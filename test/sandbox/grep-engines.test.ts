import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CPU_LIMIT_WALL_FACTOR } from "../../src/tool/thread-cpu-time.js";
import { GREP_CHUNK_BYTES, GREP_MAX_LINE_BYTES } from "../../src/tools/fs/grep-file-chunks.js";
import { createGrepTool, type GrepToolOptions } from "../../src/tools/fs/grep-tool.js";
import { capability } from "../support/capabilities.js";
import { largeText } from "../support/large-grep-text.js";

const repository = path.resolve(import.meta.dirname, "../..");
const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");

function grepRun(root: string, options: GrepToolOptions, sandbox: SandboxScope = "workspace") {
  return createRegistry({ tools: [createGrepTool(options)] }).createRun({
    profile: "full",
    permissions: { sandbox, workspace: root },
    // The comparison needs whole answers, not the run's head-and-tail condensing.
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
}

function lines(result: ToolCallResult): { body: string[]; engine: string } {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const all = String(result.output).split("\n");
  const engine = all.pop() ?? "";
  if (all.length === 1 && all[0]?.startsWith("No matches")) return { body: [], engine };
  return { body: all, engine };
}

/** What `rg` itself prints for the same question, with the tool's fixed flags. */
function rgLines(cwd: string, args: readonly string[]): string[] {
  const result = spawnSync(
    "rg",
    [
      "--no-config",
      "--hidden",
      "--no-require-git",
      "--no-ignore-global",
      "--sort",
      "path",
      "--line-number",
      "--with-filename",
      "--glob",
      "!.git",
      "--glob",
      "!node_modules",
      "--glob",
      "!.hg",
      "--glob",
      "!.svn",
      ...args,
    ],
    { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] },
  );
  if (result.status !== 0 && result.status !== 1) throw new Error(`rg failed: ${result.stderr}`);
  return result.stdout === "" ? [] : result.stdout.replace(/\n$/, "").split("\n");
}

const CASES: readonly { title: string; input: Record<string, unknown>; args: string[] }[] = [
  { title: "anchored at line start", input: { pattern: "^import" }, args: ["--regexp", "^import"] },
  { title: "anchored at line end", input: { pattern: ";$" }, args: ["--regexp", ";$"] },
  {
    title: "alternation",
    input: { pattern: "export (const|function|class) [A-Z]" },
    args: ["--regexp", "export (const|function|class) [A-Z]"],
  },
  { title: "ignore case", input: { pattern: "zodtype", ignore_case: true }, args: ["--ignore-case", "--regexp", "zodtype"] },
  { title: "fixed strings", input: { pattern: "a.b(", fixed_strings: true }, args: ["--fixed-strings", "--regexp", "a.b("] },
  { title: "glob", input: { pattern: "throw new", glob: "*.ts" }, args: ["--glob", "*.ts", "--regexp", "throw new"] },
];

describe.skipIf(ripgrep.missing)(ripgrep.label("grep gives ripgrep's matches on real trees"), () => {
  const trees = [
    { name: "node_modules/zod", root: path.join(repository, "node_modules", "zod"), sandbox: "unrestricted" as const },
    { name: "the repository's src", root: path.join(repository, "src"), sandbox: "unrestricted" as const },
  ];
  for (const tree of trees) {
    for (const engine of ["ripgrep", "javascript"] as const) {
      it.each(CASES)(
        `${tree.name}, ${engine} engine: $title`,
        async ({ input, args }) => {
          const expected = rgLines(tree.root, args);
          const answer = lines(await grepRun(tree.root, { engine }, tree.sandbox).call("grep", { ...input, max_results: 5000 }));
          expect(answer.engine).toContain(engine === "ripgrep" ? "[engine: ripgrep" : "[engine: javascript");
          if (expected.length <= 5000) expect(answer.body).toEqual(expected);
          else {
            // Both sort by path, so the first 5,000 matches are the same ones, then the cut is said.
            expect(answer.body.slice(0, -1)).toEqual(expected.slice(0, 5000));
            expect(answer.body.at(-1)).toContain("[stopped at 5000 results");
          }
        },
        60_000,
      );
    }
  }

  it("honours .gitignore and .ignore like rg, in both engines, with context lines", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "atc-grep-ignore-"));
    try {
      await writeFile(path.join(root, ".gitignore"), "build/\n*.log\n!keep.log\n/top.txt\n");
      await writeFile(path.join(root, ".ignore"), "secret*\n");
      for (const name of ["a.txt", "top.txt", "x.log", "keep.log", "secret.txt", ".hidden"]) {
        await writeFile(path.join(root, name), `one\nneedle ${name}\nthree\n`);
      }
      await import("node:fs/promises").then((fs) => fs.mkdir(path.join(root, "build")));
      await writeFile(path.join(root, "build", "out.txt"), "needle\n");
      await import("node:fs/promises").then((fs) => fs.mkdir(path.join(root, "sub")));
      await writeFile(path.join(root, "sub", "top.txt"), "needle sub\n");
      const expected = rgLines(root, ["--context", "1", "--regexp", "needle"]).filter((line) => line !== "--");
      expect(expected.some((line) => line.includes("keep.log"))).toBe(true);
      expect(expected.some((line) => line.includes("build/"))).toBe(false);
      for (const engine of ["ripgrep", "javascript"] as const) {
        const answer = lines(await grepRun(root, { engine }, "unrestricted").call("grep", { pattern: "needle", context: 1 }));
        expect(answer.body).toEqual(expected);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(ripgrep.missing)(ripgrep.label("grep searches files over 8 MiB in a directory as rg does"), () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "atc-grep-large-"));
    await writeFile(path.join(root, "a.txt"), "needle small before\n");
    await mkdir(path.join(root, "logs"));
    await writeFile(path.join(root, "logs", "big.log"), largeText());
    await writeFile(path.join(root, "z.txt"), "needle small after\n");
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  for (const context of [0, 2]) {
    it(`a 20 MiB file's matches at the start, middle, end and across piece borders, context ${context}: both engines give rg's lines`, async () => {
      const expected = rgLines(root, ["--context", String(context), "--regexp", "needle"]).filter((line) => line !== "--");
      // The oracle itself sees every planted match, in the big file too.
      expect(
        expected.filter((line) => line.startsWith("logs/big.log:")).map((line) => line.replace(/^[^:]*:\d+:/, "").slice(-30)),
      ).toEqual([
        "needle at the start",
        `aaaaaneedle across the border${"b".repeat(20)}`.slice(-30),
        "needle in the middle",
        "needle after the second border",
        "needle at the end",
      ]);
      for (const engine of ["ripgrep", "javascript"] as const) {
        const answer = lines(await grepRun(root, { engine }, "unrestricted").call("grep", { pattern: "needle", context }));
        expect(answer.engine).toContain(engine === "ripgrep" ? "[engine: ripgrep" : "[engine: javascript");
        expect(answer.body).toEqual(expected);
      }
    }, 120_000);
  }

  it("files_only names the large file once, in path order, in both engines", async () => {
    const expected = rgLines(root, ["--files-with-matches", "--regexp", "needle"]);
    expect(expected).toEqual(["a.txt", "logs/big.log", "z.txt"]);
    for (const engine of ["ripgrep", "javascript"] as const) {
      const answer = lines(await grepRun(root, { engine }, "unrestricted").call("grep", { pattern: "needle", files_only: true }));
      expect(answer.body).toEqual(expected);
    }
  }, 120_000);
});

describe("a file the JavaScript engine cannot hold is named, never silently skipped", () => {
  it(`a line over ${GREP_MAX_LINE_BYTES / 1024 / 1024} MiB: the file is reported as not searched; the other files' matches stay`, async () => {
    const root = await mkdtemp(path.join(tmpdir(), "atc-grep-long-line-"));
    try {
      await writeFile(path.join(root, "huge.txt"), Buffer.alloc(GREP_MAX_LINE_BYTES + 1024, "x"));
      await writeFile(path.join(root, "small.txt"), "needle\n");
      const answer = lines(await grepRun(root, { engine: "javascript" }, "unrestricted").call("grep", { pattern: "needle" }));
      expect(answer.body).toEqual([
        "small.txt:1:needle",
        `[not searched: huge.txt (a line longer than ${GREP_MAX_LINE_BYTES / 1024 / 1024} MiB)]`,
      ]);
      // Control: a long line under the bound is searched.
      await writeFile(path.join(root, "huge.txt"), `${"x".repeat(GREP_CHUNK_BYTES * 2)}needle\n`);
      const searched = lines(
        await grepRun(root, { engine: "javascript" }, "unrestricted").call("grep", { pattern: "needle$", files_only: true }),
      );
      expect(searched.body).toEqual(["huge.txt", "small.txt"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a pathological pattern never blocks the host", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "atc-grep-redos-"));
    await writeFile(path.join(root, "a.txt"), `${"a".repeat(40)}!\n${"a".repeat(5000)}\n`);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("JavaScript engine: ^(a+)+$ is stopped at the deadline with pattern_too_slow, and the event loop keeps running", async () => {
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    // The deadline is long against the bound on the ticker's gap: a match on the main thread would
    // stall the ticker for the whole deadline (2 s), while a loaded machine's scheduling alone
    // delayed it 355 ms in a CI run beside another (a 500 ms deadline against a 250 ms bound could
    // not tell the two apart).
    const result = await grepRun(root, { engine: "javascript", matchDeadlineMs: 2_000 }).call("grep", { pattern: "^(a+)+$" });
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(result.ok ? "ok" : result.error.code).toBe("pattern_too_slow");
    // The deadline counts the matching thread's CPU time (a loaded machine's scheduling is not the
    // pattern's cost), bounded in wall time at CPU_LIMIT_WALL_FACTOR times it: a CI run at load 35
    // took 10.2 s for 2 s of CPU. The 40 `a`s before `!` take 2^40 steps, so an answer at all,
    // and one under the wall bound, is the deadline stopping the match.
    expect(elapsed).toBeLessThan(CPU_LIMIT_WALL_FACTOR * 2_000 + 5_000);
    expect(maxGap).toBeLessThan(1_000);
  }, 60_000);

  it("positive control: the same pattern on the main thread blocks it (what the worker prevents)", () => {
    const started = performance.now();
    /^(a+)+$/u.test(`${"a".repeat(24)}!`);
    expect(performance.now() - started).toBeGreaterThan(20);
  });

  it.skipIf(ripgrep.missing || bubblewrap.missing)(
    ripgrep.label("ripgrep engine: the same pattern answers at once (linear-time regex), inside the workspace sandbox"),
    async () => {
      const started = performance.now();
      const answer = lines(await grepRun(root, {}).call("grep", { pattern: "^(a+)+$" }));
      expect(answer.engine).toBe("[engine: ripgrep, sandbox bubblewrap/workspace]");
      // The 5,000-character line is printed cut at 4,000 characters, as both engines document.
      expect(answer.body).toEqual([`a.txt:2:${"a".repeat(4000)} [... line cut: 1000 more characters]`]);
      expect(performance.now() - started).toBeLessThan(5_000);
    },
  );

  it("the engines agree on a pattern rg cannot compile: lookahead falls back to JavaScript", async () => {
    const answer = lines(await grepRun(root, {}, "unrestricted").call("grep", { pattern: "a(?=!)" }));
    expect(answer.engine).toContain("javascript worker");
    expect(answer.body).toEqual([`a.txt:1:${"a".repeat(40)}!`]);
  });
});
