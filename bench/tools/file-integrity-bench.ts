import { execFile, spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRegistry } from "../../src/index.js";
import { createFileTools } from "../../src/tools/index.js";
import { median, round } from "../stats.js";

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** apply_patch against `git apply` on one generated multi-file unified diff. */
export interface MultiFilePatchResult {
  readonly files: number;
  readonly patchBytes: number;
  /** `run.call("apply_patch")` under sandbox "workspace": plan, locks, intent log, fsync, rename. */
  readonly applyPatchMs: number;
  /** `git apply` (a new process, no fsync) on the same diff. */
  readonly gitApplyMs: number | undefined;
  readonly ratio: number | undefined;
  /** Both left the same bytes in every file. */
  readonly sameResult: boolean | undefined;
}

function fileText(index: number, changed: boolean): string {
  return `${Array.from({ length: 120 }, (_, line) => {
    const text = `file ${index} line ${line} ${"lorem ipsum ".repeat(3)}${(line * 7919) % 101}`;
    return changed && line % 40 === 20 ? `${text} CHANGED` : text;
  }).join("\n")}\n`;
}

function unifiedDiff(files: number): string {
  const out: string[] = [];
  for (let index = 0; index < files; index++) {
    const name = `src/m${index % 20}/f${index}.txt`;
    const before = fileText(index, false).split("\n");
    out.push(`diff --git a/${name} b/${name}`, `--- a/${name}`, `+++ b/${name}`);
    for (const at of [20, 60, 100]) {
      out.push(
        `@@ -${at - 2},7 +${at - 2},7 @@`,
        ...before.slice(at - 3, at).map((line) => ` ${line}`),
        `-${before[at]}`,
        `+${before[at]} CHANGED`,
        ...before.slice(at + 1, at + 4).map((line) => ` ${line}`),
      );
    }
  }
  return `${out.join("\n")}\n`;
}

async function seed(directory: string, files: number): Promise<void> {
  for (let index = 0; index < files; index++) {
    const target = path.join(directory, `src/m${index % 20}/f${index}.txt`);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, fileText(index, false));
  }
}

