import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTree } from "../support/remove-tree.js";
import { settleWithin } from "../support/settle-within.js";
import { stopProcess } from "../support/stop-process.js";
import { escapeAttempt } from "./support/escape-attempt.js";

let base: string;
let workspace: string;
let outside: string;
let flipper: ChildProcess | undefined;

const COUNT = 12;
const ROUNDS = 8;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-races-"));
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(workspace, "dir"), { recursive: true });
  await mkdir(outside);
  for (let r = 0; r < ROUNDS; r++) {
    for (let n = 0; n < COUNT; n++) {
      const i = `${r}_${n}`;
      for (const where of [path.join(workspace, "dir"), outside]) {
        await writeFile(path.join(where, `v${i}`), `victim ${i}\n`);
        await writeFile(path.join(where, `m${i}`), `move ${i}\n`);
        await writeFile(path.join(where, `e${i}`), `edit ${i}\n`);
      }
    }
  }
});
afterEach(async () => {
  // Waited for: a rename or symlink it is making when the signal comes still lands, in `base`.
  if (flipper !== undefined) await stopProcess(flipper);
  flipper = undefined;
  await removeTree(base);
});

/** A real background process swapping `ws/dir` with a symlink to the outside, as fast as it can. */
function startFlipper(): Promise<void> {
  const script = `
    const fs = require("node:fs");
    const [dir, parked, outside] = process.argv.slice(1);
    let flips = 0;
    process.stdout.write("ready\\n");
    for (;;) {
      try { fs.renameSync(dir, parked); } catch {}
      try { fs.symlinkSync(outside, dir); } catch {}
      for (let i = 0; i < 20000; i++);
      try { fs.unlinkSync(dir); } catch {}
      try { fs.renameSync(parked, dir); } catch {}
      for (let i = 0; i < 20000; i++);
      if (++flips % 1000 === 0 && fs.existsSync(dir + ".stop")) break;
    }
    try { fs.unlinkSync(dir); } catch {}
    try { fs.renameSync(parked, dir); } catch {}
  `;
  const child = spawn(
    process.execPath,
    ["-e", script, path.join(workspace, "dir"), path.join(workspace, "dir.parked"), outside],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  flipper = child;
  return new Promise((resolve) => child.stdout?.once("data", () => resolve()));
}

async function stopFlipper(): Promise<void> {
  const child = flipper;
  if (child === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await writeFile(path.join(workspace, "dir.stop"), "");
  await settleWithin(exited, 3000, () => undefined);
  // Not stopped by itself within 3 s (a loaded machine): killed, and waited for, so that no last
  // flip lands after this returns, under the test's checks or afterEach's removal.
  await stopProcess(child);
  flipper = undefined;
  await rm(path.join(workspace, "dir.stop"), { force: true });
}

async function snapshot(directory: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) {
    result[name] = await readFile(path.join(directory, name), "utf8").catch(() => "<not a file>");
  }
  return result;
}

function runIn(sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
  });
}

/** Every mutating kind of call, many in parallel, as one model step would issue them. */
async function mutateInParallel(run: Run, round: number): Promise<ToolCallResult[]> {
  const calls: Promise<ToolCallResult>[] = [];
  for (let n = 0; n < COUNT; n++) {
    const i = `${round}_${n}`;
    calls.push(run.call("apply_patch", { patch: `*** Begin Patch\n*** Delete File: dir/v${i}\n*** End Patch` }));
    calls.push(
      run.call("apply_patch", {
        patch: `*** Begin Patch\n*** Update File: dir/m${i}\n*** Move to: dir/moved${i}\n@@\n-move ${i}\n+moved ${i}\n*** End Patch`,
      }),
    );
    calls.push(run.call("write", { path: `dir/new${i}/f.txt`, content: "new\n" }));
    calls.push(run.call("edit", { path: `dir/e${i}`, old_text: `edit ${i}`, new_text: `edited ${i}` }));
  }
  const results = await Promise.all(calls);
  // write + undo: the undo deletes the files it created, racing the flipper again.
  const writes = await Promise.all(
    Array.from({ length: COUNT }, (_, n) => run.call("write", { path: `dir/w${round}_${n}.txt`, content: "w\n" })),
  );
  const undos: ToolCallResult[] = [];
  for (let i = 0; i < 6; i++) undos.push(await run.call("undo", { steps: 3 }));
  return [...results, ...writes, ...undos];
}

