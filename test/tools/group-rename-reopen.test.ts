/**
 * Stop 48 review: a change made in groups of directories (more directories than the open-file
 * limit lets it hold at once) opens each group again for its renames, first group first. A
 * directory of a later group swapped for a copy after the first group's renames landed makes that
 * opening fail (`DirectoryReplacedError`) with the first groups' files already new. The call must
 * not end with only some files changed while saying otherwise: every file is as before, and the
 * result says no file was changed (or, where a file could not be restored, says exactly what is
 * on disk). A real background process (swap-after-first-rename.mjs) swaps the directory once it
 * sees the first group's first rename (inotify).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeChild } from "../support/child-entry.js";
import { leftBehind } from "./support/left-behind.js";
import { MANY, manyFileStates, seedManyFiles } from "./support/many-file-workspace.js";
import { whileMoving } from "./support/while-moving.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(repo, "test/tools/support/many-file-patch.mjs");
const swapper = path.join(repo, "test/tools/support/swap-after-first-rename.mjs");
const recoverer = path.join(repo, "test/tools/support/swap-race-patch.mjs");
/** A directory of the last group holding files the patch updates (f398, f798). */
const VICTIM = "d398";

type Outcome = { ok: boolean; error?: { code: string; message?: string; data?: { files?: { path: string; state: string }[] } } };

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-group-reopen-"));
});
afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
});

const seed = () => seedManyFiles(workspace);
/** Each patched file's state at its path: "new", "old" or "missing". */
const states = () => manyFileStates(workspace);

function patch(): Promise<Outcome> {
  const child = nodeChild(script, [JSON.stringify({ workspace, files: MANY.files, dirs: MANY.dirs, limit: MANY.limit })]);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, child.args, { cwd: repo, env: child.env, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1) as string));
    });
  });
}

describe("a later group's directory swapped after the first group's renames (change made in groups)", () => {
  it("positive control, no swap: ok and every file new", async () => {
    seed();
    expect(await patch()).toEqual({ ok: true });
    expect(new Set(states().values())).toEqual(new Set(["new"]));
  }, 240_000);

  it("fails with every file as before and says so (never some files new)", async () => {
    let outcome: { result: Outcome; said: string } | undefined;
    // Under load the swap may land after the last group's renames (or never): the change is then
    // ok and whole (the moved directory got the new files), and the case runs again on a fresh
    // workspace.
    for (let attempt = 0; attempt < 5 && (outcome === undefined || outcome.result.ok); attempt++) {
      seed();
      outcome = await whileMoving([swapper, workspace, "d0", "f0.txt", VICTIM, "away"], patch);
      if (!outcome.result.ok) break;
      const renamedInto = outcome.said === "moved" ? path.join(workspace, "away") : path.join(workspace, VICTIM);
      expect(readFileSync(path.join(renamedInto, "f398.txt"), "utf8")).toBe("new 398\n");
    }
    const { result, said } = outcome as { result: Outcome; said: string };
    expect(said).toBe("moved");
    const now = states();
    const changed = [...now].filter(([, state]) => state === "new").map(([file]) => file);
    expect(result.ok, JSON.stringify(result).slice(0, 2000)).toBe(false);
    // All or nothing: no file at its path is new.
    expect(changed.slice(0, 10), `${changed.length} files new; ${JSON.stringify(result).slice(0, 600)}`).toEqual([]);
    expect(result.error?.code).toBe("version_conflict");
    expect(result.error?.message).toMatch(/No file was changed/);
    // The swapped-in copy is as it was; the moved directory too (its files never renamed into).
    expect(readFileSync(path.join(workspace, VICTIM, "f398.txt"), "utf8")).toBe("old 398\n");
    expect(readFileSync(path.join(workspace, "away", "f398.txt"), "utf8")).toBe("old 398\n");
    expect(readdirSync(workspace).filter((name) => name.endsWith(".copy"))).toEqual([]);
    // The last group's temporary files in the moved directory stay, named by the kept log (its
    // handle closed, the path holds the copy: see removeMadeOfClosed), and so do the files holding
    // their old contents (`restore`, stop 49); put back, a recovery ends both.
    const { temporaries, logged } = await leftBehind(workspace);
    for (const file of temporaries) {
      expect(path.dirname(file)).toBe("away");
      expect(logged.flatMap((entry) => [entry.temporary, entry.restore])).toContain(path.basename(file));
    }
    await rm(path.join(workspace, VICTIM), { recursive: true });
    await rename(path.join(workspace, "away"), path.join(workspace, VICTIM));
    const child = nodeChild(recoverer, [JSON.stringify({ workspace, dirs: MANY.dirs, recover: true })]);
    await new Promise((resolve, reject) =>
      execFile(process.execPath, child.args, { cwd: repo, env: child.env, timeout: 120_000 }, (error) =>
        error ? reject(error) : resolve(undefined),
      ),
    );
    expect(await leftBehind(workspace)).toEqual({ temporaries: [], logged: [] });
    expect(new Set(states().values())).toEqual(new Set(["old", "missing"]));
  }, 600_000);
});
