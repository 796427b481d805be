import { BPF, BPF_MAX_INSTRUCTIONS, type BpfInstruction, encodeBpfProgram } from "./bpf-instruction.js";

/** Verdicts of a seccomp filter (`linux/seccomp.h`). */
export const SECCOMP_RET = Object.freeze({
  /** Let the system call run. */
  ALLOW: 0x7fff_0000,
  /** Fail the call; the low 16 bits are the errno. */
  ERRNO: 0x0005_0000,
  /** Kill the whole process. */
  KILL_PROCESS: 0x8000_0000,
});

/** `AUDIT_ARCH_*` values (`linux/audit.h`) of the architectures the filter knows. */
export const AUDIT_ARCH = Object.freeze({ X86_64: 0xc000_003e, AARCH64: 0xc000_00b7 });

/** `errno` returned for a denied call: `EPERM`, which programs report as "Operation not permitted". */
export const SECCOMP_DENY_ERRNO = 1;

/** `AF_UNIX`: the address family whose sockets would let a process talk to host daemons. */
export const AF_UNIX = 1;

/** Set in the number of every x32 system call on x86_64 (`__X32_SYSCALL_BIT`). */
export const X32_SYSCALL_BIT = 0x4000_0000;

/** `struct seccomp_data` offsets: `nr` (int), `arch` (u32), then `args[6]` (u64) from byte 16. */
const OFFSET = Object.freeze({ NR: 0, ARCH: 4, ARG0_LOW: 16 });

/** The system call numbers the filter needs on one architecture. */
export interface SeccompArchitecture {
  /** The `AUDIT_ARCH_*` value the kernel reports in `seccomp_data.arch`. */
  readonly auditArch: number;
  /** `socket`: denied when its first argument is `AF_UNIX`. */
  readonly socket: number;
  /** `socketpair`: denied when its first argument is `AF_UNIX`, unless unix socket pairs are allowed. */
  readonly socketpair: number;
  /**
   * Always denied: `io_uring_setup`, `io_uring_enter`, `io_uring_register`, and the kernel key
   * management calls `add_key`, `request_key`, `keyctl` (the host's session and user keyrings,
   * which hold credentials, would otherwise be readable through them).
   */
  readonly deniedCalls: readonly number[];
  /** Deny every call with `X32_SYSCALL_BIT` set (the x32 ABI bypasses the numbers above). */
  readonly denyX32: boolean;
}

/**
 * The architectures the filter handles. io_uring is denied because its operations (including
 * socket connects) run without passing through the system calls a filter can see; the key
 * management calls because a user namespace does not give a process a new keyring.
 */
export const SECCOMP_ARCHITECTURES: Readonly<Record<"x86_64" | "aarch64", SeccompArchitecture>> = Object.freeze({
  x86_64: {
    auditArch: AUDIT_ARCH.X86_64,
    socket: 41,
    socketpair: 53,
    // io_uring_setup/enter/register, then add_key, request_key, keyctl.
    deniedCalls: [425, 426, 427, 248, 249, 250],
    denyX32: true,
  },
  aarch64: {
    auditArch: AUDIT_ARCH.AARCH64,
    socket: 198,
    socketpair: 199,
    deniedCalls: [425, 426, 427, 217, 218, 219],
    denyX32: false,
  },
});

const DENY = SECCOMP_RET.ERRNO | SECCOMP_DENY_ERRNO;

/** Options of {@link buildSeccompFilter}. */
export interface SeccompFilterOptions {
  /**
   * Let `socketpair(AF_UNIX)` through. A socket pair is connected only to its creator and its
   * children, so it cannot reach a host daemon; but Node (libuv) creates one for every child
   * process with piped stdio or an IPC channel, so denying it breaks `child_process` pipes,
   * `fork`, and the test runners and package scripts built on them inside the sandbox.
   * `socket(AF_UNIX)`, which is what connects to host sockets, stays denied either way.
   * @defaultValue `false` (denied)
   */
  readonly allowUnixSocketPairs?: boolean;
}

