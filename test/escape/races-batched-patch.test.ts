// Red team round 11: the flipper tests in races-file-tools swap a directory right below the
// workspace under one-file calls. apply_patch over many files goes another way (stop 26-28):
// every directory of the patch opened once as a tree, each child through its parent's handle,
// the plan's handles kept and reused by the commit when still where they were verified. These
// attempts swap a directory two levels down, and a file itself, for symbolic links to an outside
// copy holding the same names and bytes (so a patch that followed one would apply cleanly there),
// while multi-file patches, and grep/glob/ls through the JavaScript engine, run.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools, createGrepTool } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTree } from "../support/remove-tree.js";
import { settleWithin } from "../support/settle-within.js";
import { stopProcess } from "../support/stop-process.js";
import { escapeAttempt } from "./support/escape-attempt.js";

let base: string;
let workspace: string;
let outside: string;
let flippers: ChildProcess[] = [];

const FILES = 6;
const ROUNDS = 20;
// More rounds while no patch has landed yet (a loaded machine can let the flippers win all 20), up
// to this many, so the check that some landed tests the tools, not the scheduler.
const MAX_ROUNDS = 120;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-races-batch-"));
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  for (const root of [workspace, path.join(outside, "copy")]) {
    const sub = root === workspace ? path.join(root, "a", "b") : root;
    await mkdir(sub, { recursive: true });
    for (let i = 0; i < FILES; i++) await writeFile(path.join(sub, `f${i}.txt`), `line ${i}\n`);
  }
  await writeFile(path.join(workspace, "a", "top.txt"), "top\n");
  await writeFile(path.join(outside, "leaf.txt"), "LEAF-OUTSIDE-SECRET\n");
  await writeFile(path.join(workspace, "a", "leaf.txt"), "leaf inside\n");
});
afterEach(async () => {
  // Waited for: a rename or symlink one is making when the signal comes still lands, in `base`.
  await Promise.all(flippers.map((child) => stopProcess(child)));
  flippers = [];
  await removeTree(base);
});

/** A real process swapping `entry` with a symbolic link to `target` as fast as it can. */
function startFlipper(entry: string, target: string): Promise<void> {
  const script = `
    const fs = require("node:fs");
    const [entry, target] = process.argv.slice(1);
    const parked = entry + ".parked";
    let flips = 0;
    process.stdout.write("ready\\n");
    for (;;) {
      try { fs.renameSync(entry, parked); } catch {}
      try { fs.symlinkSync(target, entry); } catch {}
      for (let i = 0; i < 20000; i++);
      try { fs.unlinkSync(entry); } catch {}
      try { fs.renameSync(parked, entry); } catch {}
      for (let i = 0; i < 100000; i++);
      // Now and then a quiet spell in the restored state, long enough for a whole patch: without
      // it a patch lands only where the scheduler happens to stall the flipper (0 of 240 on a
      // loaded CI run), and the control that some landed measured the scheduler, not the tools.
      if (++flips % 30 === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
      if (flips % 500 === 0 && fs.existsSync(entry + ".stop")) break;
    }
    try { fs.unlinkSync(entry); } catch {}
    try { fs.renameSync(parked, entry); } catch {}
  `;
  const child = spawn(process.execPath, ["-e", script, entry, target], { stdio: ["ignore", "pipe", "inherit"] });
  flippers.push(child);
  return new Promise((resolve) => child.stdout?.once("data", () => resolve()));
}

async function stopFlippers(entries: readonly string[]): Promise<void> {
  for (const entry of entries) await writeFile(`${entry}.stop`, "");
  await Promise.all(
    flippers.map((child) => settleWithin(new Promise((resolve) => child.once("exit", resolve)), 3000, () => undefined)),
  );
  // Not stopped by themselves within 3 s (a loaded machine): killed, and waited for, so that no
  // last flip lands after this returns, under the test's checks or afterEach's removal.
  await Promise.all(flippers.map((child) => stopProcess(child)));
  flippers = [];
  for (const entry of entries) await rm(`${entry}.stop`, { force: true });
}

async function snapshot(directory: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of (await readdir(directory, { recursive: true })).sort()) {
    result[name] = await readFile(path.join(directory, name), "utf8").catch(() => "<not a file>");
  }
  return result;
}

function runIn(sandbox: "workspace" | "unrestricted"): Run {
  // grep through the JavaScript engine: it walks and opens on the host (ripgrep runs inside bwrap).
  const tools = [...createFileTools().filter((tool) => tool.name !== "grep"), createGrepTool({ engine: "javascript" })];
  return createRegistry({ tools }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
  });
}

