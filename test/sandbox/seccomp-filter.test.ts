import { describe, expect, it } from "vitest";
import { BPF, decodeBpfProgram, encodeBpfProgram } from "../../src/tools/sandbox/bpf-instruction.js";
import {
  AF_UNIX,
  AUDIT_ARCH,
  buildSeccompFilter,
  ENOSYS,
  F_SETLEASE,
  type ModeSettingCall,
  SECCOMP_ARCHITECTURES,
  SECCOMP_RET,
  X32_SYSCALL_BIT,
} from "../../src/tools/sandbox/seccomp-filter.js";
import { evaluateSeccomp } from "./support/bpf-interpreter.js";

const EPERM = SECCOMP_RET.ERRNO | 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_VSOCK = 40;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_RAW = 3;
const SOCK_SEQPACKET = 5;
/** `SOCK_NONBLOCK | SOCK_CLOEXEC`: flags a type argument may carry beside the type. */
const SOCKET_FLAGS = 0o4000 | 0o2000000;
const program = decodeBpfProgram(buildSeccompFilter());

describe("buildSeccompFilter", () => {
  it("is a whole number of 8-byte little-endian sock_filter records that round-trip", () => {
    const bytes = buildSeccompFilter();
    expect(bytes.length % 8).toBe(0);
    expect(bytes.length / 8).toBe(program.length);
    expect(encodeBpfProgram(program)).toEqual(bytes);
    // First instruction: BPF_LD|BPF_W|BPF_ABS of seccomp_data.arch (offset 4).
    expect([...bytes.subarray(0, 8)]).toEqual([0x20, 0, 0, 0, 4, 0, 0, 0]);
    const opcodes: number[] = Object.values(BPF);
    expect(program.every((instruction) => opcodes.includes(instruction.code))).toBe(true);
  });

  it("ends every path with a return", () => {
    const last = program.at(-1);
    expect(last?.code).toBe(BPF.RET_K);
    program.forEach((instruction, index) => {
      if (instruction.code === BPF.JEQ_K || instruction.code === BPF.JGE_K || instruction.code === BPF.JSET_K) {
        expect(index + 1 + instruction.jt).toBeLessThan(program.length);
        expect(index + 1 + instruction.jf).toBeLessThan(program.length);
      }
    });
  });

  describe.each(Object.entries(SECCOMP_ARCHITECTURES))("on %s", (_name, architecture) => {
    const arch = architecture.auditArch;
    const { socket, socketpair } = architecture;

    it("denies socket(AF_UNIX) and socketpair(AF_UNIX) with EPERM", () => {
      expect(evaluateSeccomp(program, { arch, nr: socket, args: [AF_UNIX, 1, 0] })).toBe(EPERM);
      expect(evaluateSeccomp(program, { arch, nr: socketpair, args: [AF_UNIX, 1, 0] })).toBe(EPERM);
    });

    it("judges the domain by its low 32 bits, as the kernel truncates an int argument", () => {
      expect(evaluateSeccomp(program, { arch, nr: socket, args: [2 ** 32 + AF_UNIX] })).toBe(EPERM);
    });

    it("allows inet sockets (the network namespace cuts those)", () => {
      expect(evaluateSeccomp(program, { arch, nr: socket, args: [AF_INET, 1, 0] })).toBe(SECCOMP_RET.ALLOW);
      expect(evaluateSeccomp(program, { arch, nr: socketpair, args: [AF_INET6] })).toBe(SECCOMP_RET.ALLOW);
    });

    it.each([425, 426, 427])("denies io_uring call %i", (nr) => {
      expect(evaluateSeccomp(program, { arch, nr })).toBe(EPERM);
    });

    it.each([0, 1, 56, 57, 59, 63, 64, 221, 424, 428])("allows unrelated call %i", (nr) => {
      expect(evaluateSeccomp(program, { arch, nr, args: [AF_UNIX] })).toBe(SECCOMP_RET.ALLOW);
    });
  });

  describe.each(Object.entries(SECCOMP_ARCHITECTURES))("set-user-id and set-group-id bits on %s", (_name, architecture) => {
    const arch = architecture.auditArch;
    /** The call's arguments with `mode` in its mode argument and `flags` in its flags argument. */
    const argsOf = (call: ModeSettingCall, mode: number, flags = 0) => {
      const args = [0, 0, 0, 0, 0, 0];
      args[call.mode] = mode;
      if (call.flags !== undefined) args[call.flags] = flags;
      return args;
    };
    const O_CREAT = 0o100;
    const O_TMPFILE = 0o20200000;

    it.each(architecture.modeSetting.map((call) => [call.nr, call] as const))(
      "denies call %i with S_ISUID or S_ISGID in its mode",
      (_nr, call) => {
        for (const mode of [0o4755, 0o2755, 0o6777, 0o104755, 0o4000]) {
          expect(evaluateSeccomp(program, { arch, nr: call.nr, args: argsOf(call, mode, O_CREAT) })).toBe(EPERM);
        }
        expect(evaluateSeccomp(program, { arch, nr: call.nr, args: argsOf(call, 2 ** 32 + 0o4755, O_CREAT) })).toBe(EPERM);
        for (const mode of [0o755, 0o644, 0o1777, 0o100644, 0o40755]) {
          expect(evaluateSeccomp(program, { arch, nr: call.nr, args: argsOf(call, mode, O_CREAT) })).toBe(SECCOMP_RET.ALLOW);
        }
      },
    );

    it("judges an open's mode only when it creates (O_CREAT, O_TMPFILE); openat2 is ENOSYS", () => {
      for (const call of architecture.modeSetting.filter((entry) => entry.flags !== undefined)) {
        expect(evaluateSeccomp(program, { arch, nr: call.nr, args: argsOf(call, 0o4755, 0) })).toBe(SECCOMP_RET.ALLOW);
        expect(evaluateSeccomp(program, { arch, nr: call.nr, args: argsOf(call, 0o4755, O_TMPFILE | 2) })).toBe(EPERM);
      }
      expect(evaluateSeccomp(program, { arch, nr: architecture.openat2 })).toBe(SECCOMP_RET.ERRNO | ENOSYS);
    });

    it("answers clone3 (flags out of the filter's reach: CLONE_INTO_CGROUP) with ENOSYS, so callers use clone", () => {
      expect(architecture.clone3).toBe(435);
      expect(evaluateSeccomp(program, { arch, nr: architecture.clone3 })).toBe(SECCOMP_RET.ERRNO | ENOSYS);
    });

    it("denies fcntl(F_SETLEASE) (a lease on a host file stalls host processes' opens) and allows other commands", () => {
      expect(evaluateSeccomp(program, { arch, nr: architecture.fcntl, args: [3, F_SETLEASE, 1] })).toBe(EPERM);
      // F_GETFL, F_SETFL, F_SETLK, F_GETLEASE, F_DUPFD_CLOEXEC.
      for (const command of [3, 4, 6, 1025, 1030])
        expect(evaluateSeccomp(program, { arch, nr: architecture.fcntl, args: [3, command, 0] })).toBe(SECCOMP_RET.ALLOW);
    });
  });

  it("can let socketpair(AF_UNIX) through while socket(AF_UNIX) stays denied", () => {
    const relaxed = decodeBpfProgram(buildSeccompFilter({ allowUnixSocketPairs: true }));
    for (const { auditArch: arch, socket, socketpair } of Object.values(SECCOMP_ARCHITECTURES)) {
      expect(evaluateSeccomp(relaxed, { arch, nr: socketpair, args: [AF_UNIX, SOCK_STREAM] })).toBe(SECCOMP_RET.ALLOW);
      expect(evaluateSeccomp(relaxed, { arch, nr: socket, args: [AF_UNIX] })).toBe(EPERM);
      expect(evaluateSeccomp(relaxed, { arch, nr: 425 })).toBe(EPERM);
    }
  });

  it("allows socket() of IPv4, IPv6 and netlink only: vsock (the hypervisor) and other families are denied", () => {
    for (const { auditArch: arch, socket } of Object.values(SECCOMP_ARCHITECTURES)) {
      for (const family of [AF_INET, AF_INET6, AF_NETLINK]) {
        expect(evaluateSeccomp(program, { arch, nr: socket, args: [family, SOCK_STREAM] })).toBe(SECCOMP_RET.ALLOW);
      }
      // AF_VSOCK, AF_UNIX, AF_PACKET, AF_BLUETOOTH, AF_CAN, AF_TIPC, AF_ALG, AF_XDP, and the family 0.
      for (const family of [AF_VSOCK, AF_UNIX, 17, 31, 29, 30, 38, 44, 0]) {
        expect(evaluateSeccomp(program, { arch, nr: socket, args: [family, SOCK_STREAM] })).toBe(EPERM);
        expect(evaluateSeccomp(program, { arch, nr: socket, args: [2 ** 32 * 7 + family, SOCK_STREAM] })).toBe(EPERM);
      }
    }
  });

  it("lets only stream and seqpacket unix pairs through: a datagram pair could sendto() any socket file", () => {
    const relaxed = decodeBpfProgram(buildSeccompFilter({ allowUnixSocketPairs: true }));
    for (const { auditArch: arch, socketpair } of Object.values(SECCOMP_ARCHITECTURES)) {
      for (const type of [SOCK_STREAM, SOCK_SEQPACKET, SOCK_STREAM | SOCKET_FLAGS, SOCK_SEQPACKET | SOCKET_FLAGS]) {
        expect(evaluateSeccomp(relaxed, { arch, nr: socketpair, args: [AF_UNIX, type] })).toBe(SECCOMP_RET.ALLOW);
      }
      for (const type of [SOCK_DGRAM, SOCK_RAW, SOCK_DGRAM | SOCKET_FLAGS, SOCK_RAW | SOCKET_FLAGS, 0, 4]) {
        expect(evaluateSeccomp(relaxed, { arch, nr: socketpair, args: [AF_UNIX, type] })).toBe(EPERM);
        expect(evaluateSeccomp(program, { arch, nr: socketpair, args: [AF_UNIX, type] })).toBe(EPERM);
      }
      expect(evaluateSeccomp(program, { arch, nr: socketpair, args: [AF_UNIX, SOCK_STREAM] })).toBe(EPERM);
    }
  });

  it("uses the right numbers per architecture (x86_64 41 is not a socket call on aarch64)", () => {
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.X86_64, nr: 41, args: [AF_UNIX] })).toBe(EPERM);
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.AARCH64, nr: 41, args: [AF_UNIX] })).toBe(SECCOMP_RET.ALLOW);
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.AARCH64, nr: 198, args: [AF_UNIX] })).toBe(EPERM);
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.X86_64, nr: 198, args: [AF_UNIX] })).toBe(SECCOMP_RET.ALLOW);
  });

  it("denies every x32 call on x86_64, including x32 socket", () => {
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.X86_64, nr: X32_SYSCALL_BIT + 41, args: [AF_INET] })).toBe(EPERM);
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.X86_64, nr: X32_SYSCALL_BIT })).toBe(EPERM);
    expect(evaluateSeccomp(program, { arch: AUDIT_ARCH.AARCH64, nr: X32_SYSCALL_BIT })).toBe(SECCOMP_RET.ALLOW);
  });

  it.each([
    ["i386 (int 0x80 from x86_64)", 0x4000_0003],
    ["arm", 0x4000_0028],
    ["riscv64", 0xc000_00f3],
  ])("fails closed on an unknown architecture: %s", (_label, arch) => {
    expect(evaluateSeccomp(program, { arch, nr: 1 })).toBe(EPERM);
    expect(evaluateSeccomp(program, { arch, nr: 102, args: [AF_UNIX] })).toBe(EPERM);
  });

  it("decodes what it encodes and rejects truncated programs", () => {
    const instructions = [{ code: BPF.RET_K, jt: 1, jf: 2, k: 0xdead_beef }];
    expect(decodeBpfProgram(encodeBpfProgram(instructions))).toEqual(instructions);
    expect(() => decodeBpfProgram(new Uint8Array(7))).toThrow(RangeError);
  });
});
