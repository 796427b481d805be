// Review of stop 32: when a dead writer's fully replayed log could not be removed (its intents
// directory immutable, a read-only state directory), the removal failure was ignored: the whole log
// stayed, the recovery counted as done and the agent wrote files again; every later recovery
// replayed the log's deletes (and renames) again, over the files written since. Now such a
// recovery fails as one whose kept log cannot be written: the workspace's changes fail, naming
// the cause, reads go on, and once the log can be removed the next recovery removes it.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import {
  canMakeImmutable,
  fileToolsRun,
  makeRecoveryFixture,
  plantDeadWritersLog as plantLog,
  type RecoveryFixture,
  readOrAbsent as read,
  removeRecoveryFixture,
} from "./support/dead-writer-log.js";

// Root with a file system that has the immutable flag (ext4 and the like, not tmpfs), else skipped;
// probed beside the state directory (on the same file system as a rule), which may not exist yet.
const immutable = canMakeImmutable(path.dirname(path.dirname(path.dirname(intentDirectory("/")))));
let fixture: RecoveryFixture;
let root: string;
beforeEach(async () => {
  fixture = await makeRecoveryFixture("atc-unremovable-log-");
  root = fixture.root;
});
afterEach(async () => {
  // Always lift the flag first, or neither the log nor its directory could be removed.
  if (immutable && existsSync(intentDirectory(root))) execFileSync("chattr", ["-i", intentDirectory(root)], { stdio: "ignore" });
  await removeRecoveryFixture(fixture);
});

const runIn = (sandbox: "workspace" | "unrestricted") => fileToolsRun(root, sandbox);

/** A dead writer's committed log deleting `d.txt` inside the workspace. */
async function plantDeadWritersLog(): Promise<string> {
  await writeFile(path.join(root, "d.txt"), "old d\n");
  return plantLog(root, "committed", [{ directory: root, name: "d.txt", created: [] }]);
}

function expectFailed(result: ToolCallResult): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe("tool_failed");
  expect(result.error.message).toContain("crash recovery");
  // The cause named: the immutable directory refuses the removal with EPERM.
  expect(result.error.message).toContain("its state directory cannot be written");
}

describe.skipIf(!immutable)(
  "a replayed log that cannot be removed is never replayed again over a newer file (needs root and chattr +i)",
  () => {
    it("the log cannot be removed: changes fail, reads go on; once it can, a file written after survives a later recovery", async () => {
      const log = await plantDeadWritersLog();
      execFileSync("chattr", ["+i", intentDirectory(root)]);
      const ws = runIn("workspace");
      // The delete is replayed, the log stays; reads go on.
      const listed = await ws.call("ls", { path: "." });
      expect(listed.ok).toBe(true);
      expect(await read(path.join(root, "d.txt"))).toBe("absent");
      expect(existsSync(log)).toBe(true);
      await writeFile(path.join(root, "r.txt"), "readable\n");
      const readBack = await ws.call("read", { path: "r.txt" });
      expect(readBack.ok && JSON.stringify(readBack.output)).toContain("readable");
      for (const change of [
        ws.call("write", { path: "d.txt", content: "user's new work\n" }),
        ws.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: f.txt\n+f\n*** End Patch" }),
      ])
        expectFailed(await change);
      expect(await read(path.join(root, "d.txt"))).toBe("absent");
      expect(await read(path.join(root, "f.txt"))).toBe("absent");

      // The log can go again: the next recovery removes it, then the write lands.
      execFileSync("chattr", ["-i", intentDirectory(root)]);
      expect((await ws.call("write", { path: "d.txt", content: "user's new work\n" })).ok).toBe(true);

      // A later recovery (another scope's, in this process) finds nothing to replay over the new
      // file (the old code had kept the log, and its delete removed the user's work here).
      expect((await runIn("unrestricted").call("ls", { path: "." })).ok).toBe(true);
      expect(await read(path.join(root, "d.txt"))).toBe("user's new work\n");
      expect(existsSync(log)).toBe(false);
      expect(await readdir(intentDirectory(root))).toEqual([]);
    });

    it("control: without the flag the log is removed by the first recovery and the newer file survives", async () => {
      const log = await plantDeadWritersLog();
      const ws = runIn("workspace");
      expect((await ws.call("ls", { path: "." })).ok).toBe(true);
      expect(await read(path.join(root, "d.txt"))).toBe("absent");
      expect(existsSync(log)).toBe(false);
      expect((await ws.call("write", { path: "d.txt", content: "user's new work\n" })).ok).toBe(true);
      expect((await runIn("unrestricted").call("ls", { path: "." })).ok).toBe(true);
      expect(await read(path.join(root, "d.txt"))).toBe("user's new work\n");
      expect(await readdir(intentDirectory(root))).toEqual([]);
    });
  },
);
