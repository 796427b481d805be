import { realpathSync } from "node:fs";
import path from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import {
  commandArguments,
  ENVIRONMENT_FD,
  environmentArguments,
  LAUNCHER_ENVIRONMENT,
  localScopeArguments,
  type MaskedEntry,
  PROC_MASKS,
  procMaskArguments,
  readOnlyPathPins,
  readOnlyPathsByPlace,
  SYSTEM_DIRECTORIES,
  type SystemMount,
  systemMounts,
  unreadableSystemEntries,
  workspaceScopeArguments,
} from "./bubblewrap-arguments.js";
import { nulSeparatedArguments } from "./byte-paths.js";
import { type CgroupLayout, cgroupLayout, limitStatus } from "./cgroup-layout.js";
import { CommandCgroup } from "./command-cgroup.js";
import { type AfterCommandRepairs, type HeldControlFiles, holdControlFileDirectories } from "./control-file-removal.js";
import { isDescriptorExhaustion } from "./descriptor-exhaustion.js";
import { type GitProtection, gitProtection } from "./git-protection.js";
import { quarantineGitlinkRepositories } from "./gitlink-quarantine.js";
import { LOCAL_SCOPE_CAPABILITIES } from "./local-scope-capabilities.js";
import { type ExpectedMounts, mountTableProblem, readMountinfo } from "./mount-verification.js";
import type { ProcessSandbox, SandboxCapabilities, SandboxedCommand, SandboxedProcess } from "./process-sandbox.js";
import { type RequestedLimits, type ResourceLimitStatus, type ResourceLimits, requestedLimits } from "./resource-limits.js";
import { confinedEnvironment, DEFAULT_PATH, inheritedEnvironment } from "./sandbox-environment.js";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";
import { BLOCK_FD, INFO_FD, type LaunchPlan, startSandboxedProcess } from "./sandboxed-process.js";
import { buildSeccompFilter } from "./seccomp-filter.js";
import { findTrustedExecutable } from "./trusted-executable.js";
import { assertValidCommand, confineWorkingDirectory, existingWorkingDirectory } from "./validate-command.js";
import { isInsideDirectory } from "./workspace-root.js";

/**
 * Options of a {@link BubblewrapSandbox}.
 *
 * @public
 */
export interface BubblewrapSandboxOptions {
  /** `"workspace"`: only the workspace is writable, little else is visible. `"local"`: host files, no network. */
  readonly scope: "local" | "workspace";
  /** The workspace's real path; required for scope `"workspace"`. */
  readonly workspace?: string;
  /**
   * The bwrap executable, as an absolute path the host vouches for (it is used as given).
   * @defaultValue the first `bwrap` on the host's `PATH` (or in `/usr/bin`, `/bin`) whose file and
   *   directories are root-owned, not writable by others and outside the workspace; see
   *   `findTrustedExecutable`. Resolved once, here.
   */
  readonly executable?: string;
  /**
   * The bash that closes inherited descriptors before bwrap starts (`FD_CLOSING_SCRIPT`),
   * as an absolute path the host vouches for.
   * @defaultValue a trusted `bash`, found like the bwrap default
   */
  readonly launcherShell?: string;
  /**
   * More host paths visible read-only under scope `"workspace"`, for toolchains outside `/usr`
   * (for example the directory of `process.execPath` when Node lives under `/opt` or `~/.nvm`).
   * An entry at or below the workspace is read-only for commands too: it is bound over the
   * workspace's writable bind, and a command whose sandbox does not show it read-only is refused
   * before it runs. (The file tools follow the run's permissions, not this option.)
   * @defaultValue `[]`
   */
  readonly readOnlyPaths?: readonly string[];
  /**
   * Allow `socketpair(AF_UNIX)`, which Node needs for child processes with pipes (see
   * `SeccompFilterOptions.allowUnixSocketPairs`). Connecting to unix sockets stays denied.
   * @defaultValue `false`
   */
  readonly allowUnixSocketPairs?: boolean;
  /**
   * Per-command process and memory limits, enforced with a cgroup per command where the host
   * can write one (see {@link BubblewrapSandbox.resourceLimits} for what holds); `false` for none.
   * @defaultValue 1024 processes, half the host's memory
   */
  readonly limits?: ResourceLimits | false;
}

/** The private `HOME`/`TMPDIR` inside a workspace sandbox (a tmpfs). */
const SANDBOX_HOME = "/tmp";

