// Review of red team round 12: a `workspace` run's recovery of an `unrestricted` run's log completes
// the entries inside the workspace and keeps a log of the others. When that kept log could not be
// written (a full disk; simulated here by a directory standing where `<log>.next` is written), the
// WHOLE log stayed, the recovery counted as done and the agent wrote files again; the next
// `unrestricted` recovery replayed the whole log, its delete inside the workspace included, and
// deleted the file the agent had written since. Now the kept log is written before any entry is
// replayed: if it cannot be, nothing is replayed and the workspace's file operations fail until a
// recovery succeeds (reads go on), so no entry already done is ever replayed over a newer file.
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import {
  fileToolsRun,
  makeRecoveryFixture,
  plantDeadWritersLog as plantLog,
  type RecoveryFixture,
  readOrAbsent as read,
  removeRecoveryFixture,
} from "./support/dead-writer-log.js";

let fixture: RecoveryFixture;
let root: string;
let outside: string;
beforeEach(async () => {
  fixture = await makeRecoveryFixture("atc-kept-log-");
  ({ root, outside } = fixture);
});
afterEach(() => removeRecoveryFixture(fixture));

const runIn = (sandbox: "workspace" | "unrestricted") => fileToolsRun(root, sandbox);

/** A dead unrestricted writer's committed log: delete `d.txt` inside, rename `b.txt`'s temporary file outside. */
async function plantDeadWritersLog(): Promise<string> {
  await writeFile(path.join(root, "d.txt"), "old d\n");
  await writeFile(path.join(outside, "b.txt"), "old b\n");
  await writeFile(path.join(outside, ".atc-b.tmp"), "new b\n");
  return plantLog(root, "committed", [
    { directory: root, name: "d.txt", created: [] },
    { directory: outside, name: "b.txt", temporary: ".atc-b.tmp", created: [] },
  ]);
}

const entriesOf = async (log: string) =>
  (JSON.parse(await readFile(log, "utf8")) as { entries: { name: string }[] }).entries.map((entry) => entry.name);

function expectFailed(result: ToolCallResult): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe("tool_failed");
  expect(result.error.message).toContain("crash recovery");
  // The cause named (here a directory stands where the kept log goes), not a guess at a full disk.
  expect(result.error.message).toContain("EISDIR");
  expect(result.error.message).not.toContain("disk is full");
}

describe("a kept log that cannot be written never leads to a done entry replayed over a newer file", () => {
  it("the kept log cannot be written: nothing replayed, file tools fail; once it can, a file written after survives the unrestricted recovery", async () => {
    const log = await plantDeadWritersLog();
    await mkdir(`${log}.next`);
    const ws = runIn("workspace");
    // Reads go on (the review of stop 32: a state directory that cannot be written locked the
    // workspace out of reads for good); every change fails, saying why.
    const listed = await ws.call("ls", { path: "." });
    expect(listed.ok).toBe(true);
    expect(JSON.stringify(listed)).toContain("d.txt");
    const read_ = await ws.call("read", { path: "d.txt" });
    expect(read_.ok && JSON.stringify(read_.output)).toContain("old d");
    for (const change of [
      ws.call("write", { path: "d.txt", content: "user's new work\n" }),
      ws.call("write", { path: "e.txt", content: "new file\n" }),
      ws.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: f.txt\n+f\n*** End Patch" }),
    ])
      expectFailed(await change);
    // Nothing replayed: the delete inside is still to be done, by the log that names it.
    expect(await read(path.join(root, "d.txt"))).toBe("old d\n");
    expect(await entriesOf(log)).toEqual(["d.txt", "b.txt"]);

    // Room again: the recovery completes the delete inside, keeps only the outside entry, then the write lands.
    await rmdir(`${log}.next`);
    expect((await ws.call("write", { path: "d.txt", content: "user's new work\n" })).ok).toBe(true);
    expect(await entriesOf(log)).toEqual(["b.txt"]);

    expect((await runIn("unrestricted").call("ls", { path: "." })).ok).toBe(true);
    expect(await read(path.join(root, "d.txt"))).toBe("user's new work\n");
    expect(await read(path.join(outside, "b.txt"))).toBe("new b\n");
    expect((await readdir(outside)).sort()).toEqual(["b.txt"]);
    expect(await readdir(intentDirectory(root))).toEqual([]);
  });

  it("control: with room for the kept log, the same sequence runs through and the newer file survives", async () => {
    const log = await plantDeadWritersLog();
    const ws = runIn("workspace");
    expect((await ws.call("ls", { path: "." })).ok).toBe(true);
    expect(await read(path.join(root, "d.txt"))).toBe("absent");
    expect(await entriesOf(log)).toEqual(["b.txt"]);
    expect((await ws.call("write", { path: "d.txt", content: "user's new work\n" })).ok).toBe(true);
    expect((await runIn("unrestricted").call("ls", { path: "." })).ok).toBe(true);
    expect(await read(path.join(root, "d.txt"))).toBe("user's new work\n");
    expect(await read(path.join(outside, "b.txt"))).toBe("new b\n");
    expect(await readdir(intentDirectory(root))).toEqual([]);
  });
});
