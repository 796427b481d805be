import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfinedFileScope } from "../../src/tools/fs/confined-file-scope.js";
import { intentDirectory, recoverNow } from "../../src/tools/fs/intent-log.js";

const repo = path.resolve(import.meta.dirname, "../..");
const worker = path.join(repo, "test/tools/support/crash-worker.mjs");
const format = existsSync(path.join(repo, "dist/tools/index.js")) ? "dist" : "src";
/** Iterations per workspace; three workspaces run side by side (30 kills in all). */
const ITERATIONS = Number(process.env.CRASH_ITERATIONS ?? 10);
const FILES = 10;

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-crash-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs the worker until it is ready, waits a random while, and kills it with SIGKILL. */
async function crashOnce(workspace: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [...(format === "src" ? ["--import", "tsx"] : []), worker, JSON.stringify({ workspace, format })],
    {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  await Promise.race([ready, exited]);
  if (child.exitCode !== null) throw new Error(`worker ended before ready: ${stderr}`);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
  child.kill("SIGKILL");
  await exited;
}

/** Every file of the 10-file patch is in one state, the big file is whole, and nothing is left behind. */
async function assertConsistent(workspace: string): Promise<void> {
  const scope = createConfinedFileScope(workspace);
  await recoverNow(scope);
  const contents = await Promise.all(
    Array.from({ length: FILES }, (_, i) => readFile(path.join(workspace, `f${i}.txt`), "utf8")),
  );
  const states = new Set(contents.map((content) => content[0]));
  expect(states.size, `mixed state: ${contents.join(" | ")}`).toBe(1);
  const big = await readFile(path.join(workspace, "big.txt"), "utf8");
  expect(big.length).toBe(2 * 1024 * 1024);
  expect(new Set(big).size).toBe(1);
  expect((await readdir(workspace)).filter((name) => name.endsWith(".tmp") || name.endsWith(".part"))).toEqual([]);
  expect(await readdir(intentDirectory(scope.root)).catch(() => [])).toEqual([]);
}

describe("kill -9 during multi-file apply_patch and large writes", () => {
  it(`leaves every file as before or after, and nothing behind, after ${ITERATIONS * 3} crashes`, async () => {
    await Promise.all(
      [0, 1, 2].map(async (lane) => {
        const workspace = path.join(base, `ws${lane}`);
        await rm(workspace, { recursive: true, force: true });
        await import("node:fs/promises").then(({ mkdir }) => mkdir(workspace));
        for (let i = 0; i < FILES; i++) await writeFile(path.join(workspace, `f${i}.txt`), `A ${i}\n`);
        await writeFile(path.join(workspace, "big.txt"), "x".repeat(2 * 1024 * 1024));
        for (let iteration = 0; iteration < ITERATIONS; iteration++) {
          await crashOnce(workspace);
          await assertConsistent(workspace);
        }
      }),
    );
  }, 300_000);
});
