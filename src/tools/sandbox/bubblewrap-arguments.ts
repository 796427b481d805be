import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import { type GitProtection, gitProtection } from "./git-protection.js";
import { readOnlyEntryLinks } from "./read-only-entry-links.js";
import { isInsideDirectory } from "./workspace-root.js";

/** The file descriptor that carries the seccomp program into bwrap. */
export const SECCOMP_FD = 3;

/** The file descriptor that carries the command's environment into bwrap (`--args`). */
export const ENVIRONMENT_FD = 4;

/**
 * The command's environment as bwrap options, NUL-separated for `bwrap --args` on
 * {@link ENVIRONMENT_FD}: `--clearenv`, then `--setenv NAME VALUE` for each variable. bwrap and
 * the launcher before it are host processes, outside every namespace: were the command's
 * environment theirs, a dynamic-loader variable in it (`LD_LIBRARY_PATH` naming a workspace
 * directory, `LD_PRELOAD`, `GCONV_PATH`, `LOCPATH`, ...) would load code the sandboxed command
 * wrote into them, on the host. They run with {@link LAUNCHER_ENVIRONMENT}; bwrap sets this one
 * for the command alone, after it entered the sandbox. Read from a pipe, not the command line,
 * which any host user can read in `ps`.
 */
export function environmentArguments(environment: Readonly<Record<string, string>>): Uint8Array {
  const args = ["--clearenv"];
  for (const [name, value] of Object.entries(environment)) args.push("--setenv", name, value);
  return new TextEncoder().encode(args.map((arg) => `${arg}\0`).join(""));
}

/** The exact environment of the host processes that start the sandbox (the launcher shell and bwrap). */
export const LAUNCHER_ENVIRONMENT: Readonly<Record<string, string>> = Object.freeze({
  PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
});

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

/**
 * The user and group a sandboxed command runs as inside its user namespace (`nobody`/`nogroup`),
 * so that it is not root there even when the host runs as root.
 */
export const SANDBOX_UID = 65534;

/**
 * Mounts the sandbox's `/proc/sys` read-only (placed right after `--proc /proc`). The sandbox
 * user is the host user outside its namespace, uid 0 on a root host, and the kernel lets uid 0
 * write most kernel settings with no capability (`kernel.core_pattern`, which names a program the
 * kernel runs as root on the next crash; `kernel.modprobe`; `vm.*`; the host's hostname under
 * `local`). bwrap covers `/proc/sysrq-trigger`, `/proc/irq` and `/proc/bus` itself, but skips
 * `/proc/sys` because its directory is never writable. The source is the host's `/proc/sys`:
 * its settings are the same global ones, and per-namespace ones (`net.*`, `kernel.hostname`) are
 * looked up in the namespaces of the process reading them. A host without `/proc/sys` makes
 * bwrap fail to start rather than run with the settings writable.
 *
 * `/proc/fs` (driver and file-system files that uid 0 may write) is made read-only where the
 * host has it, as container runtimes do; the rest of what they hide is in {@link PROC_MASKS}.
 */
export const READ_ONLY_PROC_ENTRIES: readonly string[] = Object.freeze([
  "--ro-bind",
  "/proc/sys",
  "/proc/sys",
  "--ro-bind-try",
  "/proc/fs",
  "/proc/fs",
]);

/**
 * The `/proc` entries runc and Docker mask by default (their `maskedPaths`), hidden in the
 * sandbox's own `/proc` the same way. Files show `/dev/null` (empty to read): `/proc/keys` lists
 * the descriptions of the host's kernel keys the host uid may view (a sandbox on a root host sees
 * root's keyrings), `/proc/timer_list`, `/proc/sched_debug`, `/proc/slabinfo`,
 * `/proc/latency_stats` and `/proc/timer_stats` show host processes' names, pids and kernel
 * addresses and allocation counts, and `/proc/kcore` is the kernel's memory. Directories become
 * an empty read-only tmpfs: `/proc/acpi` and `/proc/scsi` hold driver files uid 0 may write
 * (`/proc/scsi/scsi` adds and removes disks), `/proc/asound` the host's sound devices.
 */
export const PROC_MASKS: Readonly<{ files: readonly string[]; directories: readonly string[] }> = Object.freeze({
  files: Object.freeze([
    "/proc/keys",
    "/proc/kcore",
    "/proc/timer_list",
    "/proc/sched_debug",
    "/proc/latency_stats",
    "/proc/timer_stats",
    "/proc/slabinfo",
  ]),
  directories: Object.freeze(["/proc/acpi", "/proc/scsi", "/proc/asound"]),
});

/**
 * bwrap arguments that mask the {@link PROC_MASKS} entries the host's `/proc` has (the sandbox's
 * `/proc` is the same kernel's; bwrap cannot create a missing entry in `/proc` to mount over,
 * so absent ones are left out rather than failing the start).
 *
 * Files get `--dev-bind /dev/null`: a `--ro-bind` mount is `nodev`, on which opening `/dev/null`
 * is refused, so the entry would not read as empty. The bound node is the same `/dev/null` the
 * sandbox already has writable in its `/dev`, so the writable bind gives nothing more.
 *
 * Looked up once per process: which entries a kernel has does not change while it runs.
 */