/** Times apply_patch and `git apply` on a `files`-file diff (3 hunks per file), `repeats` times each. */
export async function measureMultiFilePatch(files = 500, repeats = 5): Promise<MultiFilePatchResult> {
  const base = await mkdtemp(path.join(tmpdir(), "atc-mpatch-"));
  try {
    const pristine = path.join(base, "pristine");
    await seed(pristine, files);
    const diff = unifiedDiff(files);
    const diffPath = path.join(base, "change.diff");
    await writeFile(diffPath, diff);
    const expected = fileText(files - 1, true);
    const last = `src/m${(files - 1) % 20}/f${files - 1}.txt`;
    const toolTimes: number[] = [];
    for (let attempt = 0; attempt < repeats; attempt++) {
      const workspace = path.join(base, `tool${attempt}`);
      await cp(pristine, workspace, { recursive: true });
      const session = createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace },
      });
      const started = performance.now();
      const result = await session.call("apply_patch", { patch: diff });
      toolTimes.push(performance.now() - started);
      if (!result.ok) throw new Error(`apply_patch failed: ${result.error.message}`);
      if ((await readFile(path.join(workspace, last), "utf8")) !== expected) throw new Error("apply_patch: wrong result");
    }
    let gitApplyMs: number | undefined;
    let sameResult: boolean | undefined;
    if (spawnSync("git", ["--version"]).status === 0) {
      const gitTimes: number[] = [];
      for (let attempt = 0; attempt < repeats; attempt++) {
        const workspace = path.join(base, `git${attempt}`);
        await cp(pristine, workspace, { recursive: true });
        const started = performance.now();
        const result = spawnSync("git", ["apply", diffPath], { cwd: workspace });
        gitTimes.push(performance.now() - started);
        if (result.status !== 0) throw new Error(`git apply failed: ${String(result.stderr)}`);
      }
      gitApplyMs = median(gitTimes);
      const [tool, git] = await Promise.all([
        readFile(path.join(base, "tool0", last), "utf8"),
        readFile(path.join(base, "git0", last), "utf8"),
      ]);
      sameResult = tool === git;
    }
    const applyPatchMs = median(toolTimes);
    return {
      files,
      patchBytes: Buffer.byteLength(diff),
      applyPatchMs: round(applyPatchMs, 1),
      gitApplyMs: gitApplyMs === undefined ? undefined : round(gitApplyMs, 1),
      ratio: gitApplyMs === undefined ? undefined : round(applyPatchMs / gitApplyMs, 2),
      sameResult,
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** Throughput of read-modify-write increments with expected_version on one file. */
export interface LockedWriteResult {
  readonly writers: number;
  readonly processes: number;
  readonly writesPerSecond: number;
  /** The counter at the end equals the number of increments (no update lost). */
  readonly noneLost: boolean;
}

/** N writers incrementing one counter with expected_version, in one process or spread over several. */
export async function measureLockedWrites(writers: number, processes: number): Promise<LockedWriteResult> {
  const workspace = await mkdtemp(path.join(tmpdir(), "atc-lockbench-"));
  try {
    await writeFile(path.join(workspace, "counter.txt"), "0\n");
    const go = path.join(workspace, ".go");
    const perProcess = Math.max(1, Math.round(writers / processes));
    const children = Array.from({ length: processes }, () =>
      run(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(repo, "test/tools/support/lock-writer.mjs"),
          JSON.stringify({
            workspace,
            sandbox: "workspace",
            format: "src",
            mode: "increment",
            paths: ["counter.txt"],
            count: perProcess,
            go,
          }),
        ],
        { cwd: repo, timeout: 300_000 },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const started = performance.now();
    await writeFile(go, "");
    const outputs = await Promise.all(children);
    const elapsed = performance.now() - started;
    const results = outputs.flatMap(
      ({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1) as string).results as { ok: boolean }[],
    );
    const total = perProcess * processes;
    const counter = Number((await readFile(path.join(workspace, "counter.txt"), "utf8")).trim());
    return {
      writers: total,
      processes,
      writesPerSecond: round((total / elapsed) * 1000, 1),
      noneLost: counter === total && results.every((result) => result.ok),
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** The kill -9 loop of the test suite at bench size (3 workspaces side by side). */
export async function runCrashLoop(iterations: number): Promise<{ readonly crashes: number; readonly passed: boolean }> {
  const lanes = Math.ceil(iterations / 3);
  // The workers load dist/ when it exists: build it first so they never run stale code.
  const build = spawnSync("npm", ["run", "build"], { cwd: repo, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed before the crash loop:\n${build.stderr}`);
  const result = spawnSync("npx", ["vitest", "run", "test/tools/file-crash.test.ts"], {
    cwd: repo,
    env: { ...process.env, CRASH_ITERATIONS: String(lanes) },
    encoding: "utf8",
    timeout: 1_800_000,
  });
  return { crashes: lanes * 3, passed: result.status === 0 };
}

/** The bench section as Markdown. */
export function renderFileIntegrity(
  patch: MultiFilePatchResult,
  locks: readonly LockedWriteResult[],
  crash: { crashes: number; passed: boolean },
): string {
  return [
    "### File tools: integrity and cost",
    "",
    `apply_patch on a ${patch.files}-file unified diff (${Math.round(patch.patchBytes / 1024)} KB, 3 hunks per file): ${patch.applyPatchMs} ms; ` +
      `\`git apply\`: ${patch.gitApplyMs ?? "n/a"} ms (ratio ${patch.ratio ?? "n/a"}, same bytes: ${patch.sameResult ?? "n/a"}). ` +
      "apply_patch also takes the locks, writes the intent log and flushes every file and directory; git apply does not fsync.",
    "",
    "| writers | processes | writes/s with expected_version | no update lost |",
    "| ---: | ---: | ---: | :---: |",
    ...locks.map((row) => `| ${row.writers} | ${row.processes} | ${row.writesPerSecond} | ${row.noneLost ? "yes" : "**no**"} |`),
    "",
    `kill -9 loop: ${crash.crashes} crashes during 10-file apply_patch and 2 MB writes, recovery checked after only an \`ls\` or a \`read\` by a new process: ${crash.passed ? "all consistent" : "**FAILED**"}.`,
  ].join("\n");
}
