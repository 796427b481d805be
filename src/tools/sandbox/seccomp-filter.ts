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

/**
 * The only families `socket()` may create: IPv4, IPv6 (both cut off by the empty network
 * namespace) and netlink (the namespace's own routing tables, which `ip` and resolvers read).
 * Every other family is refused, because some are not confined by a network namespace at all:
 * `AF_VSOCK` reaches the hypervisor host from a virtual machine (Firecracker, Kata, WSL2), and
 * Bluetooth, CAN or TIPC reach devices and buses beside the host.
 */
export const ALLOWED_SOCKET_FAMILIES: readonly number[] = Object.freeze([2, 10, 16]);

/**
 * Socket types (`type & 0xf`) a unix socket pair may have: `SOCK_STREAM` and `SOCK_SEQPACKET`,
 * whose sockets stay connected to each other. A `SOCK_DGRAM` (or `SOCK_RAW`, which unix sockets
 * turn into datagrams) pair is not bound to its peer: `sendto()` with an address, or `connect()`,
 * reaches any datagram socket file the process can see (journald, syslog, a host daemon's
 * socket in the workspace), which is what denying `socket(AF_UNIX)` exists to stop.
 */
export const ALLOWED_SOCKET_PAIR_TYPES: readonly number[] = Object.freeze([1, 5]);

/**
 * `F_SETLEASE`: the `fcntl` command that takes a lease. The kernel grants one to the file's owner
 * (the host uid outside the sandbox's namespace) on a descriptor opened read-only, through a
 * read-only mount too, and then holds every other process that opens the file (for reading,
 * under a write lease) in `open()` until the holder lets go or `fs.lease-break-time` (45 s)
 * passes: a command holding leases on `/etc/hosts` or on workspace files the host reads would
 * stall host processes, again and again.
 */
export const F_SETLEASE = 1024;

/** `SOCK_TYPE_MASK`: the bits of `socket()`'s type argument that hold the type (the rest are flags). */
const SOCKET_TYPE_MASK = 0xf;

/** Set in the number of every x32 system call on x86_64 (`__X32_SYSCALL_BIT`). */
export const X32_SYSCALL_BIT = 0x4000_0000;

/** `struct seccomp_data` offsets: `nr` (int), `arch` (u32), then `args[6]` (u64) from byte 16. */
const OFFSET = Object.freeze({ NR: 0, ARCH: 4, ARG0_LOW: 16 });

/** The low 32 bits of argument `index` (little-endian `u64`s from byte 16). */
const argumentOffset = (index: number) => OFFSET.ARG0_LOW + 8 * index;

/** `S_ISUID | S_ISGID`: the mode bits that make an executable run as its owner or group. */
export const SET_ID_MODE_BITS = 0o6000;

/** `O_CREAT | __O_TMPFILE` (x86_64 and aarch64 share the generic values): an open that creates. */
export const CREATING_OPEN_FLAGS = 0o100 | 0o20000000;

/**
 * `ENOSYS`: returned for `openat2`, whose mode a filter cannot read, so programs fall back to
 * `openat`, and for `clone3`, whose flags a filter cannot read, so they fall back to `clone`.
 */
export const ENOSYS = 38;

/**
 * A call that sets permission bits: its number, the argument holding the mode, and for `open`
 * and `openat` the argument holding the flags (the mode counts only when they create a file).
 */
export interface ModeSettingCall {
  /** The system call number on its architecture. */
  readonly nr: number;
  /** The index of the argument holding the mode. */
  readonly mode: number;
  /** The index of the argument holding the open flags (`open`, `openat` only). */
  readonly flags?: number;
}

