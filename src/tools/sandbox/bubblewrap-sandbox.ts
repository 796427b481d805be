import path from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import {
  commandArguments,
  localScopeArguments,
  SYSTEM_DIRECTORIES,
  type SystemMount,
  systemMounts,
  workspaceScopeArguments,
} from "./bubblewrap-arguments.js";
import type { ProcessSandbox, SandboxCapabilities, SandboxedCommand, SandboxedProcess } from "./process-sandbox.js";
import { confinedEnvironment, DEFAULT_PATH, inheritedEnvironment } from "./sandbox-environment.js";
import { startSandboxedProcess } from "./sandboxed-process.js";
import { buildSeccompFilter } from "./seccomp-filter.js";
import { assertValidCommand, confineWorkingDirectory, existingWorkingDirectory } from "./validate-command.js";
import { isInsideDirectory } from "./workspace-root.js";

/** Options of a {@link BubblewrapSandbox}. */
export interface BubblewrapSandboxOptions {
  /** `"workspace"`: only the workspace is writable, little else is visible. `"local"`: host files, no network. */
  readonly scope: "local" | "workspace";
  /** The workspace's real path; required for scope `"workspace"`. */
  readonly workspace?: string;
  /**
   * The bwrap executable.
   * @defaultValue `"bwrap"` (looked up on the host's `PATH`)
   */
  readonly executable?: string;
  /**
   * More host paths visible read-only under scope `"workspace"`, for toolchains outside `/usr`
   * (for example the directory of `process.execPath` when Node lives under `/opt` or `~/.nvm`).
   * @defaultValue `[]`
   */
  readonly readOnlyPaths?: readonly string[];
  /**
   * Allow `socketpair(AF_UNIX)`, which Node needs for child processes with pipes (see
   * `SeccompFilterOptions.allowUnixSocketPairs`). Connecting to unix sockets stays denied.
   * @defaultValue `false`
   */
  readonly allowUnixSocketPairs?: boolean;
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

const LOCAL_CAPABILITIES: SandboxCapabilities = Object.freeze({
  network: false,
  unixSockets: false,
  readOutsideWorkspace: true,
  writeOutsideWorkspace: true,
  writeGitMetadata: true,
  hostEnvironment: true,
  sharedTmp: true,
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
 * The environment is handed to bwrap as its own exact environment rather than as `--setenv`
 * arguments, which any host user could read in `ps`; bwrap inherits nothing else.
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
  /** The bwrap executable. */
  readonly executable: string;
  private readonly readOnlyPaths: readonly string[];
  private readonly system: readonly SystemMount[];
  private readonly seccomp: Uint8Array;

  constructor(options: BubblewrapSandboxOptions) {
    this.scope = options.scope;
    this.workspace = options.workspace;
    this.executable = options.executable ?? "bwrap";
    this.readOnlyPaths = Object.freeze([...(options.readOnlyPaths ?? [])]);
    this.capabilities = this.scope === "workspace" ? WORKSPACE_CAPABILITIES : LOCAL_CAPABILITIES;
    if (this.scope === "workspace") assertUsableWorkspace(options.workspace);
    for (const extra of this.readOnlyPaths) {
      if (!path.isAbsolute(extra))
        throw new ConfigurationError("invalid_sandbox_option", `readOnlyPaths entry ${extra} is not absolute.`);
    }
    this.system = this.scope === "workspace" ? Object.freeze(systemMounts()) : [];
    this.seccomp = buildSeccompFilter({ allowUnixSocketPairs: options.allowUnixSocketPairs === true });
    Object.freeze(this);
  }

  /** Starts `command` under bwrap. */
  spawn(command: SandboxedCommand): SandboxedProcess {
    assertValidCommand(command);
    const root = this.workspace;
    if (this.scope === "workspace" && root !== undefined) {
      const cwd = confineWorkingDirectory(root, command.cwd);
      const layout = { workspace: root, system: this.system, readOnlyPaths: this.readOnlyPaths };
      return this.launch(
        [...workspaceScopeArguments(layout), ...commandArguments(cwd, command.command, command.args)],
        root,
        confinedEnvironment(command.env, { home: SANDBOX_HOME }),
        command,
      );
    }
    const cwd = existingWorkingDirectory(command.cwd, this.workspace);
    return this.launch(
      [...localScopeArguments(), ...commandArguments(cwd, command.command, command.args)],
      cwd,
      inheritedEnvironment(command.env),
      command,
    );
  }

  private launch(args: string[], cwd: string, env: Record<string, string>, command: SandboxedCommand): SandboxedProcess {
    const launcherEnvironment = { ...env, PATH: env.PATH ?? DEFAULT_PATH };
    return startSandboxedProcess(
      { executable: this.executable, args, cwd, env: launcherEnvironment, seccomp: this.seccomp, processGroup: false },
      command,
    );
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
