// The sandbox layer: path confinement for file tools and OS-enforced process sandboxes.
// Node-only (fs, child_process); meant for a subpath export, never the root entry.

export { BPF, type BpfInstruction, decodeBpfProgram, encodeBpfProgram } from "./bpf-instruction.js";
export {
  BubblewrapSandbox,
  type BubblewrapSandboxOptions,
  CGROUP_JOINING_SCRIPT,
  FD_CLOSING_SCRIPT,
} from "./bubblewrap-sandbox.js";
export { type CreateProcessSandboxOptions, createProcessSandbox } from "./create-process-sandbox.js";
export type { ConfinedOpenFlags } from "./open-flags.js";
export { type AccessIntent, openConfined, resolveInWorkspace } from "./path-confinement.js";
export type {
  ProcessSandbox,
  ProcessSandboxKind,
  SandboxCapabilities,
  SandboxedCommand,
  SandboxedExit,
  SandboxedProcess,
} from "./process-sandbox.js";
export {
  DEFAULT_MAX_PROCESSES,
  type ResourceLimitKind,
  type ResourceLimitStatus,
  type ResourceLimits,
} from "./resource-limits.js";
export type { RunResourceLimits } from "./run-resource-budget.js";
export { type RunSandboxedOptions, runSandboxed, type SandboxedResult } from "./run-sandboxed.js";
export { SAFE_ENVIRONMENT_NAMES } from "./sandbox-environment.js";
export { sandboxExecProfile } from "./sandbox-exec-profile.js";
export { SANDBOX_EXEC_PATH, SandboxExecSandbox, type SandboxExecSandboxOptions } from "./sandbox-exec-sandbox.js";
export { cachedSandboxProbe, probeProcessSandbox, type SandboxProbe, type SandboxProbeResult } from "./sandbox-probe.js";
export { SandboxUnavailableError } from "./sandbox-unavailable-error.js";
export {
  type SandboxViolationCode,
  SandboxViolationError,
  type SandboxViolationErrorOptions,
} from "./sandbox-violation-error.js";
export {
  AUDIT_ARCH,
  buildSeccompFilter,
  type ModeSettingCall,
  SECCOMP_ARCHITECTURES,
  SECCOMP_RET,
  type SeccompArchitecture,
  type SeccompFilterOptions,
} from "./seccomp-filter.js";
export type { QuarantinedState } from "./sequencer-quarantine.js";
export {
  findTrustedExecutable,
  type TrustedExecutableOptions,
  type TrustedExecutableResult,
} from "./trusted-executable.js";
export { UnsandboxedProcessSandbox, type UnsandboxedProcessSandboxOptions } from "./unsandboxed-sandbox.js";
export { type WriteFileAtomicOptions, writeFileAtomic } from "./write-file-atomic.js";