const WORKSPACE_CAPABILITIES: SandboxCapabilities = Object.freeze({
  network: false,
  unixSockets: false,
  readOutsideWorkspace: false,
  writeOutsideWorkspace: false,
  writeGitMetadata: false,
  hostEnvironment: false,
  sharedTmp: false,
});

/**
 * Linux driver: runs each command under bubblewrap (`bwrap`) with a seccomp filter.
 *
 * Scope `"workspace"`: new user, mount, pid, ipc, uts, cgroup and network namespaces, no
 * capabilities, read-only `/usr` `/etc` `/bin` `/lib*` `/sbin`, private `/tmp` `/root` `/home`
 * `/run`, the workspace writable at its own path with `.git` metadata read-only, and only a safe
 * list of environment variables. Scope `"local"`: the host file system and environment, but no
 * network. In both, `socket(AF_UNIX)` and io_uring fail with `EPERM`.
 *
 * The command's environment is handed to bwrap on a pipe (`--args 4`: `--clearenv`, then
 * `--setenv` for each variable), not as command-line arguments, which any host user could read
 * in `ps`, nor as the environment of the launcher and bwrap, which run on the host before the
 * sandbox exists (a loader variable there would run workspace code on the host).
 * @public
 */
export class BubblewrapSandbox implements ProcessSandbox {
  /** Always `"bubblewrap"`. */
  readonly kind = "bubblewrap";
  /** The scope it enforces. */
  readonly scope: "local" | "workspace";
  /** The workspace's real path, if any. */
  readonly workspace: string | undefined;
  /** What its processes can reach. */
  readonly capabilities: SandboxCapabilities;
  /** The resource limits each command runs under, and why one asked for is not enforced. */
  readonly resourceLimits: ResourceLimitStatus;
  /** The bwrap executable: an absolute path, resolved once. */
  readonly executable: string;
  /** The bash that starts bwrap after closing every inherited descriptor but 0-3. */
  readonly launcherShell: string;
  private readonly readOnlyPaths: readonly string[];
  private readonly system: readonly SystemMount[];
  private readonly masked: readonly MaskedEntry[];
  private readonly seccomp: Uint8Array;
  private readonly limits: RequestedLimits;
  private readonly cgroups: CgroupLayout;

  constructor(options: BubblewrapSandboxOptions) {
    this.scope = options.scope;
    this.workspace = options.workspace;
    // Before the programs are looked for: a workspace covering the system would distrust them all.
    if (this.scope === "workspace") assertUsableWorkspace(options.workspace);
    this.executable = options.executable ?? trusted("bwrap", options.workspace);
    this.launcherShell = options.launcherShell ?? trusted("bash", options.workspace);
    if (!path.isAbsolute(this.executable) || !path.isAbsolute(this.launcherShell)) {
      throw new ConfigurationError("invalid_sandbox_option", "The bwrap executable and launcher shell must be absolute paths.");
    }
    for (const extra of options.readOnlyPaths ?? []) {
      if (!path.isAbsolute(extra))
        throw new ConfigurationError("invalid_sandbox_option", `readOnlyPaths entry ${extra} is not absolute.`);
    }
    this.readOnlyPaths = Object.freeze((options.readOnlyPaths ?? []).map(canonicalReadOnlyPath));
    this.capabilities = this.scope === "workspace" ? WORKSPACE_CAPABILITIES : LOCAL_SCOPE_CAPABILITIES;
    this.system = this.scope === "workspace" ? Object.freeze(systemMounts()) : [];
    this.masked = this.scope === "workspace" ? Object.freeze(unreadableSystemEntries()) : [];
    this.seccomp = buildSeccompFilter({ allowUnixSocketPairs: options.allowUnixSocketPairs === true });
    const limits = requestedLimits(options.limits);
    this.cgroups = cgroupLayout();
    this.resourceLimits = limitStatus(this.cgroups, limits);
    // Only what is enforceable is asked for per command; the status says what is not.
    this.limits = {
      maxProcesses: this.resourceLimits.maxProcesses,
      maxMemoryBytes: this.resourceLimits.maxMemoryBytes,
    };
    Object.freeze(this);
  }

