import { BPF, type BpfInstruction } from "../../../src/tools/sandbox/bpf-instruction.js";

/** The part of `struct seccomp_data` a filter reads. */
export interface SeccompCall {
  readonly arch: number;
  readonly nr: number;
  readonly args?: readonly number[];
}

/**
 * Runs a decoded classic-BPF seccomp program over one call, like the kernel does, for the opcodes
 * the builder emits. Anything else fails the test, so an unexpected instruction cannot pass.
 */
export function evaluateSeccomp(program: readonly BpfInstruction[], call: SeccompCall): number {
  const data = seccompData(call);
  let accumulator = 0;
  for (let pc = 0; pc < program.length; ) {
    const instruction = program[pc];
    if (instruction === undefined) break;
    switch (instruction.code) {
      case BPF.LD_W_ABS:
        if (instruction.k % 4 !== 0 || instruction.k + 4 > data.byteLength) throw new Error(`bad load offset ${instruction.k}`);
        accumulator = data.getUint32(instruction.k, true);
        pc++;
        break;
      case BPF.ALU_AND_K:
        accumulator = (accumulator & instruction.k) >>> 0;
        pc++;
        break;
      case BPF.JEQ_K:
        pc += 1 + (accumulator === instruction.k ? instruction.jt : instruction.jf);
        break;
      case BPF.JGE_K:
        pc += 1 + (accumulator >= instruction.k ? instruction.jt : instruction.jf);
        break;
      case BPF.JSET_K:
        pc += 1 + ((accumulator & instruction.k) !== 0 ? instruction.jt : instruction.jf);
        break;
      case BPF.JA:
        pc += 1 + instruction.k;
        break;
      case BPF.RET_K:
        return instruction.k;
      default:
        throw new Error(`unexpected opcode 0x${instruction.code.toString(16)} at ${pc}`);
    }
  }
  throw new Error("the program fell off its end without returning");
}

function seccompData(call: SeccompCall): DataView {
  const view = new DataView(new ArrayBuffer(64));
  view.setInt32(0, call.nr, true);
  view.setUint32(4, call.arch, true);
  (call.args ?? []).forEach((argument, index) => {
    view.setBigUint64(16 + index * 8, BigInt(argument), true);
  });
  return view;
}
