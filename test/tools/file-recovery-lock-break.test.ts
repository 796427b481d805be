/**
 * A writer killed after its change was committed in the intent log, while it held the file's
 * lock: the next writer breaks the dead lock. Before that writer touches the file, the dead
 * change must be rolled forward; otherwise a later recovery (any fresh process's first file tool
 * call) rolls the old change over the newer write, and a result that said "written" is no longer
 * what is on disk.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, describe, expect, it } from "vitest";
import { staleLocksBroken } from "../../src/tools/fs/cross-process-lock.js";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";

const repo = path.resolve(import.meta.dirname, "../..");
const script = path.join(repo, "test/tools/support/commit-then-hang.mjs");

function start(workspace: string, mode?: "read") {
  return spawn(process.execPath, ["--import", "tsx", script, workspace, ...(mode === undefined ? [] : [mode])], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Starts the writer, waits until its change is committed, and kills it with SIGKILL. */
async function crashAfterCommit(workspace: string): Promise<void> {
  const child = start(workspace);
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<boolean>((resolve) => child.stdout.once("data", () => resolve(true)));
  const readied = await Promise.race([ready, exited.then(() => false)]);
  if (!readied) throw new Error(`writer ended before committing: ${stderr}`);
  child.kill("SIGKILL");
  await exited;
}

/** A fresh process's first file tool call (a read), which recovers the workspace. */
async function freshRead(workspace: string): Promise<{ ok: boolean }> {
  const child = start(workspace, "read");
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  await new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (stdout === "") throw new Error(`fresh reader failed: ${stderr}`);
  return JSON.parse(stdout) as { ok: boolean };
}

const workspaces: string[] = [];
afterEach(async () => {
  for (const workspace of workspaces.splice(0)) await rm(workspace, { recursive: true, force: true });
});

async function workspaceWithFile(): Promise<string> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), "atc-lock-break-")));
  workspaces.push(workspace);
  await writeFile(path.join(workspace, "a.txt"), "A");
  return workspace;
}

describe("breaking the lock of a writer killed after its commit point", () => {
  it("rolls the dead change forward first: a write reported done stays on disk after a fresh process recovers", async () => {
    const workspace = await workspaceWithFile();
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    // This process has used the workspace (and recovered it) before the writer crashes.
    expect((await run.call("read", { path: "a.txt" })).ok).toBe(true);
    await crashAfterCommit(workspace);
    // Control: the crash left what the scenario needs, a committed log and the temporary file.
    expect(await readdir(intentDirectory(workspace))).toHaveLength(1);
    expect((await readdir(workspace)).sort()).toEqual([".a.txt.crashed-writer", "a.txt"]);

    const breaksBefore = staleLocksBroken();
    const written = await run.call("write", { path: "a.txt", content: "C" });
    // The write really met the dead writer's lock (else this test shows nothing).
    expect(staleLocksBroken()).toBeGreaterThan(breaksBefore);
    const afterWrite = await readFile(path.join(workspace, "a.txt"), "utf8");
    if (written.ok) expect(afterWrite).toBe("C");
    else expect([written.error.code, afterWrite]).toEqual(["version_conflict", "D"]);

    expect(await freshRead(workspace)).toEqual({ ok: true });
    // What the write's result said is still what is on disk, and nothing is left behind.
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe(afterWrite);
    expect(await readdir(workspace)).toEqual(["a.txt"]);
    expect(await readdir(intentDirectory(workspace))).toEqual([]);
  }, 30_000);

  it("control: without a later writer, a fresh process rolls the dead change forward", async () => {
    const workspace = await workspaceWithFile();
    await crashAfterCommit(workspace);
    expect(await freshRead(workspace)).toEqual({ ok: true });
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("D");
    expect(await readdir(workspace)).toEqual(["a.txt"]);
    expect(await readdir(intentDirectory(workspace))).toEqual([]);
  }, 30_000);
});
