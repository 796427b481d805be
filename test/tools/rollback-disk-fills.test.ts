// Fault round (stop 38), held: a change that fails after its commit point (a delete refused: an
// immutable file) restores the files it changed, while another process fills every page the
// change frees. When the restore cannot be written the result says so: partially_applied, each
// file as it is on disk (never "No file was changed"); when the filler was slower, restored and
// said so. Control: with no filler, the same change is restored whole and says so.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure } from "../support/call-results.js";

const isRoot = process.getuid?.() === 0;
const patch = "*** Begin Patch\n*** Delete File: a.txt\n*** Delete File: d.txt\n*** End Patch";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-rollback-fills-"));
  if (isRoot) execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", workspace]);
});
afterEach(async () => {
  if (isRoot) {
    execFileSync("chattr", ["-R", "-i", workspace]);
    execFileSync("umount", [workspace]);
  }
  await rm(workspace, { recursive: true, force: true });
});

async function seed(): Promise<void> {
  await writeFile(path.join(workspace, "a.txt"), "A\n".repeat(30_000));
  await writeFile(path.join(workspace, "d.txt"), "D\n");
  execFileSync("chattr", ["+i", path.join(workspace, "d.txt")]);
}
const named = async () => (await readdir(workspace)).filter((name) => !name.startsWith("fill")).sort();

describe.skipIf(!isRoot)("a rollback on a disk that fills (needs root to mount a tmpfs and chattr)", () => {
  for (const sandbox of ["workspace", "unrestricted"] as const) {
    const runIn = () =>
      createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });

    it(`${sandbox}: a filler takes the pages the change frees: the result says what is on disk (partially_applied lists it; a restore that got through says so)`, async () => {
      await seed();
      // Another process takes every page as soon as it is free (4 KiB appends in a busy loop).
      const filler = spawn(
        process.execPath,
        [
          "-e",
          `const fs = require("fs"); const page = Buffer.alloc(4096, 1);
           for (let n = 0; ; n++) { try { fs.appendFileSync(process.argv[1] + "/fill" + (n % 8), page); } catch {} }`,
          workspace,
        ],
        { stdio: "ignore" },
      );
      let error: ReturnType<typeof failure>;
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        error = failure(await runIn().call("apply_patch", { patch }));
      } finally {
        // Gone before the checks and the unmount (a live filler keeps the mount busy).
        const exited = new Promise((resolve) => filler.once("exit", resolve));
        filler.kill("SIGKILL");
        await exited;
      }
      if (error.code === "partially_applied") {
        // The restore of a.txt found no room: said, and so on disk.
        expect(error.message).toContain("a.txt: changed (v_absent)");
        expect(error.message).toMatch(/d\.txt: unchanged \(v_[0-9a-f]+\)/);
        expect(error.message).not.toContain("No file was changed");
        expect(error.message).not.toContain("Nothing was changed");
        expect(await named()).toEqual(["d.txt"]);
      } else {
        // The filler was slower than the restore (a loaded machine): restored, and said so.
        expect(error.code).toBe("permission_denied");
        expect(error.message).toContain("No file was changed: every file written before the failure was restored.");
        expect(await named()).toEqual(["a.txt", "d.txt"]);
        expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("A\n".repeat(30_000));
      }
      expect(await readFile(path.join(workspace, "d.txt"), "utf8")).toBe("D\n");
      expect((await readdir(workspace)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    });

    it(`${sandbox}: control: with no filler the same change is restored whole and says so`, async () => {
      await seed();
      const error = failure(await runIn().call("apply_patch", { patch }));
      expect(error.code).toBe("permission_denied");
      expect(error.message).toContain("No file was changed: every file written before the failure was restored.");
      expect(await named()).toEqual(["a.txt", "d.txt"]);
      expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("A\n".repeat(30_000));
    });
  }
});
