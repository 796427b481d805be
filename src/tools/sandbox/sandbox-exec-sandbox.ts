import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { LOCAL_SCOPE_CAPABILITIES } from "./local-scope-capabilities.js";
import type { ProcessSandbox, SandboxCapabilities, SandboxedCommand, SandboxedProcess } from "./process-sandbox.js";
import { type ResourceLimitStatus, type ResourceLimits, requestedLimits, unenforcedLimits } from "./resource-limits.js";
import { confinedEnvironment, inheritedEnvironment } from "./sandbox-environment.js";
import { sandboxExecLaunch, sandboxExecParameters, sandboxExecProfile } from "./sandbox-exec-profile.js";
import { startSandboxedProcess } from "./sandboxed-process.js";
import { assertValidCommand, confineWorkingDirectory, existingWorkingDirectory } from "./validate-command.js";

/**
 * The one `sandbox-exec` this driver runs: an absolute path, so a `PATH` entry cannot stand in
 * for it.
 */
export const SANDBOX_EXEC_PATH = "/usr/bin/sandbox-exec";

/**
 * Options of a {@link SandboxExecSandbox}.
 *
 * @public
 */
export interface SandboxExecSandboxOptions {
  /** `"workspace"`: writes only in the workspace. `"local"`: writes anywhere. Network denied in both. */
  readonly scope: "local" | "workspace";
  /** The workspace's real path; required for scope `"workspace"`. */
  readonly workspace?: string;
  /** @defaultValue `/usr/bin/sandbox-exec` */
  readonly executable?: string;
  /** The limits a host asked for, reported as not enforced. @defaultValue the default limits */
  readonly limits?: ResourceLimits | false;
}

const WORKSPACE_CAPABILITIES: SandboxCapabilities = Object.freeze({
  network: false,
  unixSockets: false,
  readOutsideWorkspace: true,
  writeOutsideWorkspace: false,
  writeGitMetadata: false,
  hostEnvironment: false,
  sharedTmp: false,
});

/**
 * macOS driver: runs each command under `sandbox-exec` (Seatbelt) with a generated profile that
 * denies by default. Unlike bubblewrap it does not hide the host's files from reads; it confines
 * writes (scope `"workspace"`) and cuts all network, unix sockets included. Each command gets a
 * private temp directory as `TMPDIR`/`HOME`, removed when it exits.
 *
 * `sandbox-exec` is deprecated by Apple but still ships and is what other coding agents use.
 * @public
 */
export class SandboxExecSandbox implements ProcessSandbox {
  /** Always `"sandbox-exec"`. */
  readonly kind = "sandbox-exec";
  /** The scope it enforces. */
  readonly scope: "local" | "workspace";
  /** The workspace's real path, if any. */
  readonly workspace: string | undefined;
  /** What its processes can reach. */
  readonly capabilities: SandboxCapabilities;
  /** The sandbox-exec executable. */
  readonly executable: string;
  /** Never enforced: macOS has no per-command process or memory limit a host can set. */
  readonly resourceLimits: ResourceLimitStatus;
  private readonly profile: string;

  constructor(options: SandboxExecSandboxOptions) {
    this.scope = options.scope;
    this.workspace = options.workspace;
    this.executable = options.executable ?? SANDBOX_EXEC_PATH;
    this.capabilities = this.scope === "workspace" ? WORKSPACE_CAPABILITIES : LOCAL_SCOPE_CAPABILITIES;
    this.profile = sandboxExecProfile(this.scope);
    this.resourceLimits = unenforcedLimits(
      requestedLimits(options.limits),
      "Resource limits are not enforced on macOS: sandbox-exec has no process or memory limit per command.",
    );
    if (this.scope === "workspace" && (this.workspace === undefined || !path.isAbsolute(this.workspace))) {
      throw new ConfigurationError("invalid_workspace", 'Scope "workspace" needs the absolute real path of the workspace.');
    }
    Object.freeze(this);
  }

  /** Starts `command` under sandbox-exec. */
  spawn(command: SandboxedCommand): SandboxedProcess {
    assertValidCommand(command);
    const root = this.workspace;
    if (this.scope !== "workspace" || root === undefined) {
      const cwd = existingWorkingDirectory(command.cwd, root);
      // Loader variables (the host's own, under local) are set inside the sandbox, never on sandbox-exec.
      const { args, env } = sandboxExecLaunch(this.profile, {}, command.command, command.args, inheritedEnvironment(command.env));
      return startSandboxedProcess({ executable: this.executable, args, cwd, env, processGroup: true }, command);
    }
    const cwd = confineWorkingDirectory(root, command.cwd);
    const temporaryDirectory = realpathSync(mkdtempSync(path.join(os.tmpdir(), "atc-sandbox-")));
    const parameters = sandboxExecParameters({ workspace: root, temporaryDirectory });
    const environment = confinedEnvironment(command.env, { home: temporaryDirectory });
    const { args, env } = sandboxExecLaunch(this.profile, parameters, command.command, command.args, environment);
    const cleanup = () => rmSync(temporaryDirectory, { recursive: true, force: true });
    return startSandboxedProcess({ executable: this.executable, args, cwd, env, processGroup: true, cleanup }, command);
  }
}
