// Fault round (stop 38): a multi-step undo that a full disk or an immutable file stops half way.
// The steps before the failure are made, and the report listed them, but then carried the failed
// step's own claim for the whole call: "Undid write #3: c.txt / Then stopped at step 2: No space
// left ... Nothing was changed. No file was changed." while c.txt was restored. Only a trailing
// " Nothing was changed." was taken out, and the no_space and rollback texts end otherwise. Now
// the failed step's claim is said of that step, and every claim of the result matches the disk.
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure, okText } from "../support/call-results.js";

const isRoot = process.getuid?.() === 0;
const SANDBOXES = ["workspace", "unrestricted"] as const;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-undo-faults-"));
  if (isRoot) execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", workspace]);
});
afterEach(async () => {
  if (isRoot) {
    execFileSync("chattr", ["-R", "-i", workspace]);
    execFileSync("umount", [workspace]);
  }
  await rm(workspace, { recursive: true, force: true });
});

function runIn(sandbox: (typeof SANDBOXES)[number]): Run {
  return createRegistry({ tools: createFileTools({ redo: true }) }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
  });
}
/** Each file's length and first byte, the filler files left out. */
async function onDisk(): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of (await readdir(workspace)).sort()) {
    if (name.startsWith("filler")) continue;
    const text = await readFile(path.join(workspace, name), "utf8");
    found[name] = `${text.slice(0, 1)}x${text.length}`;
  }
  return found;
}
/** Fills the tmpfs page by page, then frees `keepPages` pages (4 KiB each). */
async function fillDisk(keepPages: number): Promise<void> {
  let count = 0;
  try {
    for (;;) await writeFile(path.join(workspace, `filler${count++}`), Buffer.alloc(4096, 1));
  } catch {}
  for (let i = 0; i < keepPages; i++) await rm(path.join(workspace, `filler${i}`));
}
async function freeDisk(): Promise<void> {
  for (const name of await readdir(workspace)) if (name.startsWith("filler")) await rm(path.join(workspace, name));
}
/** Three writes over big (a, b) and small (c) files: undoing c needs a page, undoing b fifteen. */
async function threeWrites(run: Run): Promise<void> {
  await writeFile(path.join(workspace, "a.txt"), "A".repeat(60_000));
  await writeFile(path.join(workspace, "b.txt"), "B".repeat(60_000));
  await writeFile(path.join(workspace, "c.txt"), "C".repeat(100));
  for (const name of ["a.txt", "b.txt", "c.txt"]) {
    okText(await run.call("read", { path: name }));
    okText(await run.call("write", { path: name, content: "small\n" }));
  }
}

describe.skipIf(!isRoot)("a multi-step undo stopped half way (needs root to mount a tmpfs and chattr)", () => {
  for (const sandbox of SANDBOXES) {
    it(`${sandbox}: a full disk at step 2 of 3: step 1 is told as undone, no "nothing changed" claim; freed, the rest undoes`, async () => {
      const run = runIn(sandbox);
      await threeWrites(run);
      await fillDisk(2);
      const error = failure(await run.call("undo", { steps: 3 }));
      expect(error.code).toBe("no_space");
      expect(await onDisk()).toEqual({ "a.txt": "sx6", "b.txt": "sx6", "c.txt": "Cx100" });
      expect(error.message).toContain("Undid write #3: c.txt");
      expect(error.message).toContain(
        'Then stopped at step 2: No space left on the device (or quota exceeded) while writing "b.txt".',
      );
      expect(error.message).toContain("That step changed no file. The 1 step listed above was undone; the rest were not.");
      expect(error.message).not.toContain("Nothing was changed");
      expect(error.message).not.toContain("No file was changed");
      expect((await readdir(workspace)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
      // Space freed: the two steps left are undone, and only those.
      await freeDisk();
      expect(okText(await run.call("undo", { steps: 3 }))).toBe("Undid write #2: b.txt\nUndid write #1: a.txt");
      expect(await onDisk()).toEqual({ "a.txt": "Ax60000", "b.txt": "Bx60000", "c.txt": "Cx100" });
    });

    it(`${sandbox}: an immutable file at step 2 of 3: the same, the restored-files claim said of that step only; redo redoes step 1`, async () => {
      const run = runIn(sandbox);
      await threeWrites(run);
      execFileSync("chattr", ["+i", path.join(workspace, "b.txt")]);
      const error = failure(await run.call("undo", { steps: 3 }));
      expect(error.code).toBe("permission_denied");
      expect(await onDisk()).toEqual({ "a.txt": "sx6", "b.txt": "sx6", "c.txt": "Cx100" });
      expect(error.message).toContain("Undid write #3: c.txt");
      expect(error.message).toContain('Then stopped at step 2: Permission denied for "b.txt". That step changed no file.');
      expect(error.message).not.toContain("No file was changed");
      expect(okText(await run.call("undo", { action: "redo", steps: 3 }))).toBe("Redid write #3: c.txt");
      expect(await onDisk()).toEqual({ "a.txt": "sx6", "b.txt": "sx6", "c.txt": "sx6" });
    });

    it(`${sandbox}: control: a one-step undo on a full disk still says, once, that no file was changed, and nothing was`, async () => {
      const run = runIn(sandbox);
      await threeWrites(run);
      await fillDisk(0);
      const error = failure(await run.call("undo", { steps: 3 }));
      expect(error.code).toBe("no_space");
      expect(error.message).toBe('No space left on the device (or quota exceeded) while writing "c.txt". No file was changed.');
      expect(await onDisk()).toEqual({ "a.txt": "sx6", "b.txt": "sx6", "c.txt": "sx6" });
      await freeDisk();
      expect(okText(await run.call("undo", { steps: 3 }))).toContain("Undid write #1: a.txt");
    });
  }
});
