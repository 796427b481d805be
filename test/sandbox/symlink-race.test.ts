import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConfined } from "../../src/tools/sandbox/path-confinement.js";
import { SandboxViolationError } from "../../src/tools/sandbox/sandbox-violation-error.js";
import { isInsideDirectory } from "../../src/tools/sandbox/workspace-root.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

const READS = 3_000;
const CONCURRENCY = 4;
const INSIDE = "inside content";
const OUTSIDE = "OUTSIDE SECRET";

/**
 * Runs in a worker thread: swaps `target` between an inside entry and a symlink to the outside
 * one as fast as it can, until the stop flag is set (or a hard bound of 15 s passes).
 */
const FLIPPER = `
const { workerData } = require("node:worker_threads");
const fs = require("node:fs");
const flag = new Int32Array(workerData.stop);
const { mode, target, outside, spare, insideDir } = workerData;
const started = Date.now();
let flips = 0;
while (Atomics.load(flag, 0) === 0 && Date.now() - started < 15000) {
  try {
    if (mode === "file") {
      fs.writeFileSync(spare, ${JSON.stringify(INSIDE)});
      fs.renameSync(spare, target);
      fs.symlinkSync(outside, spare);
      fs.renameSync(spare, target);
    } else {
      fs.renameSync(target, insideDir);
      fs.symlinkSync(outside, target);
      fs.unlinkSync(target);
      fs.renameSync(insideDir, target);
    }
    flips++;
  } catch {}
}
Atomics.store(flag, 1, flips);
`;

interface RaceTally {
  inside: number;
  outside: number;
  refused: number;
  missing: number;
}

type Reader = () => Promise<string>;

async function race(workerData: Record<string, unknown>, read: Reader): Promise<RaceTally & { flips: number }> {
  const stop = new SharedArrayBuffer(8);
  const worker = new Worker(FLIPPER, { eval: true, workerData: { ...workerData, stop } });
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  const tally: RaceTally = { inside: 0, outside: 0, refused: 0, missing: 0 };
  try {
    for (let done = 0; done < READS; done += CONCURRENCY) {
      await Promise.all(Array.from({ length: CONCURRENCY }, () => readOnce(read, tally)));
    }
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
    await exited;
  }
  return { ...tally, flips: new Int32Array(stop)[1] ?? 0 };
}

async function readOnce(read: Reader, tally: RaceTally): Promise<void> {
  try {
    const content = await read();
    if (content === INSIDE) tally.inside++;
    else if (content === OUTSIDE) tally.outside++;
    else tally.missing++;
  } catch (error) {
    if (error instanceof SandboxViolationError) tally.refused++;
    else tally.missing++;
  }
}

async function readConfined(workspace: string, requested: string): Promise<string> {
  const handle = await openConfined(workspace, requested);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** The check this module replaces: realpath, compare, then open by path. Racy by design. */
async function readNaively(workspace: string, requested: string): Promise<string> {
  const real = await realpath(path.join(workspace, requested));
  if (!isInsideDirectory(workspace, real)) throw new SandboxViolationError("symlink_escape", "outside");
  return readFile(real, "utf8");
}

const directories = new TemporaryDirectories();
let workspace: string;
let outside: string;

beforeAll(async () => {
  workspace = await directories.make("atc-race-ws-");
  outside = await directories.make("atc-race-out-");
  await writeFile(path.join(outside, "secret.txt"), OUTSIDE);
  await mkdir(path.join(outside, "dir"));
  await writeFile(path.join(outside, "dir", "f.txt"), OUTSIDE);
  await writeFile(path.join(workspace, "target"), INSIDE);
  await mkdir(path.join(workspace, "d"));
  await writeFile(path.join(workspace, "d", "f.txt"), INSIDE);
});
afterAll(() => directories.cleanup());

describe("openConfined under a symlink-flip race", () => {
  it(`never returns outside content when the final component flips (${READS} reads)`, async () => {
    const files = {
      mode: "file",
      target: path.join(workspace, "target"),
      spare: path.join(workspace, ".spare"),
      outside: path.join(outside, "secret.txt"),
    };
    const confined = await race(files, () => readConfined(workspace, "target"));
    expect(confined.flips).toBeGreaterThan(0);
    expect(confined.inside).toBeGreaterThan(0);
    expect(confined.outside).toBe(0);
  });

  it(`never returns outside content when a parent directory flips to a symlink (${READS} reads)`, async () => {
    const directoriesFlip = {
      mode: "directory",
      target: path.join(workspace, "d"),
      insideDir: path.join(workspace, ".d-parked"),
      outside: path.join(outside, "dir"),
    };
    const confined = await race(directoriesFlip, () => readConfined(workspace, "d/f.txt"));
    const naive = await race(directoriesFlip, () => readNaively(workspace, "d/f.txt"));
    console.log(
      `directory flip: openConfined leaked ${confined.outside}/${READS} (refused ${confined.refused}), ` +
        `realpath-then-open leaked ${naive.outside}/${READS}`,
    );
    expect(confined.flips).toBeGreaterThan(0);
    expect(confined.inside).toBeGreaterThan(0);
    expect(confined.refused + confined.missing).toBeGreaterThan(0);
    expect(confined.outside).toBe(0);
  });
});
