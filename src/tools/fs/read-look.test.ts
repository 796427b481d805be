import { lstatSync, statSync } from "node:fs";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitFileChanges } from "./commit-file-changes.js";
import { createConfinedFileScope } from "./confined-file-scope.js";
import { PatchSession } from "./patch-session.js";
import { RACY_MARGIN_MS, unchangedSinceRead } from "./read-look.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-read-look-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("unchangedSinceRead", () => {
  it("proves an untouched file whose times are older than the margin, and nothing racy, moved or rewritten", async () => {
    const file = path.join(workspace, "a.txt");
    await writeFile(file, "abcdef\n");
    const stats = statSync(file);
    // As if read well after its last change: the times are then not racy.
    const old = { stats, readAt: Math.max(stats.ctimeMs, stats.mtimeMs) + RACY_MARGIN_MS + 1 };
    expect(unchangedSinceRead(old, lstatSync(file))).toBe(true);
    // Read within the margin of its last change: only its bytes can tell.
    expect(unchangedSinceRead({ stats, readAt: stats.ctimeMs + 1 }, lstatSync(file))).toBe(false);
    expect(unchangedSinceRead(old, undefined)).toBe(false);
    // Rewritten with the same size: the change time moved.
    await pause(20);
    await writeFile(file, "ABCDEF\n");
    expect(unchangedSinceRead(old, lstatSync(file))).toBe(false);
    // Another file with the same bytes renamed over it: another inode.
    const other = { stats: statSync(file), readAt: Date.now() + RACY_MARGIN_MS + 1 };
    await writeFile(path.join(workspace, "b.txt"), "ABCDEF\n");
    await rename(path.join(workspace, "b.txt"), file);
    expect(unchangedSinceRead(other, lstatSync(file))).toBe(false);
  });
});

describe("the commit's check of a file read more than the margin after its last change", () => {
  /** Plans `a.txt` -> new content through a session (the batched read keeps its look). */
  async function plan(content: string) {
    const scope = createConfinedFileScope(workspace);
    const session = new PatchSession(scope);
    await session.prefetch(["a.txt"]);
    const planned = await session.plannedChanges([{ type: "add", path: "a.txt", content }]);
    return { scope, session, planned };
  }

  it(
    "still refuses a same-size rewrite made between the plan and the commit (version_conflict), and commits an untouched one",
    async () => {
      const file = path.join(workspace, "a.txt");
      await writeFile(file, "first version\n");
      await writeFile(path.join(workspace, "b.txt"), "other\n");
      // The files' times are then older than the margin at the plan's read: the look is not racy.
      await pause(RACY_MARGIN_MS + 200);
      const touched = await plan("planned content\n");
      expect(touched.planned[0]?.beforeLook).toBeDefined();
      // Same size, same inode: only the times tell.
      await writeFile(file, "other version\n");
      await expect(commitFileChanges(touched.scope, "apply_patch", touched.planned, undefined)).rejects.toMatchObject({
        code: "version_conflict",
      });
      await touched.session.close();
      expect(await readFile(file, "utf8")).toBe("other version\n");

      // Control: the same plan on an untouched old file commits (the look proves it unchanged).
      const oldFile = path.join(workspace, "b.txt");
      const scope = createConfinedFileScope(workspace);
      const session = new PatchSession(scope);
      await session.prefetch(["b.txt"]);
      const planned = await session.plannedChanges([{ type: "add", path: "b.txt", content: "new\n" }]);
      expect(planned[0]?.beforeLook).toBeDefined();
      expect(unchangedSinceRead(planned[0]?.beforeLook as never, lstatSync(oldFile))).toBe(true);
      await commitFileChanges(scope, "apply_patch", planned, undefined);
      await session.close();
      expect(await readFile(oldFile, "utf8")).toBe("new\n");
    },
    RACY_MARGIN_MS + 20_000,
  );
});
