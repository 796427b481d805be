/**
 * Classic BPF as the kernel's `struct sock_filter` (`linux/filter.h`): a 16-bit opcode, two 8-bit
 * jump offsets and a 32-bit constant, 8 bytes per instruction in the host's byte order. Both
 * architectures we build for (x86_64, aarch64) are little-endian.
 */
export interface BpfInstruction {
  /** The opcode: class | size | mode, or class | operation | source. */
  readonly code: number;
  /** Instructions to skip when a conditional jump is true. */
  readonly jt: number;
  /** Instructions to skip when a conditional jump is false. */
  readonly jf: number;
  /** The constant operand (offset, comparison value or return value). */
  readonly k: number;
}

/** Opcodes this package emits; named like the kernel's macros so the program reads like C. */
export const BPF = Object.freeze({
  /** `BPF_LD | BPF_W | BPF_ABS`: load the 32-bit word at offset `k` of `seccomp_data`. */
  LD_W_ABS: 0x20,
  /** `BPF_ALU | BPF_AND | BPF_K`: keep only the accumulator's bits that are set in `k`. */
  ALU_AND_K: 0x54,
  /** `BPF_JMP | BPF_JEQ | BPF_K`: jump when the accumulator equals `k`. */
  JEQ_K: 0x15,
  /** `BPF_JMP | BPF_JGE | BPF_K`: jump when the accumulator is at least `k` (unsigned). */
  JGE_K: 0x35,
  /** `BPF_JMP | BPF_JSET | BPF_K`: jump when the accumulator has any bit of `k` set. */
  JSET_K: 0x45,
  /** `BPF_JMP | BPF_JA`: jump always, by `k`. */
  JA: 0x05,
  /** `BPF_RET | BPF_K`: end with the verdict `k`. */
  RET_K: 0x06,
});

/** Bytes per encoded instruction. */
export const BPF_INSTRUCTION_SIZE = 8;

/** The kernel's limit on instructions per filter (`BPF_MAXINSNS`). */
export const BPF_MAX_INSTRUCTIONS = 4096;

/** Encodes instructions as the bytes `bwrap --seccomp` and `prctl(PR_SET_SECCOMP)` expect. */
export function encodeBpfProgram(program: readonly BpfInstruction[]): Uint8Array {
  const bytes = new Uint8Array(program.length * BPF_INSTRUCTION_SIZE);
  const view = new DataView(bytes.buffer);
  program.forEach((instruction, index) => {
    const offset = index * BPF_INSTRUCTION_SIZE;
    view.setUint16(offset, instruction.code, true);
    view.setUint8(offset + 2, instruction.jt);
    view.setUint8(offset + 3, instruction.jf);
    view.setUint32(offset + 4, instruction.k >>> 0, true);
  });
  return bytes;
}

/** Decodes bytes back into instructions; lets tests and tools inspect a compiled filter. */
export function decodeBpfProgram(bytes: Uint8Array): BpfInstruction[] {
  if (bytes.length % BPF_INSTRUCTION_SIZE !== 0) {
    throw new RangeError(`A BPF program is a multiple of ${BPF_INSTRUCTION_SIZE} bytes; got ${bytes.length}.`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const program: BpfInstruction[] = [];
  for (let offset = 0; offset < bytes.length; offset += BPF_INSTRUCTION_SIZE) {
    program.push({
      code: view.getUint16(offset, true),
      jt: view.getUint8(offset + 2),
      jf: view.getUint8(offset + 3),
      k: view.getUint32(offset + 4, true),
    });
  }
  return program;
}
