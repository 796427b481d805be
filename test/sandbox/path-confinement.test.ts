import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { link, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertPlainFile } from "../../src/tools/sandbox/file-kind.js";
import { openConfined, resolveInWorkspace } from "../../src/tools/sandbox/path-confinement.js";
import { SandboxViolationError } from "../../src/tools/sandbox/sandbox-violation-error.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

const directories = new TemporaryDirectories();
let workspace: string;
let outside: string;

beforeAll(async () => {
  workspace = await directories.make("atc-ws-");
  outside = await directories.make("atc-outside-");
  await mkdir(path.join(workspace, "src"));
  await writeFile(path.join(workspace, "src", "a.txt"), "inside a");
  await writeFile(path.join(outside, "secret.txt"), "outside secret");
  await mkdir(path.join(outside, "dir"));
  await symlink(outside, path.join(workspace, "out-dir"));
  await symlink(path.join(outside, "secret.txt"), path.join(workspace, "out-file"));
  await symlink(path.join(workspace, "src", "a.txt"), path.join(workspace, "in-link"));
  await symlink(path.join(outside, "created-by-write.txt"), path.join(workspace, "dangling-out"));
  await symlink(path.join(outside, "missing-dir"), path.join(workspace, "dangling-dir"));
  await symlink(path.join(workspace, "src", "missing.txt"), path.join(workspace, "dangling-in"));
  await symlink("src/missing-dir", path.join(workspace, "dangling-in-dir"));
});
afterAll(() => directories.cleanup());

async function violation(promise: Promise<unknown>): Promise<SandboxViolationError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SandboxViolationError);
  return error as SandboxViolationError;
}

