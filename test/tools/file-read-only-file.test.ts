import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeChild } from "../support/child-entry.js";

// A change is a new file renamed into place, which needs only the directory's write permission:
// a user's read-only file (`chmod a-w`), which the kernel refuses to open for writing, was
// replaced all the same (and stayed read-only, with the new content).

const execFileAsync = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const support = fileURLToPath(new URL("./support/owner-edit.mjs", import.meta.url));
const USER = 1000;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-read-only-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Runs `calls` in one run as a user that is not root (its TMPDIR, for the state directory, the workspace). */
async function callsAsUser(calls: [string, object][], effectiveOnly = false): Promise<ToolCallResult[]> {
  const user = { uid: USER, gid: USER, groups: [], effectiveOnly };
  // On the build when it is current (a plain node), else the sources under tsx.
  const child = nodeChild(support, [JSON.stringify({ workspace, calls, user })], {
    env: { ...process.env, HOME: workspace, TMPDIR: workspace },
  });
  const { stdout } = await execFileAsync(process.execPath, child.args, {
    cwd: path.resolve(path.dirname(support), "../../.."),
    env: child.env,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as ToolCallResult[];
}
async function userFile(name: string, content: string, mode: number): Promise<void> {
  await writeFile(path.join(workspace, name), content);
  await chown(path.join(workspace, name), USER, USER);
  await chmod(path.join(workspace, name), mode);
}
const text = (name: string) => readFile(path.join(workspace, name), "utf8");
const patchOf = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
async function leftovers(): Promise<string[]> {
  return (await readdir(workspace)).filter((entry) => entry.startsWith(".atc-"));
}

describe.skipIf(!isRoot)("a read-only file of a user that is not root", () => {
  it("write, edit, apply_patch and undo refuse it (permission_denied, nothing changed); a writable one beside it changes", async () => {
    await chown(workspace, USER, USER);
    await userFile("locked.txt", "one\n", 0o444);
    await userFile("open.txt", "one\n", 0o644);
    const [read, edit, write, patch, writable, undone, afterUndo] = await callsAsUser([
      ["read", { path: "locked.txt" }],
      ["edit", { path: "locked.txt", old_text: "one", new_text: "two" }],
      ["write", { path: "locked.txt", content: "written\n" }],
      [
        "apply_patch",
        {
          patch: patchOf("*** Update File: open.txt", "@@", "-one", "+two", "*** Update File: locked.txt", "@@", "-one", "+two"),
        },
      ],
      // The positive control: the writable file alone.
      ["apply_patch", { patch: patchOf("*** Update File: open.txt", "@@", "-one", "+two") }],
      ["undo", {}],
      ["read", { path: "open.txt" }],
    ]);
    expect(read?.ok).toBe(true);
    for (const refused of [edit, write, patch]) {
      expect(refused?.ok).toBe(false);
      if (refused?.ok !== false) continue;
      expect(refused.error.code).toBe("permission_denied");
      expect(refused.error.message).toContain('"locked.txt" is read-only for this user (mode 0444)');
      expect(refused.error.message).toContain("No file was changed");
    }
    expect(writable?.ok).toBe(true);
    expect(undone?.ok).toBe(true);
    expect(afterUndo?.ok).toBe(true);
    expect(await text("locked.txt")).toBe("one\n");
    expect(await text("open.txt")).toBe("one\n");
    expect((await stat(path.join(workspace, "locked.txt"))).mode & 0o777).toBe(0o444);
    expect(await leftovers()).toEqual([]);
  });

  it("undo onto a file made read-only since is refused; a read-only file may still be deleted (the directory's permission)", async () => {
    await chown(workspace, USER, USER);
    await userFile("later.txt", "one\n", 0o644);
    await userFile("gone.txt", "one\n", 0o444);
    const [, edited, , undone, , restored, , removed] = await callsAsUser([
      ["read", { path: "later.txt" }],
      ["edit", { path: "later.txt", old_text: "one", new_text: "two" }],
      ["$chmod", { path: "later.txt", mode: 0o444 }],
      ["undo", {}],
      // The positive control: writable again, the same undo is made.
      ["$chmod", { path: "later.txt", mode: 0o644 }],
      ["undo", {}],
      ["read", { path: "gone.txt" }],
      ["apply_patch", { patch: patchOf("*** Delete File: gone.txt") }],
    ]);
    expect(edited?.ok).toBe(true);
    expect(undone?.ok).toBe(false);
    if (undone?.ok === false) expect(undone.error.code).toBe("permission_denied");
    expect(restored?.ok).toBe(true);
    expect(await text("later.txt")).toBe("one\n");
    expect(removed?.ok).toBe(true);
    expect(await readdir(workspace)).not.toContain("gone.txt");
  });
});

describe.skipIf(!isRoot)("the check is the kernel's, for the effective user, on the entry the directory handle holds", () => {
  it("a process whose real user is root but effective user is not may not replace root's 0644 file; its own file changes", async () => {
    // access(2), used before, asked as the real user (root): the file was replaced.
    await chown(workspace, USER, USER);
    await writeFile(path.join(workspace, "roots.txt"), "one\n");
    await chmod(path.join(workspace, "roots.txt"), 0o644);
    await userFile("own.txt", "one\n", 0o644);
    const [read, edit, write, readOwn, editOwn] = await callsAsUser(
      [
        ["read", { path: "roots.txt" }],
        ["edit", { path: "roots.txt", old_text: "one", new_text: "two" }],
        ["write", { path: "roots.txt", content: "written\n" }],
        ["read", { path: "own.txt" }],
        ["edit", { path: "own.txt", old_text: "one", new_text: "two" }],
      ],
      true,
    );
    expect(read?.ok).toBe(true);
    for (const refused of [edit, write]) {
      expect(refused?.ok).toBe(false);
      if (refused?.ok === false) {
        expect(refused.error.code).toBe("permission_denied");
        expect(refused.error.message).toContain('"roots.txt" is read-only for this user (mode 0644)');
      }
    }
    expect(await text("roots.txt")).toBe("one\n");
    expect((await stat(path.join(workspace, "roots.txt"))).uid).toBe(0);
    // The positive control: the effective user's own file.
    expect(readOwn?.ok).toBe(true);
    expect(editOwn?.ok).toBe(true);
    expect(await text("own.txt")).toBe("two\n");
    expect(await leftovers()).toEqual([]);
  });
});

describe("root may write a read-only file (the kernel's answer too)", () => {
  it.skipIf(!isRoot)("edit of a 0444 file of root's changes it and keeps the mode", async () => {
    await writeFile(path.join(workspace, "locked.txt"), "one\n");
    await chmod(path.join(workspace, "locked.txt"), 0o444);
    const run = createRegistry({ tools: createFileTools({}) }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    expect((await run.call("read", { path: "locked.txt" })).ok).toBe(true);
    expect((await run.call("edit", { path: "locked.txt", old_text: "one", new_text: "two" })).ok).toBe(true);
    expect(await text("locked.txt")).toBe("two\n");
    expect((await stat(path.join(workspace, "locked.txt"))).mode & 0o777).toBe(0o444);
  });
});
