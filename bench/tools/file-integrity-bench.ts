import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRegistry } from "../../src/index.js";
import { createFileTools } from "../../src/tools/index.js";
import { median, round } from "../stats.js";
import { describeFileSystem, type FileSystemOf, fileSystemOf } from "./file-system-of.js";
import { copyTree, generatedDiff, type MultiFileDiff, realDiff, treeDigest, writeTree } from "./multi-file-diff.js";

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** apply_patch against `git apply` on one multi-file unified diff. */
export interface MultiFilePatchResult {
  /** "generated": uniform synthetic files; "real": real node_modules sources with a scripted edit. */
  readonly kind: "generated" | "real";
  readonly files: number;
  readonly patchBytes: number;
  readonly hunks: number;
  /** `run.call("apply_patch")` under sandbox "workspace": plan, locks, intent log, fsync, rename. */
  readonly applyPatchMs: number;
  /** `git apply` (a new process, no fsync) on the same diff, timed alternately with the tool. */
  readonly gitApplyMs: number | undefined;
  readonly ratio: number | undefined;
  /** Both left the same bytes in every file of the tree (one digest over all of them). */
  readonly sameResult: boolean | undefined;
  /**
   * What the durable part alone costs on this machine: the same files rewritten (temporary file,
   * rename) with an fsync of every file and of every directory, less the same rewrite without
   * them; fsyncs queued together as apply_patch queues them. `git apply` makes none.
   */
  readonly fsyncMs: number;
  /** `(applyPatchMs - fsyncMs) / gitApplyMs`: the ratio if the flushes cost nothing. */
  readonly ratioWithoutFsync: number | undefined;
  /**
   * Where the trees lived. The ratio depends on it: on an ext4 without a journal every file
   * create, `git apply`'s too, scans past the inodes freed in the last 30 s (stop 56).
   */
  readonly fileSystem?: FileSystemOf | undefined;
}

/**
 * The directories the file-writing bench puts its trees in, each measured in turn:
 * `BENCH_TREE_DIRS` (a comma-separated list, e.g. a journaled mount beside the default), else the
 * temporary directory. Lock and intent files stay where the product puts them (`$TMPDIR`).
 */
export function benchTreeDirectories(environment: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (environment.BENCH_TREE_DIRS ?? "")
    .split(",")
    .map((each) => each.trim())
    .filter((each) => each !== "");
  return listed.length > 0 ? listed : [tmpdir()];
}

/**
 * Rewrites `paths` of `directory` with `contents` as a transaction does (a new temporary file
 * beside each, then a rename over it), with or without flushing each file and each directory;
 * returns the milliseconds taken.
 */
async function rewriteFiles(
  directory: string,
  paths: readonly string[],
  contents: readonly Buffer[],
  flush: boolean,
): Promise<number> {
  const started = performance.now();
  const temporaries = paths.map((relative, index) => path.join(directory, path.dirname(relative), `.bench-${index}.tmp`));
  await Promise.all(
    temporaries.map(async (temporary, index) => {
      const handle = await open(temporary, "wx");
      try {
        await handle.writeFile(contents[index] as Buffer);
        if (flush) await handle.sync();
      } finally {
        await handle.close();
      }
    }),
  );
  await Promise.all(temporaries.map((temporary, index) => rename(temporary, path.join(directory, paths[index] as string))));
  if (flush) {
    const directories = [...new Set(paths.map((relative) => path.join(directory, path.dirname(relative))))];
    await Promise.all(
      directories.map(async (each) => {
        const handle = await open(each, "r");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }),
    );
  }
  return performance.now() - started;
}

/** Writes back every dirty page (sync(1)); a no-op where `sync` is missing. */
function flushFileSystems(): void {
  spawnSync("sync");
}

/**
 * Times apply_patch (a fresh run per attempt, sandbox "workspace") and `git apply` on `diff`,
 * `repeats` times each, alternating so that machine load hits both alike; checks that every
 * file of both results has the same bytes, and that the diff changed them. Each copy of the tree
 * is written back to disk before it is timed. The trees live under `treeDirectory`.
 */