  /** Starts `command` under bwrap. */
  spawn(command: SandboxedCommand): SandboxedProcess {
    assertValidCommand(command);
    const root = this.workspace;
    if (this.scope === "workspace" && root !== undefined) {
      const cwd = confineWorkingDirectory(root, command.cwd);
      const git = gitProtection(root);
      const layout = { workspace: root, system: this.system, readOnlyPaths: this.readOnlyPaths, masked: this.masked, git };
      // Held from now until the command has ended: what it creates in their place is removed
      // through these handles, wherever it moved their parents (never by path).
      const controlFiles = holdControlFileDirectories(git.absentControlFiles, root, {
        absent: git.absentSequencerState,
        gitDirectories: git.gitDirectories,
        lookAlikes: git.lookAlikes,
        objectInfos: git.objectInfos,
        protectedDotGits: git.protectedDotGits,
      });
      try {
        return this.launch(
          workspaceScopeArguments(layout),
          commandArguments(cwd, command.command, command.args),
          root,
          confinedEnvironment(command.env, { home: SANDBOX_HOME }),
          command,
          () => afterWorkspaceCommand(root, git, controlFiles),
          this.expectedMounts(root, git.args),
        );
      } catch (error) {
        controlFiles.close();
        throw error;
      }
    }
    const cwd = existingWorkingDirectory(command.cwd, this.workspace);
    return this.launch(
      localScopeArguments(),
      commandArguments(cwd, command.command, command.args),
      cwd,
      inheritedEnvironment(command.env),
      command,
    );
  }

  private launch(
    scopeArgs: string[],
    tail: string[],
    cwd: string,
    env: Record<string, string>,
    command: SandboxedCommand,
    afterExit?: () => AfterCommandRepairs,
    mounts?: ExpectedMounts,
  ): SandboxedProcess {
    const cgroup = command.limits === false ? undefined : this.commandCgroup();
    // With a cgroup, the launcher first moves itself into it, so bwrap and everything it starts
    // are inside from their first instruction; the group's cgroup.procs files come before bwrap's
    // arguments, counted.
    const closing = mounts === undefined ? FD_CLOSING_SCRIPT : VERIFIED_FD_CLOSING_SCRIPT;
    const script = cgroup === undefined ? closing : `${CGROUP_JOINING_SCRIPT}\n${closing}`;
    const gate = mounts === undefined ? [] : ["--info-fd", String(INFO_FD), "--block-fd", String(BLOCK_FD)];
    const joining = cgroup === undefined ? [] : [String(cgroup.procsFiles.length), ...cgroup.procsFiles];
    // bwrap passes on every descriptor it inherits; the launcher closes all but 0-3 first.
    const plan: LaunchPlan = {
      executable: this.launcherShell,
      // Nothing may run on the host before bwrap: -p ignores BASH_ENV, functions exported in the
      // environment, SHELLOPTS and BASHOPTS; --norc stops bash from reading ~/.bashrc when its
      // stdin is a socket (Node's stdin pipes are socket pairs, which bash takes for rshd).
      // The command's environment reaches bwrap on fd 4 and is set only for the command: the
      // launcher and bwrap run on the host with a fixed one (see environmentArguments).
      args: [
        ...LAUNCHER_SHELL_OPTIONS,
        "-c",
        script,
        this.executable,
        ...joining,
        ...gate,
        "--args",
        String(ENVIRONMENT_FD),
        ...tail,
      ],
      cwd,
      env: { ...LAUNCHER_ENVIRONMENT },
      seccomp: this.seccomp,
      // The mounts go on the pipe too, as bytes: a process argument is a string, which cannot
      // name a path that is not valid UTF-8 (a repository under such a directory went unprotected).
      argumentsFile: Buffer.concat([
        environmentArguments({ ...env, PATH: env.PATH ?? DEFAULT_PATH }),
        nulSeparatedArguments(scopeArgs),
      ]),
      processGroup: false,
      ...(afterExit === undefined ? {} : { afterExit }),
      ...(cgroup === undefined ? {} : { cgroup }),
      ...(mounts === undefined ? {} : { verifyBeforeCommand: (pid: number) => mountsRefusal(pid, mounts) }),
    };
    try {
      return startSandboxedProcess(plan, command);
    } catch (error) {
      void cgroup?.release();
      throw error;
    }
  }

