import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  commandArguments,
  FILTERED_INIT_WAIT,
  gitProtectionArguments,
  localScopeArguments,
  PROC_MASKS,
  procMaskArguments,
  readOnlyPathPins,
  systemMounts,
  workspaceScopeArguments,
} from "./bubblewrap-arguments.js";
import { gitProtection } from "./git-protection.js";

let directory: string | undefined;
afterEach(async () => {
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});
async function temporary(): Promise<string> {
  directory = await realpath(await mkdtemp(path.join(os.tmpdir(), "atc-bwrap-args-")));
  return directory;
}

/** The values that follow each occurrence of `option`. */
function valuesOf(args: readonly string[], option: string, count = 1): string[][] {
  const found: string[][] = [];
  args.forEach((arg, index) => {
    if (arg === option) found.push(args.slice(index + 1, index + 1 + count));
  });
  return found;
}

describe("bubblewrap arguments", () => {
  it("recreates merged-/usr symlinks and binds real directories, skipping missing ones", async () => {
    const root = await temporary();
    await mkdir(path.join(root, "usr"));
    await symlink("usr/bin", path.join(root, "bin"));
    const mounts = systemMounts([path.join(root, "usr"), path.join(root, "bin"), path.join(root, "missing")]);
    expect(mounts).toEqual([
      { kind: "bind", path: path.join(root, "usr") },
      { kind: "symlink", path: path.join(root, "bin"), target: "usr/bin" },
    ]);
  });

  it("workspace scope: unshares everything, hides the host, and binds only the workspace writable", async () => {
    const workspace = await temporary();
    const args = workspaceScopeArguments({
      workspace,
      system: [
        { kind: "bind", path: "/usr" },
        { kind: "symlink", path: "/bin", target: "usr/bin" },
      ],
      readOnlyPaths: ["/opt/node"],
    });
    for (const flag of ["--unshare-all", "--new-session", "--die-with-parent", "--disable-userns"]) expect(args).toContain(flag);
    expect(valuesOf(args, "--cap-drop")).toEqual([["ALL"]]);
    expect(valuesOf(args, "--ro-bind", 2)).toEqual([
      ["/usr", "/usr"],
      ["/proc/sys", "/proc/sys"],
      ["/opt/node", "/opt/node"],
    ]);
    // Kernel settings read-only, mounted over the sandbox's own /proc (so after it).
    expect(args.indexOf("/proc/sys")).toBeGreaterThan(args.indexOf("--proc"));
    expect(valuesOf(args, "--ro-bind-try", 2)).toEqual([["/proc/fs", "/proc/fs"]]);
    // The host's masked /proc entries, over the sandbox's /proc (so after it).
    const masks = procMaskArguments();
    expect(masks).toContain("/proc/keys");
    const at = args.indexOf(masks[0] as string);
    expect(args.slice(at, at + masks.length)).toEqual(masks);
    expect(at).toBeGreaterThan(args.indexOf("--proc"));
    expect(valuesOf(args, "--symlink", 2)).toEqual([["usr/bin", "/bin"]]);
    expect(
      valuesOf(args, "--tmpfs")
        .flat()
        .filter((directory) => !directory.startsWith("/proc/")),
    ).toEqual(["/tmp", "/root", "/home", "/run"]);
    expect(valuesOf(args, "--bind", 2)).toEqual([[workspace, workspace]]);
    expect(args.indexOf("--bind")).toBeGreaterThan(args.lastIndexOf("--tmpfs"));
    expect(args).not.toContain("--share-net");
  });

  it("protects .git: bound onto itself, hooks, info, objects/info and control files read-only", async () => {
    const workspace = await temporary();
    const git = path.join(workspace, ".git");
    await mkdir(path.join(git, "hooks"), { recursive: true });
    await mkdir(path.join(git, "info"), { recursive: true });
    await mkdir(path.join(git, "objects", "info"), { recursive: true });
    await writeFile(path.join(git, "config"), "");
    await writeFile(path.join(git, "commondir"), ".\n");
    const protection = gitProtection(workspace);
    expect(protection.args).toEqual([
      "--bind",
      git,
      git,
      ...["hooks", "info", path.join("objects", "info"), "config", "commondir"].flatMap((name) => [
        "--ro-bind",
        path.join(git, name),
        path.join(git, name),
      ]),
    ]);
    expect(protection.absentControlFiles).toEqual([path.join(git, "config.worktree"), path.join(git, "gitdir")]);
    // No operation was interrupted: sequencer state the command leaves is moved aside after it.
    expect(protection.absentSequencerState).toEqual([
      path.join(git, "rebase-merge"),
      path.join(git, "rebase-apply"),
      path.join(git, "sequencer"),
    ]);
    expect(protection.gitDirectories).toEqual([git]);
  });

  it("protects nested repositories, submodule and worktree git directories", async () => {
    const workspace = await temporary();
    await mkdir(path.join(workspace, ".git", "modules", "lib", "hooks"), { recursive: true });
    await writeFile(path.join(workspace, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n");
    await writeFile(path.join(workspace, ".git", "modules", "lib", "config"), "");
    await mkdir(path.join(workspace, "vendor", "other", ".git", "hooks"), { recursive: true });
    await writeFile(path.join(workspace, "vendor", "other", ".git", "config"), "");
    const args = gitProtection(workspace).args;
    const readOnly = valuesOf(args, "--ro-bind", 2).map(([from]) => from);
    expect(readOnly).toContain(path.join(workspace, ".git", "modules", "lib", "config"));
    expect(readOnly).toContain(path.join(workspace, ".git", "modules", "lib", "hooks"));
    expect(readOnly).toContain(path.join(workspace, "vendor", "other", ".git", "config"));
    expect(readOnly).toContain(path.join(workspace, "vendor", "other", ".git", "hooks"));
  });

  it("makes a missing hooks directory a read-only tmpfs, and pins a .git file", async () => {
    const workspace = await temporary();
    await mkdir(path.join(workspace, ".git"));
    const hooks = path.join(workspace, ".git", "hooks");
    expect(gitProtectionArguments(workspace)).toContain("--remount-ro");
    expect(valuesOf(gitProtectionArguments(workspace), "--tmpfs")).toContainEqual([hooks]);
    await rm(path.join(workspace, ".git"), { recursive: true });
    await writeFile(path.join(workspace, ".git"), "gitdir: ../elsewhere\n");
    expect(gitProtectionArguments(workspace)).toEqual(["--ro-bind", path.join(workspace, ".git"), path.join(workspace, ".git")]);
    await rm(path.join(workspace, ".git"));
    expect(gitProtectionArguments(workspace)).toEqual([]);
  });

  it("refuses a symlinked .git/hooks", async () => {
    const workspace = await temporary();
    await mkdir(path.join(workspace, ".git"));
    await mkdir(path.join(workspace, "my-hooks"));
    await symlink("../my-hooks", path.join(workspace, ".git", "hooks"));
    expect(() => gitProtectionArguments(workspace)).toThrowError(expect.objectContaining({ code: "sandbox_unavailable" }));
  });

  it("local scope: the host file system, but its own network namespace", () => {
    const args = localScopeArguments();
    expect(args).toContain("--unshare-net");
    expect(valuesOf(args, "--bind", 2)).toEqual([["/", "/"]]);
    expect(valuesOf(args, "--ro-bind", 2)).toEqual([
      ["/sys", "/sys"],
      ["/proc/sys", "/proc/sys"],
    ]);
    expect(args.indexOf("/proc/sys")).toBeGreaterThan(args.indexOf("--proc"));
    expect(args.slice(-procMaskArguments().length)).toEqual(procMaskArguments());
    expect(valuesOf(args, "--uid")).toEqual([["65534"]]);
    expect(args).not.toContain("--unshare-all");
  });

  it("masks the /proc entries the host has: files with /dev/null, directories with a read-only tmpfs", async () => {
    const root = await temporary();
    await writeFile(path.join(root, "keys"), "secret");
    await mkdir(path.join(root, "acpi"));
    const masks = {
      files: [path.join(root, "keys"), path.join(root, "absent"), path.join(root, "acpi")],
      directories: [path.join(root, "acpi"), path.join(root, "scsi"), path.join(root, "keys")],
    };
    expect(procMaskArguments(masks)).toEqual([
      "--dev-bind",
      "/dev/null",
      path.join(root, "keys"),
      "--tmpfs",
      path.join(root, "acpi"),
      "--remount-ro",
      path.join(root, "acpi"),
    ]);
    // The real list: what runc masks by default.
    expect(PROC_MASKS.files).toEqual(expect.arrayContaining(["/proc/keys", "/proc/kcore", "/proc/timer_list", "/proc/slabinfo"]));
  });

  it("pins each directory between the workspace and a readOnlyPaths entry inside it, parents first, once", () => {
    expect(readOnlyPathPins("/w", ["/w/a/b/vendor", "/w/a/c", "/w/top"])).toEqual(["/w/a", "/w/a/b"]);
    expect(readOnlyPathPins("/w", ["/w"])).toEqual([]);
    const args = workspaceScopeArguments({
      workspace: "/w",
      system: [],
      readOnlyPaths: ["/w/a/vendor"],
      git: gitProtection("/w"),
    });
    const workspaceBind = args.indexOf("/w", args.lastIndexOf("--bind", args.indexOf("/w")) + 1);
    const pin = args.indexOf("/w/a");
    expect(args.slice(pin - 1, pin + 2)).toEqual(["--bind", "/w/a", "/w/a"]);
    expect(pin).toBeGreaterThan(workspaceBind);
    expect(args.slice(-3)).toEqual(["--ro-bind", "/w/a/vendor", "/w/a/vendor"]);
  });

  it("puts the command after -- so it is never read as an option", () => {
    // After bwrap's `--`, and after `sh -c <script> sh`: an operand of both (the script's "$@").
    expect(commandArguments("/w", "--bind", ["/", "/"])).toEqual([
      "--chdir",
      "/w",
      "--seccomp",
      "3",
      "--",
      "/bin/sh",
      "-c",
      FILTERED_INIT_WAIT,
      "sh",
      "--bind",
      "/",
      "/",
    ]);
  });
});
