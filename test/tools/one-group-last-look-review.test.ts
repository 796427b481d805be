/**
 * Review of the one-group "last look" (stop 34): (1) a directory really named "x (deleted)" had
 * the kernel's " (deleted)" mark cut from its real path, so every change in it failed the look as
 * `version_conflict`; (2) after a swap, a rollback removed the made directories by path: a user's
 * empty directory put at the path since was removed, and the change's own left in the moved one.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileVersion } from "../../src/tools/fs/file-version.js";
import { openVerifiedDirectory, stillWhereVerified } from "../../src/tools/fs/verified-directory.js";
import { createFileTools } from "../../src/tools/index.js";
import { whileMoving } from "./support/while-moving.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const mover = path.join(repo, "test/tools/support/directory-mover.mjs");
const madeMover = path.join(repo, "test/tools/support/made-directory-mover.mjs");

/** 16 MB of numbered lines: writing and flushing its temporary file outlasts a mover's reaction (mostly: see the retries). */
const BIG = Buffer.from(Array.from({ length: 400_000 }, (_, line) => `line ${String(line).padStart(32, "0")}\n`).join(""));
const FIRST = `line ${"0".repeat(32)}\n`;

let base: string;
let workspace: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "atc-last-look-")));
  workspace = path.join(base, "ws");
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function call(name: string, input: Record<string, unknown>, root = workspace): Promise<ToolCallResult> {
  const run = createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace: root, approval: "none" },
  });
  return run.call(name, input);
}

describe('a directory named "x (deleted)"', () => {
  it("write, edit and a two-file apply_patch in it are ok and on disk (before: version_conflict)", async () => {
    await mkdir(path.join(workspace, "d (deleted)"));
    // A sibling named as the cut path: the cut path named another directory.
    await mkdir(path.join(workspace, "d"));
    expect(await call("write", { path: "d (deleted)/f.txt", content: "one\n" })).toMatchObject({ ok: true });
    expect(await call("edit", { path: "d (deleted)/f.txt", old_text: "one", new_text: "two" })).toMatchObject({ ok: true });
    const patch =
      "--- a/d (deleted)/f.txt\n+++ b/d (deleted)/f.txt\n@@ -1 +1 @@\n-two\n+three\n" +
      "--- /dev/null\n+++ b/d (deleted)/g.txt\n@@ -0,0 +1 @@\n+g\n";
    expect(await call("apply_patch", { patch })).toMatchObject({ ok: true });
    expect(await readFile(path.join(workspace, "d (deleted)/f.txt"), "utf8")).toBe("three\n");
    expect(await readFile(path.join(workspace, "d (deleted)/g.txt"), "utf8")).toBe("g\n");
    expect(await readdir(path.join(workspace, "d"))).toEqual([]);
  });

  it("a workspace so named: ok", async () => {
    const root = path.join(base, "proj (deleted)");
    await mkdir(root);
    expect(await call("write", { path: "f.txt", content: "a\n" }, root)).toMatchObject({ ok: true });
    expect(await call("write", { path: "sub/f.txt", content: "b\n" }, root)).toMatchObject({ ok: true });
    expect(await readFile(path.join(root, "sub/f.txt"), "utf8")).toBe("b\n");
  });

  it("control: such a directory moved away under the change is still refused, nothing changed", async () => {
    const parent = "x (deleted)";
    const seed = async () => {
      await rm(path.join(workspace, parent), { recursive: true, force: true });
      await rm(path.join(workspace, "away"), { recursive: true, force: true });
      await mkdir(path.join(workspace, parent));
      await writeFile(path.join(workspace, parent, "big.txt"), BIG);
    };
    await seed();
    const start = () =>
      call("edit", { path: `${parent}/big.txt`, old_text: FIRST, new_text: "edited\n", expected_version: fileVersion(BIG) });
    // Moved only while the change still holds a temporary file open (before its last look): a
    // mover slowed by load moves nothing ("late", as "never"), the change ok, and it runs again.
    const args = [mover, workspace, parent, parent, "away", "--ready", "--no-replacement", "--while-open"];
    let { result, said, output } = await whileMoving(args, start);
    for (let attempt = 1; said !== "moved" && attempt < 10; attempt++) {
      expect(result.ok, JSON.stringify({ result, mover: output })).toBe(true);
      await seed();
      ({ result, said, output } = await whileMoving(args, start));
    }
    expect(said).toBe("moved");
    expect(result, JSON.stringify({ result, mover: output })).toMatchObject({ ok: false, error: { code: "version_conflict" } });
    expect((await readFile(path.join(workspace, "away", "big.txt"))).equals(BIG)).toBe(true);
  }, 120_000);

  it("the verified directory's real path keeps the name; one removed while held is no longer where verified", async () => {
    await mkdir(path.join(workspace, "y (deleted)"));
    const named = await openVerifiedDirectory(workspace, ["y (deleted)"], { create: false, checkInside: () => undefined });
    expect(named.realPath).toBe(path.join(workspace, "y (deleted)"));
    expect(stillWhereVerified(named)).toBe(true);
    // Control: really removed while held (its kernel path then ends in the mark).
    await rmdir(path.join(workspace, "y (deleted)"));
    expect(stillWhereVerified(named)).toBe(false);
    await named.close();
    await mkdir(path.join(workspace, "z"));
    const plain = await openVerifiedDirectory(workspace, ["z"], { create: false, checkInside: () => undefined });
    expect(stillWhereVerified(plain)).toBe(true);
    await rmdir(path.join(workspace, "z"));
    expect(stillWhereVerified(plain)).toBe(false);
    await plain.close();
  });
});