  /** What the mount table of a workspace command's sandbox must be (see `mountTableProblem`). */
  private expectedMounts(root: string, gitArgs: readonly string[]): ExpectedMounts {
    const readOnlyIdentity = ["/proc/sys", "/proc/fs", ...this.readOnlyPaths];
    for (const mount of this.system) if (mount.kind === "bind") readOnlyIdentity.push(mount.path);
    const nullBound: string[] = [...PROC_MASKS.files];
    for (const entry of this.masked) if (entry.kind === "file") nullBound.push(entry.path);
    const protectedTmpfs: string[] = [];
    const protectedBinds: string[] = [];
    const protectedReadOnly: string[] = [];
    for (let index = 0; index < gitArgs.length; index++) {
      const option = gitArgs[index];
      const target = gitArgs[index + 1] ?? "";
      if (option === "--tmpfs") protectedTmpfs.push(target);
      else if (option === "--bind" || option === "--ro-bind") protectedBinds.push(gitArgs[index + 2] ?? "");
      if (option === "--ro-bind") protectedReadOnly.push(gitArgs[index + 2] ?? "");
    }
    const maskedDirectories = procMaskArguments().filter((_arg, index, all) => all[index - 1] === "--tmpfs");
    for (const entry of this.masked) if (entry.kind === "directory") maskedDirectories.push(entry.path);
    const [readOnlyInWorkspace] = readOnlyPathsByPlace(root, this.readOnlyPaths);
    protectedBinds.push(...readOnlyPathPins(root, readOnlyInWorkspace));
    return {
      workspace: root,
      readOnlyIdentity,
      nullBound,
      protectedBinds,
      protectedReadOnly,
      protectedTmpfs,
      maskedDirectories,
      readOnlyInWorkspace,
    };
  }

