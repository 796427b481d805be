/**
 * A process killed with SIGKILL between creating its lock owner file (the file every lock of a
 * multi-key batch is hard-linked to) and removing it leaves that `.owner` file in the private lock
 * directory's owner directory. The next lock holder reclaims owner files whose process is dead,
 * and only those, listing only the owner directory (not the lock files beside it).
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ownerDirectory, withFileLocks } from "../../src/tools/fs/cross-process-lock.js";
import { OWN_PROCESS } from "../../src/tools/fs/process-identity.js";

const repo = path.resolve(import.meta.dirname, "../..");
const holder = path.join(repo, "test/tools/support/hold-owner-file.mjs");
const ownerFiles = async (directory: string) => (await readdir(directory)).filter((name) => name.endsWith(".owner"));

let lockDir: string;
/** The owner directory of `lockDir` (where a multi-key batch makes its owner file). */
const owners = () => ownerDirectory(lockDir);
const previous = process.env.AGENT_TOOL_CATALOG_LOCK_DIR;
beforeEach(async () => {
  lockDir = await mkdtemp(path.join(tmpdir(), "atc-owner-locks-"));
  process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lockDir;
});
afterEach(async () => {
  if (previous === undefined) delete process.env.AGENT_TOOL_CATALOG_LOCK_DIR;
  else process.env.AGENT_TOOL_CATALOG_LOCK_DIR = previous;
  await rm(lockDir, { recursive: true, force: true });
});

/**
 * Starts a process locking many keys and kills it with SIGKILL as soon as its owner file
 * exists; returns the name of the owner file it left (the kill really left one: else it retries).
 */
async function killWhileOwning(): Promise<string> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const child = spawn(process.execPath, ["--import", "tsx", holder, lockDir, "20000"], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    const prefix = `${child.pid}-`;
    const deadline = Date.now() + 30_000;
    while (!(await ownerFiles(owners()).catch(() => [])).some((name) => name.startsWith(prefix)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    child.kill("SIGKILL");
    await exited;
    const left = (await ownerFiles(owners())).find((name) => name.startsWith(prefix));
    if (left !== undefined) return left;
  }
  throw new Error("the killed process never left an owner file");
}

describe("lock owner files of killed processes", () => {
  it("are reclaimed by the next lock holder; a live process's owner file is kept", { timeout: 120_000 }, async () => {
    const dead = await killWhileOwning();
    // Positive control: an owner file of a live process (this one) is left alone.
    const live = `${process.pid}-live.owner`;
    await writeFile(path.join(owners(), live), `${OWN_PROCESS}\n`, { mode: 0o600 });
    expect(await ownerFiles(owners())).toEqual(expect.arrayContaining([dead, live]));

    // The next holder of a multi-key lock (this process, first time in this lock directory).
    let ran = false;
    await withFileLocks(["/owner-test/key-1", "/owner-test/other"], async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(await ownerFiles(owners())).toEqual([live]);
  });

  it("are looked for in the owner directory only: the lock directory, lock files and all, is not listed", async () => {
    // A dead process's owner file where only the owner directory's listing finds it, and one at
    // the lock directory's top, where only a listing of the lock directory would (no version of
    // this package puts one there now; before stop 52 every owner file was there, and each
    // reclaim listed the lock directory: every lock file a dead holder ever left, 57,400 on a
    // test machine, 66 ms of CPU).
    const deadOwner = "2147483646:1";
    await mkdir(owners(), { recursive: true, mode: 0o700 });
    await writeFile(path.join(owners(), "2147483646-inner.owner"), `${deadOwner}\n`, { mode: 0o600 });
    await writeFile(path.join(lockDir, "2147483646-top.owner"), `${deadOwner}\n`, { mode: 0o600 });
    await withFileLocks(["/owner-test/listing-1", "/owner-test/listing-2"], async () => undefined);
    // Positive control: the sweep ran (the owner directory's dead owner file is gone).
    expect(await ownerFiles(owners())).toEqual([]);
    expect(await ownerFiles(lockDir)).toEqual(["2147483646-top.owner"]);
  });
});
