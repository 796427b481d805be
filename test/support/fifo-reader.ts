import { closeSync, constants, openSync } from "node:fs";

/**
 * True when some process (or a libuv thread of this one) has `fifo` open for reading: its write
 * end then opens, non-blocking, where with no reader the kernel answers `ENXIO` at once. A test
 * proves "a FIFO is refused, never waited on" with this rather than with a wall-time bound, which
 * at load 20 on 2 cores measures the machine: a read blocked on the FIFO is a reader, however
 * long anyone waits. Opening the write end also wakes such a reader (it reads end-of-file once
 * the write end is closed here), so a failing test leaves no thread blocked behind it.
 */
export function fifoHasReader(fifo: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENXIO") return false;
    throw error;
  }
  closeSync(descriptor);
  return true;
}
