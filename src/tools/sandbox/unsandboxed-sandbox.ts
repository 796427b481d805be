import type { ProcessSandbox, SandboxCapabilities, SandboxedCommand, SandboxedProcess } from "./process-sandbox.js";
import { type ResourceLimitStatus, type ResourceLimits, requestedLimits, unenforcedLimits } from "./resource-limits.js";
import { inheritedEnvironment } from "./sandbox-environment.js";
import { startSandboxedProcess } from "./sandboxed-process.js";
import { assertValidCommand, existingWorkingDirectory } from "./validate-command.js";

/**
 * Options of an {@link UnsandboxedProcessSandbox}.
 *
 * @public
 */
export interface UnsandboxedProcessSandboxOptions {
  /** The workspace's real path, reported as {@link ProcessSandbox.workspace}; nothing is confined to it. */
  readonly workspace?: string;
  /** The limits a host asked for, reported as not enforced. @defaultValue the default limits */
  readonly limits?: ResourceLimits | false;
}

const CAPABILITIES: SandboxCapabilities = Object.freeze({
  network: true,
  unixSockets: true,
  readOutsideWorkspace: true,
  writeOutsideWorkspace: true,
  writeGitMetadata: true,
  hostEnvironment: true,
  sharedTmp: true,
});

/**
 * The driver of scope `"unrestricted"`: a plain spawn with the host's environment, in its own
 * process group so that aborting also ends the command's children. It is also what a host gets
 * when it opted in to `allowUnsandboxedFallback`, and then says so: its scope is `"unrestricted"`.
 * @public
 */
export class UnsandboxedProcessSandbox implements ProcessSandbox {
  /** Always `"unsandboxed"`. */
  readonly kind = "unsandboxed";
  /** Always `"unrestricted"`: nothing is enforced. */
  readonly scope = "unrestricted";
  /** The workspace, if one was given. */
  readonly workspace: string | undefined;
  /** Everything is reachable. */
  readonly capabilities = CAPABILITIES;
  /** Never enforced: an unsandboxed command runs in the host's own groups. */
  readonly resourceLimits: ResourceLimitStatus;

  constructor(options: UnsandboxedProcessSandboxOptions = {}) {
    this.workspace = options.workspace;
    this.resourceLimits = unenforcedLimits(
      requestedLimits(options.limits),
      "Resource limits are not enforced: commands run unsandboxed, in the host's own cgroup.",
    );
    Object.freeze(this);
  }

  /** Starts `command` directly. */
  spawn(command: SandboxedCommand): SandboxedProcess {
    assertValidCommand(command);
    const cwd = existingWorkingDirectory(command.cwd, this.workspace);
    return startSandboxedProcess(
      {
        executable: command.command,
        args: command.args,
        cwd,
        env: inheritedEnvironment(command.env),
        processGroup: true,
        reapTagged: true,
      },
      command,
    );
  }
}
