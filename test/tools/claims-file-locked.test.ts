/**
 * README error table: `file_locked`, "another process holds the file's lock; try again". A real
 * second process takes the lock of a workspace file through the catalog's own `withFileLocks` and
 * holds it; a `write` of that file in this process waits for the lock, past the wait
 * (`AGENT_TOOL_CATALOG_LOCK_WAIT_MS`, here 1.5 s instead of the default minute), and answers
 * `file_locked` with the file untouched. Control: once the other process lets the lock go, the same
 * write is made.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const holderScript = path.join(repo, "test/tools/support/hold-file-lock.mjs");
const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
const WAIT_MS = 1500;

const ENV = ["AGENT_TOOL_CATALOG_LOCK_DIR", "AGENT_TOOL_CATALOG_LOCK_WAIT_MS"] as const;
let savedEnv: (readonly [string, string | undefined])[];
let lockDir: string;
let workspace: string;
let holder: { child: ChildProcessWithoutNullStreams; exited: Promise<void> } | undefined;

beforeEach(async () => {
  savedEnv = ENV.map((name) => [name, process.env[name]] as const);
  lockDir = await mkdtemp(path.join(tmpdir(), "atc-claims-locked-locks-"));
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claims-locked-"));
  await writeFile(path.join(workspace, "a.txt"), "old\n");
  process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lockDir;
  process.env.AGENT_TOOL_CATALOG_LOCK_WAIT_MS = String(WAIT_MS);
});
afterEach(async () => {
  if (holder !== undefined) {
    holder.child.kill("SIGKILL");
    await holder.exited;
    holder = undefined;
  }
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(workspace, { recursive: true, force: true });
  await rm(lockDir, { recursive: true, force: true });
});

/** Starts the other process and resolves once it holds the lock of `key`. */
async function holdLock(key: string): Promise<NonNullable<typeof holder>> {
  const child = spawn(process.execPath, ["--import", "tsx", holderScript, lockDir, key], {
    cwd: repo,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  holder = { child, exited };
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const held = await new Promise<boolean>((resolve) => {
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
      if (stdout.includes("held\n")) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  if (!held) throw new Error(`the holder ended without taking the lock: ${stderr}`);
  return holder;
}

function run() {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
}

describe("a file whose lock another live process holds", () => {
  it("is answered file_locked after the wait, the file untouched; written once the lock is let go", {
    timeout: 120_000,
  }, async () => {
    const session = run();
    expect(code(await session.call("read", { path: "a.txt" }))).toBe("ok");
    const other = await holdLock(path.join(await realpath(workspace), "a.txt"));

    const started = Date.now();
    const locked = await session.call("write", { path: "a.txt", content: "new\n" });
    const waited = Date.now() - started;
    expect(code(locked), JSON.stringify(locked)).toBe("file_locked");
    expect(!locked.ok && locked.error.message).toBe(
      "Another process has held the lock on this file for over 1.5 seconds. Nothing was written.",
    );
    // It waited for the lock (a lower bound only: a loaded machine may take longer).
    expect(waited).toBeGreaterThanOrEqual(WAIT_MS);
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("old\n");

    // Control: the other process releases the lock (and ends); the same write is made.
    other.child.stdin.end();
    await other.exited;
    expect(other.child.exitCode).toBe(0);
    holder = undefined;
    expect(code(await session.call("write", { path: "a.txt", content: "new\n" }))).toBe("ok");
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("new\n");
  });
});
