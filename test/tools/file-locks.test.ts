import { execFile } from "node:child_process";
import { existsSync, readdirSync, watch } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fileVersion } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childFormat } from "../support/child-entry.js";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
const worker = path.join(repo, "test/tools/support/lock-writer.mjs");
/** The writers of one copy load the build when it is current (test/support/child-entry.ts), else the sources under tsx. */
const oneCopy = childFormat() === "dist" ? "esm" : "src";
const built = existsSync(path.join(repo, "dist/tools/index.cjs")) && existsSync(path.join(repo, "dist/tools/index.js"));

interface WriterResult {
  readonly ok: boolean;
  readonly code?: string;
  readonly content?: string;
}

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-locks-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Starts `processes` real writer processes, releases them at once, and gathers their results. */
async function writers(
  processes: number,
  options: { format: string; mode: string; paths: string[]; expected?: string; count: number; sandbox?: string },
): Promise<WriterResult[]> {
  const go = path.join(workspace, `.go-${Math.random()}`);
  // Each writer makes a file here once it has loaded and warmed up (lock-writer.mjs).
  const ready = path.join(workspace, `.ready-${Math.random()}`);
  await mkdir(ready);
  const watcher = watch(ready);
  const allReady = new Promise<void>((resolve, reject) => {
    watcher.on("change", () => {
      if (readdirSync(ready).length >= processes) resolve();
    });
    watcher.on("error", reject);
  });
  const children = Array.from({ length: processes }, (_, index) =>
    run(
      process.execPath,
      [
        ...(options.format === "src" ? ["--import", "tsx"] : []),
        worker,
        JSON.stringify({ sandbox: "workspace", ...options, workspace, go, ready, tag: `p${index}` }),
      ],
      { cwd: repo, timeout: 60_000 },
    ),
  );
  // Every process loaded before they start together: released once the last one says it is ready
  // (a writer that fails before that fails the wait).
  try {
    await Promise.race([allReady, Promise.all(children)]);
  } finally {
    watcher.close();
  }
  expect(readdirSync(ready)).toHaveLength(processes);
  await writeFile(go, "");
  const outputs = await Promise.all(children);
  await rm(go, { force: true });
  await rm(ready, { recursive: true, force: true });
  return outputs.flatMap(
    ({ stdout }) => (JSON.parse(stdout.trim().split("\n").at(-1) as string) as { results: WriterResult[] }).results,
  );
}

describe("write with expected_version across real processes", () => {
  it("exactly one of many processes writing the same expected_version wins, and the file holds its content", async () => {
    await writeFile(path.join(workspace, "f.txt"), "start\n");
    const results = await writers(4, {
      format: oneCopy,
      mode: "once",
      paths: ["f.txt"],
      expected: fileVersion("start\n"),
      count: 4,
    });
    const winners = results.filter((result) => result.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => !result.ok).every((result) => result.code === "version_conflict")).toBe(true);
    expect(await readFile(path.join(workspace, "f.txt"), "utf8")).toBe(winners[0]?.content);
  }, 90_000);

  it("loses no increment: read-modify-write loops in several processes, through a symlink and the real path", async () => {
    await writeFile(path.join(workspace, "counter.txt"), "0\n");
    await symlink("counter.txt", path.join(workspace, "link.txt"));
    const results = await writers(3, { format: oneCopy, mode: "increment", paths: ["counter.txt", "link.txt"], count: 6 });
    expect(results.every((result) => result.ok)).toBe(true);
    expect(await readFile(path.join(workspace, "counter.txt"), "utf8")).toBe("18\n");
  }, 120_000);

  it("a plain write without a version never gets version_conflict under contention", async () => {
    await writeFile(path.join(workspace, "p.txt"), "start\n");
    const results = await writers(3, { format: oneCopy, mode: "plain", paths: ["p.txt"], count: 16, sandbox: "unrestricted" });
    expect(results.filter((result) => !result.ok)).toEqual([]);
    expect(results).toHaveLength(48);
  }, 90_000);

  describe.skipIf(!built)("with the built ESM and CJS modules loaded in one process (npm run build first)", () => {
    it("shares one lock table: exactly one of 32 writers wins, also through a symlinked path in the default scope", async () => {
      await writeFile(path.join(workspace, "d.txt"), "start\n");
      await symlink("d.txt", path.join(workspace, "d-link.txt"));
      const results = await writers(2, {
        format: "both",
        mode: "once",
        paths: ["d.txt", "d-link.txt", path.join(workspace, "d.txt")],
        expected: fileVersion("start\n"),
        count: 16,
        sandbox: "unrestricted",
      });
      expect(results).toHaveLength(32);
      expect(results.filter((result) => result.ok)).toHaveLength(1);
    }, 90_000);
  });
});
