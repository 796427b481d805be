/**
 * README: the file tools never change git state (`git_metadata_refused`), also where the name is
 * spelled so that a case-folding or normalising file system (macOS, Windows, ext4 or tmpfs with
 * `casefold`) takes it for `.git` or for a name git executes: Unicode case (the Kelvin sign is
 * `k`), code points HFS+ ignores (`.g\u200cit`), fullwidth forms, NTFS's trailing dots and short
 * name `git~1`, stream suffixes (`.git::$INDEX_ALLOCATION`). Through `write` and `apply_patch`
 * (workspace): each is refused and nothing is made.
 * Control: ordinary names with the same kinds of characters are written.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claims-git-lookalikes-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function run() {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
}

const LOOK_ALIKES = [
  ".g\u200cit/config", // HFS+ ignores the zero-width non-joiner
  "\uff0e\uff47\uff49\uff54/config", // fullwidth .git
  ".git./hooks/pre-commit", // NTFS drops the trailing dot
  "GIT~1/config", // NTFS short name
  ".git::$INDEX_ALLOCATION/config", // NTFS: the directory's own index stream is the directory
  "sub/.git/hoo\u212as/pre-commit", // the Kelvin sign folds to k
  "sub/.g\ufeffit", // a .git file (gitdir: pointer) spelled with a byte order mark
];

const ORDINARY = [
  "\uff4e\uff4f\uff54\uff45\uff53.txt", // fullwidth notes.txt
  "re\u200cadme.md",
  "caf\u00e9/config",
  "\uff0e\uff47\uff49\uff54\uff49\uff47\uff4e\uff4f\uff52\uff45", // fullwidth .gitignore
  "git~2/config",
  "notes:v2.txt", // a colon in an ordinary name
  ".gi\u0307t/config", // a combining dot: no file system folds it away
];

describe("look-alikes of .git and of git's executed names", () => {
  it("write refuses each one and makes nothing", async () => {
    const session = run();
    for (const file of LOOK_ALIKES) {
      const result = await session.call("write", { path: file, content: "[core]\n\tfsmonitor = touch planted\n" });
      expect(code(result), file).toBe("git_metadata_refused");
    }
    expect(await readdir(workspace)).toEqual([]);
  });

  it("apply_patch refuses each one and makes nothing", async () => {
    const session = run();
    for (const file of LOOK_ALIKES) {
      const patch = ["*** Begin Patch", `*** Add File: ${file}`, "+#!/bin/sh", "+touch planted", "*** End Patch"].join("\n");
      expect(code(await session.call("apply_patch", { patch })), file).toBe("git_metadata_refused");
    }
    expect(await readdir(workspace)).toEqual([]);
  });

  it("control: ordinary names with such characters are written, by write and by apply_patch", async () => {
    const session = run();
    for (const file of ORDINARY) {
      expect(code(await session.call("write", { path: file, content: "w\n" })), file).toBe("ok");
      expect(await readFile(path.join(workspace, file), "utf8")).toBe("w\n");
      const patch = ["*** Begin Patch", `*** Add File: patched/${file}`, "+p", "*** End Patch"].join("\n");
      expect(code(await session.call("apply_patch", { patch })), file).toBe("ok");
      expect(await readFile(path.join(workspace, "patched", file), "utf8")).toBe("p\n");
    }
  });
});

describe("look-alikes of HEAD in a git directory of another name (a bare repository)", () => {
  it("are refused as HEAD is; control: another name there is written", async () => {
    await mkdir(path.join(workspace, "bare.git"));
    await writeFile(path.join(workspace, "bare.git", "HEAD"), "ref: refs/heads/main\n");
    const session = run();
    for (const head of ["HEAD", "HE\u200cAD", "\uff28\uff25\uff21\uff24", "HEAD."]) {
      const result = await session.call("write", {
        path: `bare.git/${head}`,
        content: "0000000000000000000000000000000000000000\n",
      });
      expect(code(result), head).toBe("git_metadata_refused");
    }
    expect(await readdir(path.join(workspace, "bare.git"))).toEqual(["HEAD"]);
    expect(await readFile(path.join(workspace, "bare.git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    expect(code(await session.call("write", { path: "bare.git/description", content: "d\n" }))).toBe("ok");
  });
});