  /** A new cgroup for one command, or none when no limit is enforced here. */
  private commandCgroup(): CommandCgroup | undefined {
    if (this.limits.maxProcesses === undefined && this.limits.maxMemoryBytes === undefined) return undefined;
    try {
      return CommandCgroup.create(this.cgroups, this.limits);
    } catch (error) {
      // No descriptor left (EMFILE, ENFILE) is the moment's condition, not the setup's: thrown as
      // it is, so the call answers too_many_open_files as every file tool does (the run maps
      // Node's system errors), not tool_failed with this message, and the next call tries again.
      if (isDescriptorExhaustion(error)) throw error;
      // It worked when the sandbox was made; refusing beats running a command without the limits
      // the host was told hold.
      throw new SandboxUnavailableError(
        `Cannot create the command's cgroup for its resource limits: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
        { data: { reason: "cgroup" } },
      );
    }
  }
}

/**
 * The bash program that runs before bwrap: it closes every descriptor except stdin, stdout,
 * stderr, the seccomp pipe (fd 3) and the environment pipe (fd 4, read and closed by bwrap), then replaces itself with bwrap (`$0`) and its arguments.
 * Node marks its own descriptors close-on-exec, but a descriptor the host process inherited
 * without that flag (a log file, a unix socket from a supervisor) would otherwise be open inside
 * the sandbox. Without `/proc` it refuses to start rather than leak.
 */
export const FD_CLOSING_SCRIPT = [
  '[ -x "$0" ] || { echo "sandbox launcher: $0 not found" >&2; exit 127; }',
  '[ -d /proc/self/fd ] || { echo "sandbox launcher: /proc/self/fd is missing; refusing to start with inherited descriptors" >&2; exit 126; }',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template.
  "for f in /proc/self/fd/*; do n=${f##*/}; case $n in 0|1|2|3|4) ;; *) exec {n}>&- ;; esac; done",
  'exec "$0" "$@"',
].join("\n");

/**
 * {@link FD_CLOSING_SCRIPT} for a launch whose sandbox is checked before its command runs: fd 5
 * (bwrap's `--info-fd`) and fd 6 (its `--block-fd`) are kept too; bwrap closes both before the
 * command starts.
 */
export const VERIFIED_FD_CLOSING_SCRIPT = FD_CLOSING_SCRIPT.replace("0|1|2|3|4)", "0|1|2|3|4|5|6)");

/**
 * Why the sandbox `pid` must not run its command: its mount table is not the one its arguments
 * describe (another command of the workspace changed a path while bwrap mounted it), or it cannot
 * be read. Checked while bwrap waits on its block descriptor, after its last mount.
 */
function mountsRefusal(pid: number, mounts: ExpectedMounts): Error | undefined {
  const sandbox = readMountinfo(pid);
  const host = readMountinfo("self");
  const problem =
    sandbox === undefined || host === undefined ? "its mount table cannot be read" : mountTableProblem(sandbox, host, mounts);
  if (problem === undefined) return undefined;
  return new SandboxUnavailableError(
    `The sandbox was refused before the command ran: ${problem}. A path below the workspace changed while the sandbox was being set up (another command of this workspace still running, such as a monitor process, can do that); nothing ran.`,
    { data: { reason: "mounts" } },
  );
}

/**
 * The bash lines that run first in the launcher when the command has a cgroup: `$1` is how many
 * `cgroup.procs` files follow; the launcher writes its own pid (`$$`, which stays bwrap's pid
 * after `exec`) to each, and refuses to start when one write fails.
 */
export const CGROUP_JOINING_SCRIPT = [
  'j=$1; shift; while [ "$j" -gt 0 ]; do',
  '  { echo $$ >"$1"; } 2>/dev/null || { echo "sandbox launcher: cannot join the command\'s cgroup; refusing to start without its resource limits" >&2; exit 125; }',
  "  shift; j=$((j - 1))",
  "done",
].join("\n");

/** Options of the launcher shell: no startup files, nothing imported from the environment. */
export const LAUNCHER_SHELL_OPTIONS: readonly string[] = Object.freeze(["--norc", "--noprofile", "-p"]);

function trusted(name: string, workspace: string | undefined): string {
  const found = findTrustedExecutable(name, workspace === undefined ? {} : { untrustedRoots: [workspace] });
  if (found.ok) return found.path;
  throw new SandboxUnavailableError(
    `${name === "bwrap" ? "bubblewrap (bwrap) is not installed or not in a trusted location" : `${name} was not found in a trusted location`}: ${found.reason} ` +
      (name === "bwrap"
        ? "Install it: apt-get install -y bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), apk add bubblewrap (Alpine)."
        : "Install it from the system's packages."),
    { data: { executable: name } },
  );
}

/**
 * A `readOnlyPaths` entry as the mount table will show it: its real path (a link on the way, or
 * the entry a link, resolved), or, when nothing is there yet, the path with `.`, `..`, repeated
 * and trailing separators removed. The entry is compared as text with the workspace (inside or
 * not) and with the sandbox's mount table: spelled otherwise (`<ws>/vendor/`, `<ws>//vendor`,
 * through a link to a parent) it was never found mounted at its own path, and every command was
 * refused before it ran, with a message blaming a path changed during setup.
 */
function canonicalReadOnlyPath(entry: string): string {
  try {
    return realpathSync(entry);
  } catch {
    return path.resolve(entry);
  }
}

function assertUsableWorkspace(workspace: string | undefined): asserts workspace is string {
  if (workspace === undefined || !path.isAbsolute(workspace)) {
    throw new ConfigurationError("invalid_workspace", 'Scope "workspace" needs the absolute real path of the workspace.');
  }
  const covered = SYSTEM_DIRECTORIES.find((directory) => isInsideDirectory(workspace, directory));
  if (covered !== undefined) {
    throw new ConfigurationError(
      "invalid_workspace",
      `The workspace ${workspace} contains the system directory ${covered}; making it writable would defeat the sandbox.`,
      { data: { workspace } },
    );
  }
}

/**
 * The repairs after a `workspace` command: created control files removed, sequencer state and
 * repositories at gitlinks that were not there at spawn moved aside. Both are tried; the first
 * failure is thrown afterwards (reported as the command's error).
 */
function afterWorkspaceCommand(root: string, git: GitProtection, controlFiles: HeldControlFiles): AfterCommandRepairs {
  let gitlinks: AfterCommandRepairs["quarantined"] = [];
  let failure: unknown;
  try {
    gitlinks = quarantineGitlinkRepositories(root, git.checkouts, git.protectedDotGits, new Date(), (held, budget) =>
      controlFiles.inertGitlinkRepository(held, budget),
    );
  } catch (error) {
    failure = error;
  }
  // After the gitlink quarantine: a repository it moved aside is not moved apart again.
  const repairs = controlFiles.removeCreated(new Set(gitlinks.map((state) => state.to)));
  if (failure !== undefined) throw failure;
  return { ...repairs, quarantined: [...repairs.quarantined, ...gitlinks] };
}