describe("resolveInWorkspace", () => {
  it("resolves relative and absolute paths inside the workspace", async () => {
    expect(await resolveInWorkspace(workspace, "src/a.txt", "read")).toBe(path.join(workspace, "src", "a.txt"));
    expect(await resolveInWorkspace(workspace, path.join(workspace, "src/new.txt"), "write")).toBe(
      path.join(workspace, "src", "new.txt"),
    );
    expect(await resolveInWorkspace(workspace, "..hidden/x", "write")).toBe(path.join(workspace, "..hidden", "x"));
    expect(await resolveInWorkspace(workspace, ".", "read")).toBe(workspace);
  });

  it("follows a symlink that stays inside to its real path", async () => {
    expect(await resolveInWorkspace(workspace, "in-link", "read")).toBe(path.join(workspace, "src", "a.txt"));
  });

  it("works when the workspace itself is named through a symlink", async () => {
    const alias = path.join(outside, "alias-of-workspace");
    await symlink(workspace, alias);
    expect(await resolveInWorkspace(alias, "src/a.txt", "read")).toBe(path.join(workspace, "src", "a.txt"));
    expect(await resolveInWorkspace(alias, path.join(alias, "src/a.txt"), "read")).toBe(path.join(workspace, "src", "a.txt"));
  });

  it.each([
    ["../escape.txt", "read"],
    ["/etc/passwd", "read"],
    ["src/../../x", "write"],
  ] as const)("refuses %s outside the workspace", async (requested, intent) => {
    const error = await violation(resolveInWorkspace(workspace, requested, intent));
    expect(error.code).toBe("path_outside_workspace");
    expect(error.message).toContain(requested);
    expect(error.message).toContain("outside the workspace");
    expect(error.hint).toContain(workspace);
  });

  it.each([
    ["out-file", "read"],
    ["out-dir/secret.txt", "read"],
    ["out-dir/new.txt", "write"],
    ["out-dir/dir/deeper/new.txt", "write"],
  ] as const)("refuses %s, which a symlink leads outside", async (requested, intent) => {
    const error = await violation(resolveInWorkspace(workspace, requested, intent));
    expect(error.code).toBe("symlink_escape");
    expect(error.message).toContain(`"${requested}"`);
    expect(error.data.resolvedPath).toMatch(new RegExp(`^${outside}`));
  });

  it("refuses a write through a dangling final symlink, and through a dangling directory link", async () => {
    // Leading outside: refused like a link to an existing outside file (nothing outside is looked at).
    const final = await violation(resolveInWorkspace(workspace, "dangling-out", "write"));
    expect(final.code).toBe("symlink_escape");
    expect(final.message).toContain("dangling-out");
    const intermediate = await violation(resolveInWorkspace(workspace, "dangling-dir/file.txt", "write"));
    expect(intermediate.code).toBe("symlink_escape");
    await expect(stat(path.join(outside, "created-by-write.txt"))).rejects.toThrow(/ENOENT/);
    // Leading to something missing inside: refused as dangling.
    const inside = await violation(resolveInWorkspace(workspace, "dangling-in", "write"));
    expect(inside.code).toBe("dangling_symlink_refused");
    const insideDirectory = await violation(resolveInWorkspace(workspace, "dangling-in-dir/file.txt", "write"));
    expect(insideDirectory.code).toBe("dangling_symlink_refused");
    await expect(stat(path.join(workspace, "src", "missing.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("follows chains of links inside, relative and absolute, and stops a loop", async () => {
    await symlink("in-link", path.join(workspace, "chain-1"));
    await symlink(path.join(workspace, "chain-1"), path.join(workspace, "chain-2"));
    expect(await resolveInWorkspace(workspace, "chain-2", "read")).toBe(path.join(workspace, "src", "a.txt"));
    await symlink("src/../out-dir", path.join(workspace, "chain-out"));
    expect((await violation(resolveInWorkspace(workspace, "chain-out/secret.txt", "read"))).code).toBe("symlink_escape");
    await symlink("loop-b", path.join(workspace, "loop-a"));
    await symlink("loop-a", path.join(workspace, "loop-b"));
    expect((await violation(resolveInWorkspace(workspace, "loop-a", "read"))).code).toBe("symlink_escape");
  });

  it("refuses paths with NUL bytes or empty paths", async () => {
    expect((await violation(resolveInWorkspace(workspace, "a\0b", "read"))).code).toBe("invalid_path");
    expect((await violation(resolveInWorkspace(workspace, "", "read"))).code).toBe("invalid_path");
  });

  it("throws a configuration error for a workspace that does not exist", async () => {
    await expect(resolveInWorkspace(path.join(outside, "nope"), "a", "read")).rejects.toMatchObject({
      code: "invalid_workspace",
    });
    await expect(resolveInWorkspace("relative/ws", "a", "read")).rejects.toMatchObject({ code: "invalid_workspace" });
  });
});

describe("openConfined", () => {
  it("reads a file inside the workspace", async () => {
    const handle = await openConfined(workspace, "src/a.txt");
    try {
      expect(await handle.readFile("utf8")).toBe("inside a");
    } finally {
      await handle.close();
    }
  });

  it("creates and truncates files inside with write flags", async () => {
    const created = await openConfined(workspace, "src/new.txt", "w");
    await created.writeFile("first version");
    await created.close();
    const truncated = await openConfined(workspace, "src/new.txt", "w");
    await truncated.writeFile("v2");
    await truncated.close();
    expect(await readFile(path.join(workspace, "src", "new.txt"), "utf8")).toBe("v2");
  });

  it("refuses a hard link for reads, and never truncates the linked file", async () => {
    const target = path.join(outside, "hard-target.txt");
    await writeFile(target, "outside through a hard link");
    await link(target, path.join(workspace, "hard.txt"));
    const read = await violation(openConfined(workspace, "hard.txt", "r"));
    expect(read.code).toBe("hard_link_refused");
    expect(read.message).toContain("2 hard links");
    expect((await violation(openConfined(workspace, "hard.txt", "w"))).code).toBe("hard_link_refused");
    expect(await readFile(target, "utf8")).toBe("outside through a hard link");
  });

  it("refuses symlinks out of the workspace, also for writes", async () => {
    expect((await violation(openConfined(workspace, "out-file", "r"))).code).toBe("symlink_escape");
    expect((await violation(openConfined(workspace, "out-dir/secret.txt", "w"))).code).toBe("symlink_escape");
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("outside secret");
  });

  it("refuses a FIFO without blocking", async () => {
    const fifo = path.join(workspace, "pipe");
    const made = spawnSync("mkfifo", [fifo]);
    expect(made.status).toBe(0);
    const error = await violation(openConfined(workspace, "pipe", "r"));
    expect(error.code).toBe("special_file_refused");
    expect(error.message).toContain("FIFO");
    expect((await violation(openConfined(workspace, "pipe", "r+"))).code).toBe("special_file_refused");
  });

  it("refuses a unix socket file", async () => {
    const socketPath = path.join(workspace, "sock");
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const error = await violation(openConfined(workspace, "sock", "r"));
      expect(error.code).toBe("special_file_refused");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses directories", async () => {
    expect((await violation(openConfined(workspace, "src", "r"))).code).toBe("not_a_regular_file");
  });

  it("classifies devices as special files", () => {
    expect(() => assertPlainFile(statSync("/dev/null"), "/dev/null")).toThrowError(
      expect.objectContaining({ code: "special_file_refused", message: expect.stringContaining("character device") }),
    );
  });
});