/** The system call numbers the filter needs on one architecture. */
export interface SeccompArchitecture {
  /** The `AUDIT_ARCH_*` value the kernel reports in `seccomp_data.arch`. */
  readonly auditArch: number;
  /** `socket`: denied unless its first argument is one of {@link ALLOWED_SOCKET_FAMILIES}. */
  readonly socket: number;
  /**
   * `socketpair`: denied when its first argument is `AF_UNIX`, unless unix socket pairs are
   * allowed, and then only of {@link ALLOWED_SOCKET_PAIR_TYPES}.
   */
  readonly socketpair: number;
  /**
   * Always denied: `io_uring_setup`, `io_uring_enter`, `io_uring_register`, and the kernel key
   * management calls `add_key`, `request_key`, `keyctl` (the host's session and user keyrings,
   * which hold credentials, would otherwise be readable through them).
   */
  readonly deniedCalls: readonly number[];
  /** Deny every call with `X32_SYSCALL_BIT` set (the x32 ABI bypasses the numbers above). */
  readonly denyX32: boolean;
  /**
   * Calls that set permission bits (chmod family, creating opens, mknod, mkdir): denied when the
   * mode has `S_ISUID` or `S_ISGID`. The sandbox's user is the host user outside (root, when the
   * host runs as root), so a set-user-id file made in the workspace would be a set-user-id-root
   * program on the host, for any local user to run.
   */
  readonly modeSetting: readonly ModeSettingCall[];
  /** `openat2`: its mode is in a structure the filter cannot read, so it is refused (`ENOSYS`). */
  readonly openat2: number;
  /**
   * `clone3`: its flags are in a structure the filter cannot read, so it is refused (`ENOSYS`, as
   * Docker's default profile does); glibc, Go and Rust then use `clone`, which has no cgroup
   * argument. Through `CLONE_INTO_CGROUP` a child starts in the cgroup v2 group of a directory
   * descriptor: a descriptor of a read-only `/sys/fs/cgroup` directory is enough (the kernel
   * checks write permission on the group's `cgroup.procs` inode, which the host uid outside has,
   * not the mount's read-only flag), so under `local` a command could start processes in any
   * host group, outside its own pids and memory limits.
   */
  readonly clone3: number;
  /** `fcntl`: denied when its command is {@link F_SETLEASE}. */
  readonly fcntl: number;
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
    modeSetting: [
      { nr: 2, flags: 1, mode: 2 }, // open
      { nr: 257, flags: 2, mode: 3 }, // openat
      { nr: 85, mode: 1 }, // creat
      { nr: 90, mode: 1 }, // chmod
      { nr: 91, mode: 1 }, // fchmod
      { nr: 268, mode: 2 }, // fchmodat
      { nr: 452, mode: 2 }, // fchmodat2
      { nr: 133, mode: 1 }, // mknod
      { nr: 259, mode: 2 }, // mknodat
      { nr: 83, mode: 1 }, // mkdir
      { nr: 258, mode: 2 }, // mkdirat
    ],
    openat2: 437,
    clone3: 435,
    fcntl: 72,
  },
  aarch64: {
    auditArch: AUDIT_ARCH.AARCH64,
    socket: 198,
    socketpair: 199,
    deniedCalls: [425, 426, 427, 217, 218, 219],
    denyX32: false,
    modeSetting: [
      { nr: 56, flags: 2, mode: 3 }, // openat
      { nr: 52, mode: 1 }, // fchmod
      { nr: 53, mode: 2 }, // fchmodat
      { nr: 452, mode: 2 }, // fchmodat2
      { nr: 33, mode: 2 }, // mknodat
      { nr: 34, mode: 2 }, // mkdirat
    ],
    openat2: 437,
    clone3: 435,
    fcntl: 25,
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
 * agent) through a unix socket file it can see, or the hypervisor through `AF_VSOCK`. The filter
 * makes `socket()` of any family but IPv4, IPv6 and netlink, and `socketpair(AF_UNIX, …)` (or,
 * when pairs are allowed, a datagram pair) fail with `EPERM`, denies io_uring and file leases
 * (`fcntl(F_SETLEASE)`), and answers
 * `clone3` and `openat2` with `ENOSYS` (their arguments are out of its reach); everything else
 * is allowed, so node, npm and git start unchanged. See
 * {@link SeccompFilterOptions.allowUnixSocketPairs} for what denying socket pairs costs.
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
  | { readonly op: "and"; readonly value: number }
  | { readonly op: "jeq" | "jge" | "jset"; readonly value: number; readonly target: string }
  | { readonly op: "return"; readonly value: number };

