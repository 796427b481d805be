import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { okText } from "../support/call-results.js";
import { nodeChild } from "../support/child-entry.js";

// An atomic write puts a new inode in place of the file: created as the writing user, it took the
// file from its owner (root editing a user's file left it root's, read-only to that user) unless
// the owner and group are given back before the rename.

const execFileAsync = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const support = fileURLToPath(new URL("./support/owner-edit.mjs", import.meta.url));
const OTHER = { uid: 65534, gid: 65534 };

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-owner-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function runIn(root = workspace): Run {
  return createRegistry({ tools: createFileTools({ redo: true }) }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace: root },
  });
}
async function ownerOf(name: string): Promise<{ uid: number; gid: number; mode: number }> {
  const stats = await stat(path.join(workspace, name));
  return { uid: stats.uid, gid: stats.gid, mode: stats.mode & 0o7777 };
}
async function leftovers(): Promise<string[]> {
  return (await readdir(workspace, { recursive: true })).filter((entry) => /\.atc-|\.tmp$/.test(entry));
}

describe.skipIf(!isRoot)("a replaced file keeps its owner and group (root)", () => {
  it("write, edit, apply_patch (several files), undo and redo keep another user's file theirs", async () => {
    for (const name of ["a.txt", "b.txt", "c.txt"]) {
      await writeFile(path.join(workspace, name), "one\ntwo\n");
      await chown(path.join(workspace, name), OTHER.uid, OTHER.gid);
      await chmod(path.join(workspace, name), 0o640);
    }
    // A file of root's own, beside them: the positive control that nothing is given away.
    await writeFile(path.join(workspace, "mine.txt"), "one\n");
    const run = runIn();
    for (const name of ["a.txt", "b.txt", "c.txt", "mine.txt"]) okText(await run.call("read", { path: name }));
    okText(await run.call("edit", { path: "a.txt", old_text: "one", new_text: "ONE" }));
    okText(await run.call("write", { path: "b.txt", content: "written\n" }));
    okText(
      await run.call("apply_patch", {
        patch: [
          "*** Begin Patch",
          "*** Update File: c.txt",
          "@@",
          "-two",
          "+TWO",
          "*** Update File: mine.txt",
          "@@",
          "-one",
          "+ONE",
          "*** End Patch",
        ].join("\n"),
      }),
    );
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("ONE\ntwo\n");
    expect(await readFile(path.join(workspace, "b.txt"), "utf8")).toBe("written\n");
    expect(await readFile(path.join(workspace, "c.txt"), "utf8")).toBe("one\nTWO\n");
    for (const name of ["a.txt", "b.txt", "c.txt"]) expect(await ownerOf(name)).toEqual({ ...OTHER, mode: 0o640 });
    expect(await ownerOf("mine.txt")).toMatchObject({ uid: 0, gid: 0 });
    okText(await run.call("undo", {}));
    expect(await readFile(path.join(workspace, "c.txt"), "utf8")).toBe("one\ntwo\n");
    expect(await ownerOf("c.txt")).toEqual({ ...OTHER, mode: 0o640 });
    okText(await run.call("undo", { action: "redo" }));
    expect(await readFile(path.join(workspace, "c.txt"), "utf8")).toBe("one\nTWO\n");
    expect(await ownerOf("c.txt")).toEqual({ ...OTHER, mode: 0o640 });
    expect(await leftovers()).toEqual([]);
  });

  it("a new file is the writer's; only the group differing is kept too", async () => {
    await writeFile(path.join(workspace, "group.txt"), "x\n");
    await chown(path.join(workspace, "group.txt"), 0, OTHER.gid);
    const run = runIn();
    okText(await run.call("write", { path: "new.txt", content: "new\n" }));
    expect(await ownerOf("new.txt")).toMatchObject({ uid: 0, gid: 0 });
    okText(await run.call("read", { path: "group.txt" }));
    okText(await run.call("edit", { path: "group.txt", old_text: "x", new_text: "y" }));
    expect(await ownerOf("group.txt")).toMatchObject({ uid: 0, gid: OTHER.gid });
  });
});

describe.skipIf(!isRoot)("as a user that is not root (privileges dropped after loading)", () => {
  async function callsAs(user: { uid: number; gid: number; groups: number[] }, calls: [string, object][]) {
    // On the build when it is current (a plain node), else the sources under tsx.
    const child = nodeChild(support, [JSON.stringify({ workspace, calls, user })], {
      env: { ...process.env, HOME: workspace, TMPDIR: workspace },
    });
    const { stdout } = await execFileAsync(process.execPath, child.args, {
      cwd: path.dirname(path.dirname(path.dirname(support))),
      env: child.env,
    });
    return JSON.parse(stdout.trim().split("\n").at(-1) as string) as ToolCallResult[];
  }

  it("a group-writable file of another member keeps its group (the owner cannot be given: the writer's)", async () => {
    // The workspace belongs to the user (its state directory is under TMPDIR, the workspace); the
    // file to another user of a shared group (4242) the user is also in.
    await chown(workspace, 1000, 1000);
    await writeFile(path.join(workspace, "shared.txt"), "one\n");
    await chown(path.join(workspace, "shared.txt"), OTHER.uid, 4242);
    await chmod(path.join(workspace, "shared.txt"), 0o664);
    await writeFile(path.join(workspace, "own.txt"), "one\n");
    await chown(path.join(workspace, "own.txt"), 1000, 1000);
    const results = await callsAs({ uid: 1000, gid: 1000, groups: [1000, 4242] }, [
      ["read", { path: "shared.txt" }],
      ["edit", { path: "shared.txt", old_text: "one", new_text: "two" }],
      ["read", { path: "own.txt" }],
      ["edit", { path: "own.txt", old_text: "one", new_text: "two" }],
    ]);
    for (const result of results) okText(result);
    expect(await readFile(path.join(workspace, "shared.txt"), "utf8")).toBe("two\n");
    // The group stays (the shared group's members can still write it); the owner is the writer.
    expect(await ownerOf("shared.txt")).toEqual({ uid: 1000, gid: 4242, mode: 0o664 });
    expect(await ownerOf("own.txt")).toEqual({ uid: 1000, gid: 1000, mode: 0o644 });
    expect(await leftovers()).toEqual([]);
  });
});
