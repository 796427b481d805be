/**
 * A write whose path needs new directories and then fails further down (the path grows past
 * PATH_MAX, the file system runs out of inodes) leaves no directory behind: the directories the
 * walk made are removed again through the handles it holds. Before, a failed write to a 25-level
 * path left 20 nested directories (too deep for most tools to remove).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-walk-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function runIn(sandbox: "workspace" | "unrestricted", root = workspace): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace: root } });
}

const deepPath = (letter: string, levels: number) => `${`${letter.repeat(200)}/`.repeat(levels)}f.txt`;

describe("failed writes leave no directories behind", () => {
  for (const sandbox of ["workspace", "unrestricted"] as const) {
    it(`a path past PATH_MAX: refused, no directory made (${sandbox}); a long path under it works`, async () => {
      const run = runIn(sandbox);
      const result = await run.call("write", { path: deepPath("d", 25), content: "x" });
      expect(result.ok ? "ok" : result.error.code).toBe("name_too_long");
      const patch = await run.call("apply_patch", {
        patch: `*** Begin Patch\n*** Add File: ${deepPath("p", 25)}\n+x\n*** End Patch`,
      });
      expect(patch.ok).toBe(false);
      expect(await readdir(workspace)).toEqual([]);
      // Control: 18 levels (3.6 kB) fit, and the directories are made.
      const fits = await run.call("write", { path: deepPath("e", 18), content: "x" });
      expect(fits.ok).toBe(true);
      expect(await readdir(workspace)).toEqual(["e".repeat(200)]);
    });
  }

  const isRoot = process.getuid?.() === 0;
  describe.skipIf(!isRoot)("on a tmpfs with 24 inodes (needs root to mount)", () => {
    let mountPoint: string;
    beforeEach(async () => {
      mountPoint = await mkdtemp(path.join(tmpdir(), "atc-inodes-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,nr_inodes=24", "tmpfs", mountPoint]);
      await mkdir(path.join(mountPoint, "ws"));
    });
    afterEach(async () => {
      execFileSync("umount", [mountPoint]);
      await rm(mountPoint, { recursive: true, force: true });
    });

    for (const sandbox of ["workspace", "unrestricted"] as const) {
      it(`out of inodes half way down a new path: no_space, no directory left (${sandbox})`, async () => {
        const root = path.join(mountPoint, "ws");
        const run = runIn(sandbox, root);
        const deep = `${"n/".repeat(40)}f.txt`;
        const result = await run.call("write", { path: deep, content: "x" });
        expect(result.ok ? "ok" : result.error.code).toBe("no_space");
        expect(await readdir(root)).toEqual([]);
        // Control: a shallow path still fits.
        expect((await run.call("write", { path: "a/b/f.txt", content: "x" })).ok).toBe(true);
      });
    }
  });
});
