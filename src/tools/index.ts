// Built-in tools (Node-only): file tools, shell, and their sandbox. Import from
// "agent-tool-catalog/tools"; the root entry never loads this.

export { createApplyPatchTool } from "./fs/apply-patch-tool.js";
export { createDownloadTool, type DownloadToolOptions } from "./fs/download-tool.js";
export { createEditTool, createReplaceTool } from "./fs/edit-tool.js";
export { createFileInspectTool } from "./fs/file-inspect-tool.js";
export type { FileScope, FileScopeOptions, OpenParentOptions, ParentEntry } from "./fs/file-scope.js";
export type { FileToolOptions } from "./fs/file-tool-options.js";
export { createFileTools, fileToolGroup } from "./fs/file-tools.js";
export { ABSENT_FILE_VERSION, fileVersion } from "./fs/file-version.js";
export { createGlobTool } from "./fs/glob-tool.js";
export { createGrepTool, type GrepToolOptions } from "./fs/grep-tool.js";
export { createLsTool } from "./fs/ls-tool.js";
export { createReadTool } from "./fs/read-tool.js";
export { resolveFileScope } from "./fs/resolve-file-scope.js";
export { createUndoTool } from "./fs/undo-tool.js";
export type { VerifiedDirectory } from "./fs/verified-directory.js";
export { createWriteTool } from "./fs/write-tool.js";
// The sandbox layer, for hosts that run their own processes or file access under the same rules.
export {
  BubblewrapSandbox,
  type BubblewrapSandboxOptions,
  type CreateProcessSandboxOptions,
  createProcessSandbox,
  type ProcessSandbox,
  type ProcessSandboxKind,
  probeProcessSandbox,
  type QuarantinedState,
  type ResourceLimitKind,
  type ResourceLimitStatus,
  type ResourceLimits,
  type RunResourceLimits,
  type RunSandboxedOptions,
  runSandboxed,
  SAFE_ENVIRONMENT_NAMES,
  type SandboxCapabilities,
  SandboxExecSandbox,
  type SandboxExecSandboxOptions,
  type SandboxedCommand,
  type SandboxedExit,
  type SandboxedProcess,
  type SandboxedResult,
  type SandboxProbe,
  type SandboxProbeResult,
  SandboxUnavailableError,
  type SandboxViolationCode,
  SandboxViolationError,
  type SandboxViolationErrorOptions,
  UnsandboxedProcessSandbox,
  type UnsandboxedProcessSandboxOptions,
} from "./sandbox/index.js";
export { type BashToolOptions, createBashTool } from "./shell/bash-tool.js";
