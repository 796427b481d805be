import type { Readable, Writable } from "node:stream";
import type { SandboxScope } from "../../policy/permission-config.js";
import type { ResourceLimitKind, ResourceLimitStatus } from "./resource-limits.js";
import type { QuarantinedState } from "./sequencer-quarantine.js";

/**
 * Which backend confines a process.
 *
 * @public
 */
export type ProcessSandboxKind = "bubblewrap" | "sandbox-exec" | "unsandboxed";

/**
 * One command to start. It carries no switch that weakens the confinement: whatever a model puts
 * into a command line, what the process can reach is fixed when the {@link ProcessSandbox} is
 * created.
 * @public
 */
export interface SandboxedCommand {
  /** The program, looked up on the sandbox's `PATH` when it has no slash. */
  readonly command: string;
  /** Its arguments, passed as they are (no shell). */
  readonly args: readonly string[];
  /** The working directory; under scope `"workspace"` it must be inside the workspace. */
  readonly cwd: string;
  /**
   * Variables to set on top of the sandbox's own environment. Set by the host or the tool, so they
   * are passed even when their names look secret.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborting it kills the process (`SIGTERM`, then `SIGKILL` after a grace period). */
  readonly signal?: AbortSignal;
  /**
   * `"pipe"` gives a writable `stdin`; `"ignore"` connects `/dev/null`.
   * @defaultValue `"ignore"`, or `"pipe"` when `input` is set
   */
  readonly stdin?: "ignore" | "pipe";
  /** Bytes to write to the process's stdin, which is then closed. */
  readonly input?: string | Uint8Array;
  /**
   * `false` starts this command without a cgroup of its own, so without the sandbox's
   * per-command resource limits; its confinement is unchanged. For a program a tool runs with
   * arguments of its own making whose use is bounded by the program itself (ripgrep for `grep`),
   * which would otherwise pay the kernel's cgroup move (10-15 ms per command on cgroup v1). The
   * commands a model writes (`bash`, `monitor`) never set it.
   * @defaultValue the sandbox's limits
   */
  readonly limits?: false;
}

/**
 * How a sandboxed process ended.
 *
 * @public
 */
export interface SandboxedExit {
  /** The exit code, or `null` when a signal ended it or it never started. */
  readonly exitCode: number | null;
  /** The signal that ended it, if any. */
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started (for example `ENOENT` for the launcher). */
  readonly error?: Error;
  /**
   * Host paths the sandbox repaired after the process ended: git control files (`commondir`,
   * `config.worktree`, …) the command created where none existed, which were removed.
   */
  readonly repaired?: readonly string[];
  /**
   * Host paths of such control files the command made directories too large to remove within
   * the removal's bounds (10,000 entries, 64 levels): what is left is a directory, which git
   * does not follow, but it is not gone.
   */
  readonly notRepaired?: readonly string[];
  /**
   * Git sequencer state (`rebase-merge`, `rebase-apply`, `sequencer`) present after the process
   * ended that was not there when it started, moved aside whole (never deleted) to a name git
   * does not read, in the same git directory: an `exec` line of its todo list would run on the
   * host at the user's `git rebase --continue`. It may be the user's own (a rebase started on the
   * host meanwhile, autostashed changes): moving it back restores it.
   */
  readonly quarantined?: readonly QuarantinedState[];
  /**
   * What host git would run or follow in git directories the process created (a nested
   * repository, a submodule's git directory): their `hooks` (when more than git's samples), their
   * `config` (when it holds a key beyond what `git init` and `git clone` write, such as
   * `core.fsmonitor`) and `commondir`, moved aside whole in the same git directory, as
   * `quarantined` is. Host git, or the user, working there later would otherwise run them.
   */
  readonly newGitState?: readonly QuarantinedState[];
  /**
   * The resource limit the command ran into (see `ResourceLimits`): `"memory"` when the
   * kernel killed one of its processes for memory, `"processes"` when a fork was refused. Only
   * sandboxes that enforce limits report it. It is read from the command's group after the
   * command ended, however it ended: a command stopped by its signal (a timeout) after a fork
   * was refused reports `"processes"` too.
   */
  readonly limit?: ResourceLimitKind;
}

/**
 * A started process. Read `stdout`/`stderr`, or the pipes fill up and the process stalls.
 *
 * @public
 */
export interface SandboxedProcess {
  /** The host pid of the launcher (bwrap, sandbox-exec) or of the command itself. */
  readonly pid: number | undefined;
  /** The process's stdin when `stdin` is `"pipe"`, else `null`. */
  readonly stdin: Writable | null;
  /** The process's stdout. */
  readonly stdout: Readable;
  /** The process's stderr (bwrap's own errors appear here too). */
  readonly stderr: Readable;
  /** Settles when the process has exited; never rejects. */
  readonly exited: Promise<SandboxedExit>;
  /** Ends the process and everything it started. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * What a process started by a sandbox can reach, as a driver claims it. `true` means the process
 * can do it. The shared conformance suite checks every claim for real, both ways.
 * @public
 */
export interface SandboxCapabilities {
  /** It can open TCP connections, for example to a server on 127.0.0.1. */
  readonly network: boolean;
  /** It can connect to a unix socket of the host that it can see in the file system. */
  readonly unixSockets: boolean;
  /** It can read host files outside the workspace other than the system directories. */
  readonly readOutsideWorkspace: boolean;
  /** It can write files outside the workspace. */
  readonly writeOutsideWorkspace: boolean;
  /** It can change the workspace's `.git/hooks` and `.git/config` (and so run code in host git). */
  readonly writeGitMetadata: boolean;
  /** Host environment variables beyond a short safe list (such as `SECRET_TOKEN`) reach it. */
  readonly hostEnvironment: boolean;
  /** A file it writes to `/tmp` appears in the host's `/tmp`. */
  readonly sharedTmp: boolean;
}

/**
 * Starts processes under one fixed confinement. One small interface with one driver per OS
 * mechanism (bubblewrap on Linux, sandbox-exec on macOS, none), each passing the same conformance
 * suite, so tools spawn through it without knowing which one they got.
 * @public
 */
export interface ProcessSandbox {
  /** The mechanism. */
  readonly kind: ProcessSandboxKind;
  /** The scope it enforces. An unsandboxed fallback reports `"unrestricted"`, never what was asked. */
  readonly scope: SandboxScope;
  /** The workspace's real path, when there is one. */
  readonly workspace: string | undefined;
  /** What its processes can reach. */
  readonly capabilities: SandboxCapabilities;
  /**
   * Which resource limits it enforces on each command. The built-in drivers always set it; a
   * sandbox without it enforces none.
   */
  readonly resourceLimits?: ResourceLimitStatus;
  /**
   * Starts a command.
   * @throws SandboxViolationError `invalid_command` or `path_outside_workspace` for a bad request
   *   (a model's mistake, readable as such).
   */
  spawn(command: SandboxedCommand): SandboxedProcess;
}