/**
 * Builds the seccomp program bubblewrap installs (`bwrap --seccomp FD`), as `struct sock_filter`
 * bytes.
 *
 * `--unshare-net` cuts TCP, but a process could still reach host daemons (Docker, D-Bus, an SSH
 * agent) through a unix socket file it can see. The filter makes `socket(AF_UNIX, …)` and
 * `socketpair(AF_UNIX, …)` fail with `EPERM` and denies io_uring; everything else is allowed, so
 * node, npm and git start unchanged. See {@link SeccompFilterOptions.allowUnixSocketPairs} for
 * what denying socket pairs costs.
 *
 * An architecture other than x86_64 or aarch64 (for example i386 calls made through `int 0x80`
 * from an x86_64 process, whose numbers differ) gets `EPERM` for every call: failing closed, with
 * an error message a user can read, rather than `SIGSYS`.
 */
export function buildSeccompFilter(options: SeccompFilterOptions = {}): Uint8Array {
  return encodeBpfProgram(assemble(filterSteps(options.allowUnixSocketPairs === true)));
}

type Step =
  | { readonly op: "label"; readonly name: string }
  | { readonly op: "load"; readonly offset: number }
  | { readonly op: "jeq" | "jge"; readonly value: number; readonly target: string }
  | { readonly op: "return"; readonly value: number };

function filterSteps(allowUnixSocketPairs: boolean): Step[] {
  const steps: Step[] = [{ op: "load", offset: OFFSET.ARCH }];
  const entries = Object.entries(SECCOMP_ARCHITECTURES);
  for (const [name, architecture] of entries) steps.push({ op: "jeq", value: architecture.auditArch, target: name });
  steps.push({ op: "return", value: DENY });
  for (const [name, architecture] of entries) steps.push(...architectureSteps(name, architecture, allowUnixSocketPairs));
  steps.push(
    { op: "label", name: "unix_check" },
    { op: "load", offset: OFFSET.ARG0_LOW },
    { op: "jeq", value: AF_UNIX, target: "deny" },
    { op: "return", value: SECCOMP_RET.ALLOW },
    { op: "label", name: "deny" },
    { op: "return", value: DENY },
  );
  return steps;
}

function architectureSteps(name: string, architecture: SeccompArchitecture, allowUnixSocketPairs: boolean): Step[] {
  const steps: Step[] = [
    { op: "label", name },
    { op: "load", offset: OFFSET.NR },
  ];
  if (architecture.denyX32) steps.push({ op: "jge", value: X32_SYSCALL_BIT, target: "deny" });
  steps.push({ op: "jeq", value: architecture.socket, target: "unix_check" });
  if (!allowUnixSocketPairs) steps.push({ op: "jeq", value: architecture.socketpair, target: "unix_check" });
  for (const call of architecture.deniedCalls) steps.push({ op: "jeq", value: call, target: "deny" });
  steps.push({ op: "return", value: SECCOMP_RET.ALLOW });
  return steps;
}

/** Turns steps with symbolic jump targets into instructions with relative offsets. */
function assemble(steps: readonly Step[]): BpfInstruction[] {
  const labels = new Map<string, number>();
  let count = 0;
  for (const step of steps) {
    if (step.op === "label") labels.set(step.name, count);
    else count++;
  }
  if (count > BPF_MAX_INSTRUCTIONS) throw new RangeError(`The seccomp program has ${count} instructions.`);
  const program: BpfInstruction[] = [];
  for (const step of steps) {
    if (step.op === "label") continue;
    if (step.op === "load") program.push({ code: BPF.LD_W_ABS, jt: 0, jf: 0, k: step.offset });
    else if (step.op === "return") program.push({ code: BPF.RET_K, jt: 0, jf: 0, k: step.value });
    else
      program.push({
        code: step.op === "jeq" ? BPF.JEQ_K : BPF.JGE_K,
        jt: jumpTo(labels, step.target, program.length),
        jf: 0,
        k: step.value,
      });
  }
  return program;
}

function jumpTo(labels: ReadonlyMap<string, number>, target: string, from: number): number {
  const destination = labels.get(target);
  if (destination === undefined) throw new Error(`Unknown seccomp label ${target}.`);
  const offset = destination - from - 1;
  if (offset < 0 || offset > 255) throw new RangeError(`Seccomp jump to ${target} is out of range (${offset}).`);
  return offset;
}