const CAN_IMMUTABLE = immutableWorks();

describe("a one-group change that made a directory and failed", () => {
  it("after a swap: the user's empty directory at the path is kept, the change's own removed from the moved one", async () => {
    const seed = async () => {
      for (const name of ["a", "away"]) await rm(path.join(workspace, name), { recursive: true, force: true });
      await mkdir(path.join(workspace, "a"));
      await writeFile(path.join(workspace, "a/big.txt"), BIG);
    };
    await seed();
    const patch = `--- a/a/big.txt\n+++ b/a/big.txt\n@@ -1 +1 @@\n-${FIRST}+patched\n--- /dev/null\n+++ b/a/new/f.txt\n@@ -0,0 +1 @@\n+new\n`;
    const start = () => call("apply_patch", { patch });
    let { result, said } = await whileMoving([madeMover, workspace], start);
    // Under load the mover may act only after the change's last look (the window the README
    // states: the change is then ok, its files in the moved directory) or not at all: run again.
    for (let attempt = 1; (said !== "moved" || result.ok) && attempt < 8; attempt++) {
      expect(result.ok, JSON.stringify(result)).toBe(true);
      await seed();
      ({ result, said } = await whileMoving([madeMover, workspace], start));
    }
    expect(said).toBe("moved");
    expect(result.ok).toBe(false);
    // Before: a/new (the user's) was removed and away/new (the change's) left.
    expect((await readdir(path.join(workspace, "a"))).sort()).toEqual(["keep.txt", "new"]);
    expect(await readdir(path.join(workspace, "away"))).toEqual(["big.txt"]);
    expect((await readFile(path.join(workspace, "away/big.txt"))).equals(BIG)).toBe(true);
  }, 300_000);

  it.skipIf(!CAN_IMMUTABLE)("control, no swap: a failed change still removes the directories it made", async () => {
    // b is immutable: the change's temporary file there cannot be made, after a/new/deep was.
    await mkdir(path.join(workspace, "a"));
    await mkdir(path.join(workspace, "b"));
    await writeFile(path.join(workspace, "b/x.txt"), "x\n");
    execFileSync("chattr", ["+i", path.join(workspace, "b")]);
    try {
      const patch =
        "--- /dev/null\n+++ b/a/new/deep/f.txt\n@@ -0,0 +1 @@\n+new\n" + "--- a/b/x.txt\n+++ b/b/x.txt\n@@ -1 +1 @@\n-x\n+y\n";
      const result = await call("apply_patch", { patch });
      expect(result.ok).toBe(false);
      expect(await readdir(path.join(workspace, "a"))).toEqual([]);
      expect(await readFile(path.join(workspace, "b/x.txt"), "utf8")).toBe("x\n");
    } finally {
      execFileSync("chattr", ["-i", path.join(workspace, "b")]);
    }
  });
});

/** True where `chattr +i` works here (root on a file system with the flag). */
function immutableWorks(): boolean {
  const probe = mkdtempSync(path.join(tmpdir(), "atc-immutable-"));
  try {
    execFileSync("chattr", ["+i", probe], { stdio: "ignore" });
    execFileSync("chattr", ["-i", probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
