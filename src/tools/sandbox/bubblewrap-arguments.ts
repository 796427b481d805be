import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";

/** The file descriptor that carries the seccomp program into bwrap. */
export const SECCOMP_FD = 3;

/** Host directories a workspace sandbox sees read-only (those that exist). */
export const SYSTEM_DIRECTORIES: readonly string[] = Object.freeze([
  "/usr",
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib64",
  "/lib32",
  "/libx32",
]);

/** Directories that become empty, private tmpfs mounts in a workspace sandbox. */
export const PRIVATE_DIRECTORIES: readonly string[] = Object.freeze(["/tmp", "/root", "/home", "/run"]);

/** One system directory as the sandbox should see it. */
export type SystemMount =
  | { readonly kind: "bind"; readonly path: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string };

/**
 * How to mount each system directory: merged-/usr systems have `/bin -> usr/bin` etc., which are
 * recreated as the same symlinks (binding them would duplicate `/usr`); missing ones are skipped.
 */
export function systemMounts(directories: readonly string[] = SYSTEM_DIRECTORIES): SystemMount[] {
  const mounts: SystemMount[] = [];
  for (const directory of directories) {
    const stats = lstatSync(directory, { throwIfNoEntry: false });
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) mounts.push({ kind: "symlink", path: directory, target: readlinkSync(directory) });
    else if (stats.isDirectory()) mounts.push({ kind: "bind", path: directory });
  }
  return mounts;
}

/**
 * bwrap arguments that keep a workspace's git metadata read-only: `.git` is bound onto itself (a
 * mount point cannot be renamed or removed, so it cannot be swapped for a fake), `.git/hooks` and
 * `.git/config` are read-only (a missing hooks directory becomes an empty read-only tmpfs, which
 * leaves an empty `hooks` directory on the host), and a `.git` file (worktree pointer) is
 * read-only. Without them, a sandboxed command could plant a hook that host git runs later.
 *
 * Only a `.git` present when the command starts is protected.
 * @throws SandboxUnavailableError when one of them is a symlink, which a mount cannot pin.
 */
export function gitProtectionArguments(workspace: string): string[] {
  const gitPath = path.join(workspace, ".git");
  const git = lstatSync(gitPath, { throwIfNoEntry: false });
  if (git === undefined) return [];
  if (git.isSymbolicLink()) throw unprotectable(gitPath);
  if (git.isFile()) return ["--ro-bind", gitPath, gitPath];
  if (!git.isDirectory()) return [];
  const args = ["--bind", gitPath, gitPath];
  const hooksPath = path.join(gitPath, "hooks");
  const hooks = lstatSync(hooksPath, { throwIfNoEntry: false });
  if (hooks?.isSymbolicLink()) throw unprotectable(hooksPath);
  if (hooks === undefined) args.push("--tmpfs", hooksPath, "--remount-ro", hooksPath);
  else args.push("--ro-bind", hooksPath, hooksPath);
  const configPath = path.join(gitPath, "config");
  const config = lstatSync(configPath, { throwIfNoEntry: false });
  if (config?.isSymbolicLink()) throw unprotectable(configPath);
  if (config !== undefined) args.push("--ro-bind", configPath, configPath);
  return args;
}

/** What a workspace-scope bwrap command line is made of. */
export interface WorkspaceLayout {
  /** The workspace's real path, bound read-write at the same path. */
  readonly workspace: string;
  /** System directories, from {@link systemMounts}. */
  readonly system: readonly SystemMount[];
  /** More host paths to bind read-only (for example a Node install outside `/usr`). */
  readonly readOnlyPaths: readonly string[];
}

/**
 * The bwrap options of scope `"workspace"`: every namespace unshared (network included), no
 * capabilities, no nested user namespaces, system directories read-only, private tmpfs for
 * `/tmp`, `/root`, `/home` and `/run`, and only the workspace writable.
 */
export function workspaceScopeArguments(layout: WorkspaceLayout): string[] {
  const args = ["--unshare-all", "--unshare-user", "--disable-userns", "--new-session", "--die-with-parent", "--cap-drop", "ALL"];
  for (const mount of layout.system) {
    if (mount.kind === "bind") args.push("--ro-bind", mount.path, mount.path);
    else args.push("--symlink", mount.target, mount.path);
  }
  args.push("--proc", "/proc", "--dev", "/dev");
  for (const directory of PRIVATE_DIRECTORIES) args.push("--tmpfs", directory);
  for (const extra of layout.readOnlyPaths) args.push("--ro-bind", extra, extra);
  args.push("--bind", layout.workspace, layout.workspace);
  args.push(...gitProtectionArguments(layout.workspace));
  return args;
}

/**
 * The bwrap options of scope `"local"`: the host file system as it is, but no network (its own
 * empty network namespace), no capabilities and no nested user namespaces.
 */
export function localScopeArguments(): string[] {
  return [
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-user",
    "--disable-userns",
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
}

/** The tail every bwrap command line ends with: working directory, seccomp fd, `--`, command. */
export function commandArguments(cwd: string, command: string, args: readonly string[]): string[] {
  return ["--chdir", cwd, "--seccomp", String(SECCOMP_FD), "--", command, ...args];
}

function unprotectable(linkPath: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `${linkPath} is a symbolic link, so the sandbox cannot keep it read-only and a sandboxed command could ` +
      "redirect it to plant git hooks. Replace it with the directory or file it points to.",
    { data: { path: linkPath } },
  );
}