function filterSteps(allowUnixSocketPairs: boolean): Step[] {
  const steps: Step[] = [{ op: "load", offset: OFFSET.ARCH }];
  const entries = Object.entries(SECCOMP_ARCHITECTURES);
  for (const [name, architecture] of entries) steps.push({ op: "jeq", value: architecture.auditArch, target: name });
  steps.push({ op: "return", value: DENY });
  for (const [name, architecture] of entries) steps.push(...architectureSteps(name, architecture));
  steps.push({ op: "label", name: "socket_check" }, { op: "load", offset: OFFSET.ARG0_LOW });
  for (const family of ALLOWED_SOCKET_FAMILIES) steps.push({ op: "jeq", value: family, target: "allow" });
  steps.push(
    { op: "return", value: DENY },
    { op: "label", name: "pair_check" },
    { op: "load", offset: OFFSET.ARG0_LOW },
    { op: "jeq", value: AF_UNIX, target: allowUnixSocketPairs ? "pair_type_check" : "deny" },
    { op: "return", value: SECCOMP_RET.ALLOW },
    { op: "label", name: "pair_type_check" },
    { op: "load", offset: argumentOffset(1) },
    { op: "and", value: SOCKET_TYPE_MASK },
  );
  for (const type of ALLOWED_SOCKET_PAIR_TYPES) steps.push({ op: "jeq", value: type, target: "allow" });
  steps.push(
    { op: "return", value: DENY },
    { op: "label", name: "fcntl_check" },
    { op: "load", offset: argumentOffset(1) },
    { op: "jeq", value: F_SETLEASE, target: "deny" },
    { op: "return", value: SECCOMP_RET.ALLOW },
    { op: "label", name: "allow" },
    { op: "return", value: SECCOMP_RET.ALLOW },
    { op: "label", name: "deny" },
    { op: "return", value: DENY },
    { op: "label", name: "no_such_call" },
    { op: "return", value: SECCOMP_RET.ERRNO | ENOSYS },
  );
  return steps;
}

function architectureSteps(name: string, architecture: SeccompArchitecture): Step[] {
  const steps: Step[] = [
    { op: "label", name },
    { op: "load", offset: OFFSET.NR },
  ];
  if (architecture.denyX32) steps.push({ op: "jge", value: X32_SYSCALL_BIT, target: "deny" });
  steps.push({ op: "jeq", value: architecture.socket, target: "socket_check" });
  steps.push({ op: "jeq", value: architecture.socketpair, target: "pair_check" });
  for (const call of architecture.deniedCalls) steps.push({ op: "jeq", value: call, target: "deny" });
  steps.push({ op: "jeq", value: architecture.openat2, target: "no_such_call" });
  steps.push({ op: "jeq", value: architecture.clone3, target: "no_such_call" });
  steps.push({ op: "jeq", value: architecture.fcntl, target: "fcntl_check" });
  architecture.modeSetting.forEach((call, index) => {
    steps.push({ op: "jeq", value: call.nr, target: `${name}_mode_${index}` });
  });
  steps.push({ op: "return", value: SECCOMP_RET.ALLOW });
  architecture.modeSetting.forEach((call, index) => {
    const label = `${name}_mode_${index}`;
    steps.push({ op: "label", name: label });
    if (call.flags !== undefined) {
      // An open that does not create a file: its mode argument is whatever was in the register.
      steps.push(
        { op: "load", offset: argumentOffset(call.flags) },
        { op: "jset", value: CREATING_OPEN_FLAGS, target: `${label}_creates` },
        { op: "return", value: SECCOMP_RET.ALLOW },
        { op: "label", name: `${label}_creates` },
      );
    }
    steps.push(
      { op: "load", offset: argumentOffset(call.mode) },
      { op: "jset", value: SET_ID_MODE_BITS, target: "deny" },
      { op: "return", value: SECCOMP_RET.ALLOW },
    );
  });
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
    else if (step.op === "and") program.push({ code: BPF.ALU_AND_K, jt: 0, jf: 0, k: step.value });
    else if (step.op === "return") program.push({ code: BPF.RET_K, jt: 0, jf: 0, k: step.value });
    else
      program.push({
        code: step.op === "jeq" ? BPF.JEQ_K : step.op === "jge" ? BPF.JGE_K : BPF.JSET_K,
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