export async function measureMultiFilePatch(
  diff: MultiFileDiff,
  repeats = 5,
  treeDirectory = tmpdir(),
): Promise<MultiFilePatchResult> {
  const base = await mkdtemp(path.join(treeDirectory, "atc-mpatch-"));
  try {
    const pristine = path.join(base, "pristine");
    await writeTree(pristine, diff.before);
    const diffPath = path.join(base, "change.diff");
    await writeFile(diffPath, diff.diff);
    const paths = [...diff.before.keys()];
    const beforeDigest = await treeDigest(pristine, paths);
    const hasGit = spawnSync("git", ["--version"]).status === 0;
    const toolTimes: number[] = [];
    const gitTimes: number[] = [];
    const fsyncTimes: number[] = [];
    let sameResult: boolean | undefined;
    for (let attempt = 0; attempt < repeats; attempt++) {
      const workspace = path.join(base, `tool${attempt}`);
      await copyTree(pristine, workspace);
      // The copy's dirty pages are written back first, so neither timing pays for the copy
      // (without it, the writeback landed in whichever ran next: 150 ms to 2.4 s under load).
      flushFileSystems();
      const session = createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace },
      });
      const started = performance.now();
      const result = await session.call("apply_patch", { patch: diff.diff });
      toolTimes.push(performance.now() - started);
      if (!result.ok) throw new Error(`apply_patch failed: ${result.error.message}`);
      const toolDigest = await treeDigest(workspace, paths);
      if (toolDigest === beforeDigest) throw new Error("apply_patch changed nothing");
      // The flushes alone: the patched files rewritten again, with and without fsync, alternately.
      const contents = await Promise.all(paths.map((relative) => readFile(path.join(workspace, relative))));
      const bare = await rewriteFiles(workspace, paths, contents, false);
      const flushed = await rewriteFiles(workspace, paths, contents, true);
      fsyncTimes.push(Math.max(0, flushed - bare));
      if (!hasGit) continue;
      const reference = path.join(base, `git${attempt}`);
      await copyTree(pristine, reference);
      flushFileSystems();
      const gitStarted = performance.now();
      const applied = spawnSync("git", ["apply", diffPath], { cwd: reference });
      gitTimes.push(performance.now() - gitStarted);
      if (applied.status !== 0) throw new Error(`git apply failed: ${String(applied.stderr)}`);
      const same = toolDigest === (await treeDigest(reference, paths));
      sameResult = (sameResult ?? true) && same;
      await rm(reference, { recursive: true, force: true });
      await rm(workspace, { recursive: true, force: true });
    }
    const applyPatchMs = median(toolTimes);
    const gitApplyMs = hasGit ? median(gitTimes) : undefined;
    const fsyncMs = median(fsyncTimes);
    return {
      kind: diff.kind,
      files: diff.files,
      patchBytes: Buffer.byteLength(diff.diff),
      hunks: diff.diff.match(/^@@ /gm)?.length ?? 0,
      applyPatchMs: round(applyPatchMs, 1),
      gitApplyMs: gitApplyMs === undefined ? undefined : round(gitApplyMs, 1),
      ratio: gitApplyMs === undefined ? undefined : round(applyPatchMs / gitApplyMs, 2),
      sameResult,
      fsyncMs: round(fsyncMs, 1),
      ratioWithoutFsync: gitApplyMs === undefined ? undefined : round((applyPatchMs - fsyncMs) / gitApplyMs, 2),
      fileSystem: fileSystemOf(base),
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** The generated 500-file diff and a real one of `files` node_modules sources (scratch repositories under the temporary directory). */
export async function multiFileDiffs(generatedFiles: number, realFiles: number): Promise<MultiFileDiff[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), "atc-mdiff-"));
  try {
    return [
      await generatedDiff(path.join(scratch, "generated"), generatedFiles),
      await realDiff(path.join(scratch, "real"), path.join(repo, "node_modules"), realFiles),
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
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
    const ready = await mkdtemp(path.join(tmpdir(), "atc-lockbench-ready-"));
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
            ready,
          }),
        ],
        { cwd: repo, timeout: 300_000 },
      ),
    );
    // The clock starts when every writer has started and warmed up (under load that takes seconds).
    const deadline = Date.now() + 300_000;
    while ((await readdir(ready)).length < processes) {
      if (Date.now() > deadline) throw new Error("lock writers did not start within 5 minutes");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await rm(ready, { recursive: true, force: true });
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

/**
 * Which rows a user's figure will resemble. On an ext4 without a journal every file create scans
 * past the inodes freed in the last 30 s, and `git apply` pays that more than apply_patch, so
 * such a disk flatters apply_patch's ratio (stop 56); most disks are journaled.
 */
function fileSystemNote(patches: readonly MultiFilePatchResult[]): string {
  const noJournal = patches.some((patch) => patch.fileSystem?.journal === false);
  const journaled = patches.some((patch) => patch.fileSystem?.journal === true);
  const where =
    "The trees were on the file system named in each row (`BENCH_TREE_DIRS`); lock and intent files in `$TMPDIR`" +
    (noJournal ? ", this machine's ext4 without a journal." : ".");
  if (!noJournal) return where;
  return (
    `${where} On an ext4 without a journal every file create, \`git apply\`'s more than apply_patch's, scans past the inodes freed in the last 30 s, which flatters apply_patch's ratio` +
    (journaled
      ? "; a user's figure will resemble the journaled rows (ext4 as usually made, with a journal, and most other disks), not this machine's no-journal ones."
      : "; a user's figure on a journaled ext4 will be higher (stop 56).")
  );
}

/** The bench section as Markdown. */
export function renderFileIntegrity(
  patches: readonly MultiFilePatchResult[],
  locks: readonly LockedWriteResult[],
  crash: { crashes: number; passed: boolean },
  load: readonly number[],
): string {
  return [
    "### File tools: integrity and cost",
    "",
    `apply_patch against \`git apply\` on the same multi-file unified diffs (printed by \`git diff\`), timed alternately, load average ${load.map((value) => value.toFixed(1)).join(" / ")} on ${cpus().length} cores. ` +
      "apply_patch also takes the locks, writes the intent log and flushes every file and directory; git apply does not fsync. Same bytes: one digest over every file of both results. " +
      "Flushes alone: the same files rewritten (temporary file, rename) with an fsync of every file and directory, less the same rewrite without them, on this machine; the last column is the ratio if they cost nothing. " +
      fileSystemNote(patches),
    "",
    "| diff | file system of the trees | files | size | hunks | apply_patch ms | git apply ms | ratio | same bytes | flushes alone ms | ratio without flushes |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: |",
    ...patches.map(
      (patch) =>
        `| ${patch.kind === "real" ? "real node_modules sources, scripted edit" : "generated, 3 hunks per file"} | ${describeFileSystem(patch.fileSystem)} | ${patch.files} | ${Math.round(patch.patchBytes / 1024)} KB | ${patch.hunks} | ${patch.applyPatchMs} | ${patch.gitApplyMs ?? "n/a"} | ${patch.ratio ?? "n/a"} | ${patch.sameResult === undefined ? "n/a" : patch.sameResult ? "yes" : "**no**"} | ${patch.fsyncMs} | ${patch.ratioWithoutFsync ?? "n/a"} |`,
    ),
    "",
    "| writers | processes | writes/s with expected_version | no update lost |",
    "| ---: | ---: | ---: | :---: |",
    ...locks.map((row) => `| ${row.writers} | ${row.processes} | ${row.writesPerSecond} | ${row.noneLost ? "yes" : "**no**"} |`),
    "",
    `kill -9 loop: ${crash.crashes} crashes during 10-file apply_patch and 2 MB writes, recovery checked after only an \`ls\` or a \`read\` by a new process: ${crash.passed ? "all consistent" : "**FAILED**"}.`,
  ].join("\n");
}