describe("file tools under a directory <-> symlink flipper", () => {
  escapeAttempt(
    "races",
    "parallel apply_patch delete/move, write (new dirs), edit and write+undo never touch the outside while ws/dir flips to a symlink",
    async () => {
      const before = await snapshot(outside);
      await startFlipper();
      const run = runIn("workspace");
      for (let round = 0; round < ROUNDS; round++) await mutateInParallel(run, round);
      await stopFlipper();
      expect(await snapshot(outside)).toEqual(before);
      // Nothing was created in the outside directory's parent through the link either.
      expect((await readdir(base)).sort()).toEqual(["outside", "ws"]);
    },
    60_000,
  );

  /** replace, append, apply_patch's path + edits form, read and file_inspect: the tools the loop above does not call. */
  async function otherToolsInParallel(run: Run, round: number): Promise<ToolCallResult[]> {
    const calls: Promise<ToolCallResult>[] = [];
    for (let n = 0; n < COUNT; n++) {
      const i = `${round}_${n}`;
      calls.push(run.call("replace", { path: `dir/e${i}`, find: `edit ${i}`, replace: `replaced ${i}` }));
      calls.push(run.call("write", { path: `dir/v${i}`, content: "appended\n", append: true }));
      calls.push(run.call("apply_patch", { path: `dir/m${i}`, edits: [{ old_text: `move ${i}`, new_text: `patched ${i}` }] }));
      calls.push(run.call("read", { path: "dir/probe" }));
      calls.push(run.call("file_inspect", { path: "dir/probe" }));
    }
    return Promise.all(calls);
  }

  escapeAttempt(
    "races",
    "parallel replace, append, apply_patch edits, read and file_inspect neither change nor read the outside while ws/dir flips",
    async () => {
      await writeFile(path.join(workspace, "dir", "probe"), "inside\n");
      await writeFile(path.join(outside, "probe"), "OUTSIDE-SECRET\n");
      const before = await snapshot(outside);
      await startFlipper();
      const run = runIn("workspace");
      const results: ToolCallResult[] = [];
      for (let round = 0; round < ROUNDS; round++) results.push(...(await otherToolsInParallel(run, round)));
      await stopFlipper();
      expect(await snapshot(outside)).toEqual(before);
      expect(results.map((result) => JSON.stringify(result)).filter((text) => text.includes("OUTSIDE-SECRET"))).toEqual([]);
      // The flipper really raced them: some calls saw the link and were refused.
      expect(results.some((result) => !result.ok)).toBe(true);
      expect((await readdir(base)).sort()).toEqual(["outside", "ws"]);
    },
    60_000,
  );

  it("positive control: those calls succeed without the flipper, and unrestricted through the link reads the outside", async () => {
    await writeFile(path.join(workspace, "dir", "probe"), "inside\n");
    const results = await otherToolsInParallel(runIn("workspace"), 0);
    expect(results.filter((result) => !result.ok).map((result) => JSON.stringify(result))).toEqual([]);
    expect(await readFile(path.join(workspace, "dir", "e0_0"), "utf8")).toBe("replaced 0_0\n");
    await writeFile(path.join(outside, "probe"), "OUTSIDE-SECRET\n");
    await rm(path.join(workspace, "dir"), { recursive: true });
    await symlink(outside, path.join(workspace, "dir"));
    expect(JSON.stringify(await runIn("unrestricted").call("read", { path: "dir/probe" }))).toContain("OUTSIDE-SECRET");
    expect((await runIn("workspace").call("read", { path: "dir/probe" })).ok).toBe(false);
  });

  it("positive control: the same calls succeed without the flipper", async () => {
    const run = runIn("workspace");
    const results = await mutateInParallel(run, 0);
    expect(results.filter((result) => !result.ok).map((result) => JSON.stringify(result))).toEqual([]);
    const inside = await readdir(path.join(workspace, "dir"));
    // 18 undo steps took back the 12 writes and 6 earlier changes; the other changes are on disk.
    expect(inside.filter((name) => name.startsWith("w0_"))).toEqual([]);
    expect(inside.filter((name) => name.startsWith("moved0_")).length).toBeGreaterThanOrEqual(COUNT - 6);
    expect(inside.filter((name) => name.startsWith("v0_")).length).toBeLessThanOrEqual(6);
  });

  it("positive control: with dir a symlink to the outside, unrestricted changes the outside and workspace refuses", async () => {
    await rm(path.join(workspace, "dir"), { recursive: true });
    await symlink(outside, path.join(workspace, "dir"));
    const confined = await runIn("workspace").call("apply_patch", {
      patch: "*** Begin Patch\n*** Delete File: dir/v0_0\n*** End Patch",
    });
    expect(confined.ok).toBe(false);
    expect((await readdir(outside)).includes("v0_0")).toBe(true);
    const open = await runIn("unrestricted").call("apply_patch", {
      patch: "*** Begin Patch\n*** Delete File: dir/v0_0\n*** End Patch",
    });
    expect(open.ok).toBe(true);
    expect((await readdir(outside)).includes("v0_0")).toBe(false);
  });
});
