import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nonPublicAddressReason } from "../../src/tools/sandbox/address-policy.js";
import { findTrustedExecutable } from "../../src/tools/sandbox/trusted-executable.js";

let directory: string | undefined;
afterEach(async () => {
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

async function executable(parent: string, name: string): Promise<string> {
  await mkdir(parent, { recursive: true });
  const file = path.join(parent, name);
  await writeFile(file, "#!/bin/sh\n");
  await chmod(file, 0o755);
  return file;
}

describe("findTrustedExecutable", () => {
  it("finds a system binary by an absolute, root-owned path", () => {
    const found = findTrustedExecutable("sh", { searchPath: "/usr/bin:/bin" });
    expect(found).toMatchObject({ ok: true });
    expect(found.ok && path.isAbsolute(found.path)).toBe(true);
  });

  it("skips relative entries, writable directories and the workspace, and says why", async () => {
    directory = await realpath(await mkdtemp(path.join(tmpdir(), "atc-trusted-")));
    const writable = path.join(directory, "writable");
    await executable(writable, "sh");
    await chmod(writable, 0o777);
    const workspace = path.join(directory, "ws");
    await executable(path.join(workspace, "bin"), "sh");
    const found = findTrustedExecutable("sh", {
      searchPath: ["./bin", writable, path.join(workspace, "bin"), "/usr/bin", "/bin"].join(path.delimiter),
      untrustedRoots: [workspace],
      owners: [0, process.getuid?.() ?? 0],
    });
    expect(found.ok && found.path.startsWith(directory)).toBe(false);
    const missing = findTrustedExecutable("atc-no-such-program", {
      searchPath: ["./bin", writable].join(path.delimiter),
    });
    expect(missing.ok).toBe(false);
    expect(missing.ok ? "" : missing.reason).toContain("relative PATH entry");
  });

  it("refuses a workspace candidate even where ownership and modes look safe (root-owned, 0755, no writable parent)", async () => {
    // Not under /tmp (world-writable, which hid the workspace check): a directory below the user's home.
    const home = homedir();
    directory = await realpath(await mkdtemp(path.join(home, ".atc-trusted-")));
    await chmod(directory, 0o755);
    const workspace = path.join(directory, "ws");
    await executable(path.join(workspace, "node_modules", ".bin"), "atc-planted-tool");
    await chmod(workspace, 0o755);
    const owners = [0, process.getuid?.() ?? 0];
    const searchPath = path.join(workspace, "node_modules", ".bin");
    // Control: without the workspace named untrusted, the planted program is trusted.
    expect(findTrustedExecutable("atc-planted-tool", { searchPath, owners })).toMatchObject({ ok: true });
    const found = findTrustedExecutable("atc-planted-tool", { searchPath, owners, untrustedRoots: [workspace] });
    expect(found.ok).toBe(false);
    expect(found.ok ? "" : found.reason).toContain("inside the workspace");
    // A workspace named through a symlink is the same workspace.
    await symlink(workspace, path.join(directory, "ws-link"));
    const viaLink = findTrustedExecutable("atc-planted-tool", {
      searchPath,
      owners,
      untrustedRoots: [path.join(directory, "ws-link")],
    });
    expect(viaLink.ok).toBe(false);
  });

  it("refuses an absolute path through a symlinked directory someone else could change", async () => {
    directory = await realpath(await mkdtemp(path.join(tmpdir(), "atc-trusted-")));
    const real = path.join(directory, "real");
    await executable(real, "tool");
    await chmod(directory, 0o777);
    await symlink(real, path.join(directory, "link"));
    // The test's own files count as safely owned, so that as non-root (files owned by the test's
    // user) the refusal is for the writable directory, not for the owner.
    const owners = [0, process.getuid?.() ?? 0];
    const found = findTrustedExecutable(path.join(directory, "link", "tool"), { owners });
    expect(found.ok).toBe(false);
    expect(found.ok ? "" : found.reason).toContain("writable by group or others");
  });
});

describe("nonPublicAddressReason", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",
    "169.254.169.254",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:8.8.8.8",
    "64:ff9b::7f00:1",
    "fc00::1",
    "fd12::1",
    "fe80::1",
    "fe80::1%eth0",
    "[::1]",
  ])("refuses %s", (address) => {
    expect(nonPublicAddressReason(address)).toBeTypeOf("string");
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "2001:4860:4860::8888"])("allows %s", (address) => {
    expect(nonPublicAddressReason(address)).toBeUndefined();
  });
});
