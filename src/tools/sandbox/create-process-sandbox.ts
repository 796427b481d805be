import path from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import type { SandboxScope } from "../../policy/permission-config.js";
import { SYSTEM_DIRECTORIES } from "./bubblewrap-arguments.js";
import { BubblewrapSandbox } from "./bubblewrap-sandbox.js";
import type { ProcessSandbox } from "./process-sandbox.js";
import type { ResourceLimitStatus, ResourceLimits } from "./resource-limits.js";
import { SandboxExecSandbox } from "./sandbox-exec-sandbox.js";
import { cachedSandboxProbe, type SandboxProbe } from "./sandbox-probe.js";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";
import { noteSandboxedWorkspace } from "./trusted-executable.js";
import { UnsandboxedProcessSandbox } from "./unsandboxed-sandbox.js";
import { isInsideDirectory, realWorkspaceRoot } from "./workspace-root.js";

/**
 * Options of {@link createProcessSandbox}; all of them are the host's, none comes from a model.
 *
 * @public
 */
export interface CreateProcessSandboxOptions {
  /** The scope to enforce. */
  readonly scope: SandboxScope;
  /** The workspace directory; required for scope `"workspace"`. */
  readonly workspace?: string;
  /**
   * Run commands unsandboxed when no OS sandbox can start, instead of failing. The returned
   * sandbox then says so (`kind: "unsandboxed"`, `scope: "unrestricted"`).
   * @defaultValue `false`
   */
  readonly allowUnsandboxedFallback?: boolean;
  /** Told why, when the fallback is taken (the library itself never logs). */
  readonly onFallback?: (reason: SandboxUnavailableError) => void;
  /** @defaultValue `process.platform` */
  readonly platform?: NodeJS.Platform;
  /** @defaultValue `process.arch` */
  readonly architecture?: string;
  /**
   * How to check that the sandbox starts.
   * @defaultValue a probe that runs `true` once per configuration and process
   */
  readonly probe?: SandboxProbe;
  /**
   * The bwrap executable, an absolute path used as given (the host vouches for it).
   * @defaultValue a `bwrap` found once on `PATH` (or `/usr/bin`, `/bin`) whose file and directories
   *   are root-owned, not writable by group or others and outside the workspace; relative or
   *   writable `PATH` entries are skipped
   */
  readonly bubblewrapPath?: string;
  /**
   * Extra host paths visible read-only under scope `"workspace"` (bubblewrap), taken as their
   * real paths. An entry inside the workspace is read-only too, and the directories between the
   * workspace and it are pinned (a command cannot rename them to take the entry's files along).
   * @defaultValue the install prefix of the running Node when it is outside `/usr`
   */
  readonly readOnlyPaths?: readonly string[];
  /**
   * Let sandboxed processes create unix socket pairs (bubblewrap), which Node's `child_process`
   * pipes and `fork` need; connecting to unix sockets stays denied.
   * @defaultValue `false`
   */
  readonly allowUnixSocketPairs?: boolean;
  /**
   * Per-command process and memory limits (scopes `local` and `workspace` on Linux, where the host
   * can write a cgroup); `false` for none. What holds is on the sandbox's `resourceLimits`.
   * @defaultValue 1024 processes, half the host's memory
   */
  readonly limits?: ResourceLimits | false;
  /**
   * Told once, when the sandbox is made, that limits asked for are not enforced on this host
   * (no writable cgroup, macOS, the unsandboxed fallback); the sandbox still runs commands.
   */
  readonly onLimitsUnavailable?: (status: ResourceLimitStatus) => void;
}

const defaultProbe = cachedSandboxProbe();

/**
 * Picks the process sandbox for a scope on this host and checks that it really starts.
 *
 * It fails closed: for scope `"local"` or `"workspace"`, when no OS sandbox can start (bubblewrap
 * missing, user namespaces denied, an unsupported platform), it throws a
 * {@link SandboxUnavailableError} that says why and how to fix it, unless the host opted in to
 * `allowUnsandboxedFallback`. Scope `"unrestricted"` gets a plain spawn.
 * @throws SandboxUnavailableError, or ConfigurationError for a bad scope or workspace.
 * @public
 */
