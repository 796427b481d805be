import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRegistry } from "../../src/index.js";
import { withFileLocks } from "../../src/tools/fs/cross-process-lock.js";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { createFileTools } from "../../src/tools/index.js";

// apply_patch writes and flushes its temporary files before it takes the files' locks (their
// flushes then overlap the lock taking and the checks). These tests hold one file's lock so the
// call stops right there, and check what that early work may and may not leave behind.

const repo = path.resolve(import.meta.dirname, "../..");
const script = path.join(repo, "test/tools/support/many-file-patch.mjs");

let workspace: string;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(path.join(tmpdir(), "atc-early-")));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** The temporary files of a transaction anywhere in the workspace. */
async function temporaries(): Promise<string[]> {
  return (await readdir(workspace, { recursive: true })).filter((name) => /\.atc-[0-9a-f]+\.tmp$/.test(name));
}

/**
 * How many temporary files the call made before the lock: polled until there are some and their
 * number held for 500 ms (the early writes stop when the disk or the machine makes them slow, and
 * the transaction writes the rest under the locks), for up to `limitMs`; 0 when none appeared.
 */
async function earlyFiles(limitMs = 20_000): Promise<number> {
  const started = Date.now();
  let seen = 0;
  let since = Date.now();
  while (Date.now() - started < limitMs) {
    const now = (await temporaries()).length;
    if (now !== seen) {
      seen = now;
      since = Date.now();
    } else if (seen > 0 && Date.now() - since >= 500) return seen;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return seen;
}

/** `count` files of 12 lines in two directories; the patch changes line 2 of each. */
async function writeFiles(count: number): Promise<string> {
  const sections: string[] = ["*** Begin Patch"];
  for (let i = 0; i < count; i++) {
    const file = `d${i % 2}/f${i}.txt`;
    await mkdir(path.join(workspace, `d${i % 2}`), { recursive: true });
    await writeFile(path.join(workspace, file), Array.from({ length: 12 }, (_, line) => `file ${i} line ${line}\n`).join(""));
    sections.push(`*** Update File: ${file}`, "@@", ` file ${i} line 1`, `-file ${i} line 2`, `+file ${i} line 2 patched`);
  }
  sections.push("*** End Patch");
  return sections.join("\n");
}

describe("apply_patch's temporary files written before the locks", () => {
  it("are written while a lock is still held; a file changed meanwhile is planned again, and nothing is left", async () => {
    const patch = await writeFiles(6);
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    let call: ReturnType<typeof run.call> | undefined;
    let early = 0;
    await withFileLocks([path.join(workspace, "d0/f0.txt")], async () => {
      call = run.call("apply_patch", { patch });
      // The call stops at the lock held here, temporary files already made (all six on an idle machine).
      early = await earlyFiles();
      // Every file changed under the held lock, away from its hunk: the call must plan them again
      // on this content, whichever of them it wrote early.
      for (let i = 0; i < 6; i++) {
        const file = path.join(workspace, `d${i % 2}/f${i}.txt`);
        await writeFile(file, (await readFile(file, "utf8")).replace(`file ${i} line 10`, `file ${i} line 10 changed meanwhile`));
      }
    });
    const result = await (call as ReturnType<typeof run.call>);
    expect(early).toBeGreaterThan(0);
    expect(result.ok, JSON.stringify(result.ok ? "" : result.error)).toBe(true);
    for (let i = 0; i < 6; i++) {
      const content = await readFile(path.join(workspace, `d${i % 2}/f${i}.txt`), "utf8");
      // The patch landed, on the content changed meanwhile (not the early file's).
      expect(content).toContain(`file ${i} line 2 patched`);
      expect(content).toContain(`file ${i} line 10 changed meanwhile`);
    }
    expect(await temporaries()).toEqual([]);
    expect(await readdir(intentDirectory(workspace)).catch(() => [])).toEqual([]);
  }, 60_000);

  it("are removed by the next process's recovery when the writer is killed while waiting for a lock", async () => {
    for (let i = 0; i < 6; i += 2) {
      await mkdir(path.join(workspace, `d${i % 2}`), { recursive: true });
      await writeFile(path.join(workspace, `d${i % 2}/f${i}.txt`), `old ${i}\n`);
    }
    await mkdir(path.join(workspace, "d1"), { recursive: true });
    let exit: Promise<number | null> = Promise.resolve(null);
    let early = 0;
    await withFileLocks([path.join(workspace, "d0/f0.txt")], async () => {
      const child = spawn(process.execPath, ["--import", "tsx", script, JSON.stringify({ workspace, files: 6, dirs: 2 })], {
        cwd: repo,
        stdio: ["ignore", "pipe", "pipe"],
      });
      exit = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
      // Three updates and three added files, written ahead beside their targets (all six on an idle machine).
      early = await earlyFiles(30_000);
      child.kill("SIGKILL");
      await exit;
    });
    expect(early).toBeGreaterThan(0);
    // Killed before its commit point: still there until a process recovers the workspace.
    expect((await temporaries()).length).toBe(early);
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const listed = await run.call("ls", { path: "." });
    expect(listed.ok).toBe(true);
    expect(await temporaries()).toEqual([]);
    expect(await readdir(intentDirectory(workspace)).catch(() => [])).toEqual([]);
    for (let i = 0; i < 6; i += 2) expect(await readFile(path.join(workspace, `d${i % 2}/f${i}.txt`), "utf8")).toBe(`old ${i}\n`);
    await expect(readFile(path.join(workspace, "d1/f1.txt"))).rejects.toThrow();
  }, 60_000);
});
