import { chmod, link, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/tools/sandbox/write-file-atomic.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

const directories = new TemporaryDirectories();
let workspace: string;
let outside: string;

beforeEach(async () => {
  workspace = await directories.make("atc-write-ws-");
  outside = await directories.make("atc-write-out-");
  await writeFile(path.join(outside, "secret.txt"), "outside secret");
});
afterAll(() => directories.cleanup());

describe("writeFileAtomic", () => {
  it("writes a new file and leaves no temporary file behind", async () => {
    const written = await writeFileAtomic(workspace, "notes.txt", "hello");
    expect(written).toBe(path.join(workspace, "notes.txt"));
    expect(await readFile(written, "utf8")).toBe("hello");
    expect(await readdir(workspace)).toEqual(["notes.txt"]);
  });

  it("keeps the mode of the file it replaces, and applies an explicit mode", async () => {
    const script = path.join(workspace, "run.sh");
    await writeFile(script, "old");
    await chmod(script, 0o751);
    await writeFileAtomic(workspace, "run.sh", new TextEncoder().encode("new"));
    expect((await stat(script)).mode & 0o7777).toBe(0o751);
    expect(await readFile(script, "utf8")).toBe("new");
    await writeFileAtomic(workspace, "run.sh", "newer", { mode: 0o600 });
    expect((await stat(script)).mode & 0o7777).toBe(0o600);
  });

  it("refuses a final symlink that leads outside and leaves its target alone", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(workspace, "link"));
    await expect(writeFileAtomic(workspace, "link", "pwned")).rejects.toMatchObject({ code: "symlink_escape" });
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("outside secret");
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it("refuses a dangling final symlink without creating its target", async () => {
    // Leading outside, it is refused like any link leading out (whether the target exists is not told).
    await symlink(path.join(outside, "new.txt"), path.join(workspace, "dangling"));
    await expect(writeFileAtomic(workspace, "dangling", "x")).rejects.toMatchObject({ code: "symlink_escape" });
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    // Leading to a missing file inside, it is refused as dangling.
    await symlink(path.join(workspace, "missing.txt"), path.join(workspace, "dangling-inside"));
    await expect(writeFileAtomic(workspace, "dangling-inside", "x")).rejects.toMatchObject({ code: "dangling_symlink_refused" });
  });

  it("writes through a symlink that stays inside to its target, keeping the link", async () => {
    await writeFile(path.join(workspace, "real.txt"), "before");
    await symlink("real.txt", path.join(workspace, "alias.txt"));
    expect(await writeFileAtomic(workspace, "alias.txt", "after")).toBe(path.join(workspace, "real.txt"));
    expect(await readFile(path.join(workspace, "real.txt"), "utf8")).toBe("after");
    expect((await lstat(path.join(workspace, "alias.txt"))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(workspace, "alias.txt"))).toBe("real.txt");
  });

  it("refuses to replace a hard-linked file", async () => {
    await link(path.join(outside, "secret.txt"), path.join(workspace, "hard.txt"));
    await expect(writeFileAtomic(workspace, "hard.txt", "x")).rejects.toMatchObject({ code: "hard_link_refused" });
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("outside secret");
  });

  it("refuses paths outside the workspace", async () => {
    await expect(writeFileAtomic(workspace, path.join(outside, "secret.txt"), "x")).rejects.toMatchObject({
      code: "path_outside_workspace",
    });
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("outside secret");
  });

  it("removes the temporary file when the write fails", async () => {
    await mkdir(path.join(workspace, "sub"));
    const notData = Symbol("not data") as unknown as string;
    await expect(writeFileAtomic(workspace, "sub/file.txt", notData)).rejects.toThrow();
    expect(await readdir(path.join(workspace, "sub"))).toEqual([]);
  });

  it("fails when the parent directory is missing, creating nothing", async () => {
    await expect(writeFileAtomic(workspace, "missing/file.txt", "x")).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readdir(workspace)).toEqual([]);
  });
});