/** One patch over every file of a/b plus a/top.txt, then its undo. */
function patchOf(round: number, from: (i: number) => string, to: (i: number) => string): string {
  const lines = ["*** Begin Patch"];
  for (let i = 0; i < FILES; i++) lines.push(`*** Update File: a/b/f${i}.txt`, "@@", `-${from(i)}`, `+${to(i)}`);
  lines.push(
    "*** Update File: a/top.txt",
    "@@",
    round % 2 === 0 ? "-top" : "-top again",
    round % 2 === 0 ? "+top again" : "+top",
  );
  lines.push("*** End Patch");
  return lines.join("\n");
}

async function batchRounds(run: Run): Promise<ToolCallResult[]> {
  const results: ToolCallResult[] = [];
  const landed = () => results.some((result) => result.tool === "apply_patch" && result.ok);
  for (let round = 0; round < ROUNDS || (round < MAX_ROUNDS && !landed()); round++) {
    results.push(
      ...(await Promise.all([
        run.call("apply_patch", {
          patch: patchOf(
            round,
            (i) => `line ${i}`,
            (i) => `patched ${i}`,
          ),
        }),
        run.call("apply_patch", {
          patch: patchOf(
            round + 1,
            (i) => `patched ${i}`,
            (i) => `line ${i}`,
          ),
        }),
        run.call("grep", { pattern: "line|SECRET", path: "a" }),
        run.call("glob", { pattern: "a/**/*" }),
        run.call("ls", { path: "a/b" }),
        run.call("read", { path: "a/leaf.txt" }),
        run.call("edit", { path: "a/leaf.txt", old_text: "leaf inside", new_text: "leaf inside" }),
      ])),
      await run.call("undo", {}),
    );
  }
  return results;
}

describe("multi-file apply_patch and JavaScript-engine reads under deeper flippers", () => {
  escapeAttempt(
    "races",
    "a/b and a/leaf.txt flipping to outside copies: batched patches, undo, grep, glob, ls, read and edit neither change nor read the outside",
    async () => {
      const before = await snapshot(outside);
      const entries = [path.join(workspace, "a", "b"), path.join(workspace, "a", "leaf.txt")];
      await startFlipper(entries[0] as string, path.join(outside, "copy"));
      await startFlipper(entries[1] as string, path.join(outside, "leaf.txt"));
      const results = await batchRounds(runIn("workspace"));
      await stopFlippers(entries);
      expect(await snapshot(outside)).toEqual(before);
      expect(results.map((result) => JSON.stringify(result)).filter((text) => text.includes("OUTSIDE-SECRET"))).toEqual([]);
      // Every acknowledged patch is on disk as acknowledged: the files hold one of the two states, all alike.
      const inside = await snapshot(path.join(workspace, "a", "b"));
      const states = new Set(Object.values(inside).map((text) => text.replace(/\d+/, "N")));
      expect(states.size).toBe(1);
      // The flippers really raced them: some calls were refused, and some landed.
      expect(results.some((result) => !result.ok)).toBe(true);
      expect(results.some((result) => result.tool === "apply_patch" && result.ok)).toBe(true);
      expect((await readdir(base)).sort()).toEqual(["outside", "ws"]);
    },
    120_000,
  );

  it("positive control: unrestricted with a/b a link to the copy patches the outside; without flippers the workspace patches apply", async () => {
    const run = runIn("workspace");
    expect(
      (
        await run.call("apply_patch", {
          patch: patchOf(
            0,
            (i) => `line ${i}`,
            (i) => `patched ${i}`,
          ),
        })
      ).ok,
    ).toBe(true);
    expect(await readFile(path.join(workspace, "a", "b", "f0.txt"), "utf8")).toBe("patched 0\n");
    await rm(path.join(workspace, "a", "b"), { recursive: true });
    await symlink(path.join(outside, "copy"), path.join(workspace, "a", "b"));
    const refused = await run.call("apply_patch", {
      patch: patchOf(
        1,
        (i) => `line ${i}`,
        (i) => `patched ${i}`,
      ),
    });
    expect(refused.ok).toBe(false);
    const host = runIn("unrestricted");
    expect(
      (
        await host.call("apply_patch", {
          patch: patchOf(
            1,
            (i) => `line ${i}`,
            (i) => `patched ${i}`,
          ),
        })
      ).ok,
    ).toBe(true);
    expect(await readFile(path.join(outside, "copy", "f0.txt"), "utf8")).toBe("patched 0\n");
  });
});