export async function createProcessSandbox(options: CreateProcessSandboxOptions): Promise<ProcessSandbox> {
  const { scope } = options;
  if (scope !== "unrestricted" && scope !== "local" && scope !== "workspace") {
    throw new ConfigurationError("invalid_sandbox_option", `Unknown sandbox scope ${JSON.stringify(scope)}.`);
  }
  if (scope === "workspace" && options.workspace === undefined) {
    throw new ConfigurationError("invalid_sandbox_option", 'Sandbox scope "workspace" needs a workspace directory.');
  }
  const workspace = options.workspace === undefined ? undefined : await realWorkspaceRoot(options.workspace);
  if (workspace !== undefined) {
    noteSandboxedWorkspace(workspace);
    noteSandboxedWorkspace(options.workspace ?? workspace);
  }
  const limits = options.limits === undefined ? {} : { limits: options.limits };
  const unsandboxed = () => new UnsandboxedProcessSandbox(workspace === undefined ? limits : { workspace, ...limits });
  if (scope === "unrestricted") return unsandboxed();
  const candidate = osSandbox(options, scope, workspace);
  const problem = typeof candidate === "string" ? candidate : await probeFailure(options.probe ?? defaultProbe, candidate);
  if (problem === undefined && typeof candidate !== "string") return reportLimits(candidate, options);
  const error = new SandboxUnavailableError(
    `Cannot start an OS sandbox for scope "${scope}": ${problem ?? "the probe failed."} ` +
      "Commands will not run unsandboxed; a host that accepts that risk can pass allowUnsandboxedFallback: true.",
    { data: { scope, platform: options.platform ?? process.platform } },
  );
  if (options.allowUnsandboxedFallback !== true) throw error;
  options.onFallback?.(error);
  return reportLimits(unsandboxed(), options);
}

/** Tells the host once when the limits it asked for do not hold here. */
function reportLimits(sandbox: ProcessSandbox, options: CreateProcessSandboxOptions): ProcessSandbox {
  const status = sandbox.resourceLimits;
  if (status !== undefined && !status.enforced) options.onLimitsUnavailable?.(status);
  return sandbox;
}

/** Why `sandbox` cannot start here, or `undefined` when it can. */
async function probeFailure(probe: SandboxProbe, sandbox: ProcessSandbox): Promise<string | undefined> {
  const result = await probe(sandbox);
  return result.ok ? undefined : result.reason;
}

/** The OS sandbox for this platform, or why there is none. */
function osSandbox(
  options: CreateProcessSandboxOptions,
  scope: "local" | "workspace",
  workspace: string | undefined,
): ProcessSandbox | string {
  const platform = options.platform ?? process.platform;
  const base = {
    scope,
    ...(workspace === undefined ? {} : { workspace }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  };
  if (platform === "darwin") return new SandboxExecSandbox(base);
  if (platform !== "linux")
    return `there is no sandbox backend for platform "${platform}" (supported: linux with bubblewrap, darwin).`;
  const architecture = options.architecture ?? process.arch;
  if (architecture !== "x64" && architecture !== "arm64") {
    return `the seccomp filter supports x86_64 and aarch64 only, and this is ${architecture}.`;
  }
  const readOnlyPaths = options.readOnlyPaths ?? defaultReadOnlyPaths();
  try {
    return new BubblewrapSandbox({
      ...base,
      readOnlyPaths,
      allowUnixSocketPairs: options.allowUnixSocketPairs === true,
      ...(options.bubblewrapPath === undefined ? {} : { executable: options.bubblewrapPath }),
    });
  } catch (error) {
    // No trusted bwrap (or bash) here: a reason, so the fallback rules apply as for a failed probe.
    if (error instanceof SandboxUnavailableError) return error.message;
    throw error;
  }
}

/** The running Node's install prefix, when the system directories do not already show it. */
function defaultReadOnlyPaths(): string[] {
  const prefix = path.dirname(path.dirname(process.execPath));
  const visible = SYSTEM_DIRECTORIES.some((directory) => isInsideDirectory(directory, prefix));
  return visible || prefix === path.parse(prefix).root ? [] : [prefix];
}