export function procMaskArguments(masks: typeof PROC_MASKS = PROC_MASKS): string[] {
  if (masks === PROC_MASKS && cachedProcMasks !== undefined) return [...cachedProcMasks];
  const args: string[] = [];
  for (const file of masks.files)
    if (lstatSync(file, { throwIfNoEntry: false })?.isFile()) args.push("--dev-bind", "/dev/null", file);
  for (const directory of masks.directories)
    if (lstatSync(directory, { throwIfNoEntry: false })?.isDirectory())
      args.push("--tmpfs", directory, "--remount-ro", directory);
  if (masks === PROC_MASKS) cachedProcMasks = args;
  return [...args];
}
let cachedProcMasks: readonly string[] | undefined;

/** The sandbox's own `/proc`, with {@link READ_ONLY_PROC_ENTRIES} and the {@link procMaskArguments} over it. */
function procArguments(): string[] {
  return ["--proc", "/proc", ...READ_ONLY_PROC_ENTRIES, ...procMaskArguments()];
}

/** Arguments that set the sandbox's uid and gid. */
export const UNPRIVILEGED_IDENTITY: readonly string[] = Object.freeze([
  "--uid",
  String(SANDBOX_UID),
  "--gid",
  String(SANDBOX_UID),
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
 * bwrap arguments that keep a workspace's git state read-only (see {@link gitProtection}).
 * @throws SandboxUnavailableError when a protected entry is a symbolic link.
 */
export function gitProtectionArguments(workspace: string): string[] {
  return gitProtection(workspace).args;
}

/** What a workspace-scope bwrap command line is made of. */
export interface WorkspaceLayout {
  /** The workspace's real path, bound read-write at the same path. */
  readonly workspace: string;
  /** System directories, from {@link systemMounts}. */
  readonly system: readonly SystemMount[];
  /** More host paths to bind read-only (for example a Node install outside `/usr`). */
  readonly readOnlyPaths: readonly string[];
  /** System files and directories hidden from the sandbox, from {@link unreadableSystemEntries}. */
  readonly masked?: readonly MaskedEntry[];
  /** The git protection computed at spawn; computed here when omitted. */
  readonly git?: GitProtection;
}

/** A system path the sandbox must not read, and what it is. */
export interface MaskedEntry {
  readonly path: string;
  readonly kind: "file" | "directory";
}

/**
 * Entries under `roots` that other users may not read (`/etc/shadow`, `/etc/gshadow`,
 * `/etc/ssl/private`, …). Inside the user namespace the kernel still checks permissions against
 * the host uid, so when the host runs as root, root-owned `0600` files would be readable through
 * the owner bits; these are hidden (an empty file or directory is mounted over them) so a
 * sandboxed command sees only what any unprivileged user could read.
 */
export function unreadableSystemEntries(roots: readonly string[] = ["/etc"]): MaskedEntry[] {
  const masked: MaskedEntry[] = [];
  const visit = (directory: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      return;
    }
    for (const name of names) {
      const entry = path.join(directory, name);
      const stats = lstatSync(entry, { throwIfNoEntry: false });
      if (stats === undefined || stats.isSymbolicLink()) continue;
      const readable = (stats.mode & 0o004) !== 0;
      if (stats.isDirectory()) {
        if (!readable || (stats.mode & 0o001) === 0) masked.push({ path: entry, kind: "directory" });
        else if (depth < 8) visit(entry, depth + 1);
      } else if (stats.isFile() && !readable) masked.push({ path: entry, kind: "file" });
    }
  };
  for (const root of roots) visit(root, 0);
  return masked;
}

/**
 * `readOnlyPaths` split into those at or below the workspace and the others. The ones inside are
 * read-only for the command although the workspace is writable: they are bound on top of it (and
 * of the git protection), and the check of the sandbox's mount table requires each to be the
 * topmost mount at its path, read-only.
 */
export function readOnlyPathsByPlace(workspace: string, readOnlyPaths: readonly string[]): [string[], string[]] {
  const inside: string[] = [];
  const outside: string[] = [];
  for (const extra of readOnlyPaths) (isInsideDirectory(workspace, extra) ? inside : outside).push(extra);
  return [inside, outside];
}

/**
 * The directories between the workspace and each of `inside` (the `readOnlyPaths` at or below
 * it), which are bound onto themselves (read-write, as they are) to pin them: a mount point cannot
 * be renamed or removed (`EBUSY`). Unpinned, a command renamed a nested entry's parent
 * (`mv third moved`, the read-only mount moving with it) and made `third/vendor` again: the next
 * command's read-only bind covered the new empty directory and `moved/vendor`, the host's
 * read-only files, was writable. Parents before children, each once.
 */
export function readOnlyPathPins(workspace: string, inside: readonly string[]): string[] {
  const pins = new Set<string>();
  for (const entry of inside) {
    const steps = path.relative(workspace, entry).split(path.sep).slice(0, -1);
    let directory = workspace;
    for (const step of steps) {
      if (step === "") continue;
      directory = path.join(directory, step);
      pins.add(directory);
    }
  }
  return [...pins].sort((a, b) => a.split(path.sep).length - b.split(path.sep).length);
}

/**
 * The bwrap options of scope `"workspace"`: every namespace unshared (network included), no
 * capabilities, no nested user namespaces, system directories and `/proc/sys` read-only, the
 * {@link PROC_MASKS} hidden, private
 * tmpfs for `/tmp`, `/root`, `/home` and `/run`, and only the workspace writable.
 */
export function workspaceScopeArguments(layout: WorkspaceLayout): string[] {
  const args = [
    "--unshare-all",
    "--unshare-user",
    ...UNPRIVILEGED_IDENTITY,
    "--disable-userns",
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
  ];
  for (const mount of layout.system) {
    if (mount.kind === "bind") args.push("--ro-bind", mount.path, mount.path);
    else args.push("--symlink", mount.target, mount.path);
  }
  for (const entry of layout.masked ?? []) {
    if (entry.kind === "file") args.push("--ro-bind", "/dev/null", entry.path);
    else args.push("--tmpfs", entry.path, "--remount-ro", entry.path);
  }
  args.push(...procArguments(), "--dev", "/dev");
  for (const directory of PRIVATE_DIRECTORIES) args.push("--tmpfs", directory);
  const [inside, outside] = readOnlyPathsByPlace(layout.workspace, layout.readOnlyPaths);
  for (const extra of outside) args.push("--ro-bind", extra, extra);
  args.push("--bind", layout.workspace, layout.workspace);
  // Before the git protection: a pin bound after it would cover the protection of a `.git` below it.
  for (const pin of readOnlyPathPins(layout.workspace, inside)) args.push("--bind", pin, pin);
  const git = layout.git ?? gitProtection(layout.workspace);
  args.push(...git.args);
  // An entry's file is written through another name in the workspace (a hard link made before the
  // entry was protected) unless that name is read-only too.
  for (const name of readOnlyEntryLinks(inside, git.linkedFiles)) args.push("--ro-bind", name, name);
  // Last, so nothing bound later (the workspace, the git protection's read-write git directories)
  // covers them: bound before the workspace, as they were, they were hidden under its writable bind.
  for (const extra of inside) args.push("--ro-bind", extra, extra);
  return args;
}

/**
 * The bwrap options of scope `"local"`: the host file system as it is, but no network (its own
 * empty network namespace), no capabilities, no nested user namespaces, an unprivileged uid, and
 * `/sys` and `/proc/sys` read-only (a writable cgroup file system would let a command freeze or
 * throttle host processes through `cgroup.freeze`; see {@link READ_ONLY_PROC_ENTRIES}), and the
 * {@link PROC_MASKS} hidden.
 */
export function localScopeArguments(): string[] {
  return [
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-user",
    ...UNPRIVILEGED_IDENTITY,
    "--disable-userns",
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--bind",
    "/",
    "/",
    "--ro-bind",
    "/sys",
    "/sys",
    "--dev",
    "/dev",
    ...procArguments(),
  ];
}

/**
 * The shell program that runs first in the sandbox and execs the command only once the sandbox's
 * pid 1 (bwrap's init, which the command may trace) is under the seccomp filter. bwrap forks its
 * init, then the init installs the filter while the child installs its own and execs the command
 * at once: on a busy host the command ran with an unfiltered pid 1 (`Seccomp: 0` in
 * `/proc/1/status`, seen at load ~10), where tracing it would make calls outside the filter. Shell
 * builtins only, bounded: fast reads, then `sleep 0.01` rounds up to about 5 s, after which the
 * command is not run (exit 125 and a message): a bwrap whose init never takes the filter (before
 * 0.5) fails closed. The `exec` is outside the loop that reads the status, so the command gets
 * the standard input it was given, not the status file, and no descriptor of the script.
 */
export const FILTERED_INIT_WAIT =
  "n=0; while :; do f=0; while IFS= read -r l; do case $l in Seccomp:*2) f=1;; esac; done < /proc/1/status; " +
  '[ "$f" = 1 ] && break; n=$((n+1)); ' +
  "if [ $n -gt 600 ]; then echo 'agent-tool-catalog: the sandbox init is not under the seccomp filter; the command was not run' >&2; exit 125; fi; " +
  'if [ $n -gt 100 ]; then sleep 0.01; fi; done; exec "$@"';

/**
 * The tail every bwrap command line ends with: working directory, seccomp fd, `--`, then the
 * command, run through {@link FILTERED_INIT_WAIT} by `/bin/sh` (its `exec` keeps the command's pid,
 * arguments and environment).
 */
export function commandArguments(cwd: string, command: string, args: readonly string[]): string[] {
  return ["--chdir", cwd, "--seccomp", String(SECCOMP_FD), "--", "/bin/sh", "-c", FILTERED_INIT_WAIT, "sh", command, ...args];
}
