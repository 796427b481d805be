import type { Readable } from "node:stream";
import type { SandboxedProcess } from "./process-sandbox.js";

/**
 * One output stream of a command, read to its end as it comes. Reading can be stopped (a process
 * keeps the stream open past the grace) without losing what already reached the host: what the
 * stream holds in its buffer is handed on first.
 */
export class OutputReading {
  /** Bytes handed on so far. */
  received = 0;
  /** True once the stream ended, failed or was stopped: nothing more comes. */
  finished = false;
  /** Settles when {@link finished} becomes true. */
  readonly done: Promise<void>;
  private readonly stream: Readable;
  private settle: () => void = () => undefined;

  constructor(stream: Readable, onChunk: (chunk: Buffer) => void) {
    this.stream = stream;
    this.done = new Promise<void>((resolve) => {
      this.settle = () => {
        if (this.finished) return;
        this.finished = true;
        resolve();
      };
    });
    stream.on("data", (chunk: Buffer | string) => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      this.received += buffer.length;
      onChunk(buffer);
    });
    // A stream error (the process was killed) ends the output; the exit says what happened.
    stream.on("error", this.settle);
    stream.once("end", this.settle);
    stream.once("close", this.settle);
  }

  /**
   * Stops reading: hands on what the stream has buffered (`read()` emits it as `data`), then
   * destroys it. Destroying alone dropped that buffer.
   */
  stop(): void {
    if (this.finished) return;
    while (this.stream.read() !== null) {
      // Each chunk read is handed on by the 'data' listener.
    }
    this.settle();
    this.stream.destroy();
  }
}

/** How long the output may stay open after the exit before the processes holding it are looked for. */
export const HOLDER_GRACE_MS = 250;

/** How long reading goes on after that before it stops (a holder nobody could end). */
export const DRAIN_GRACE_MS = 1_000;

/**
 * Reads a command's output to its end after its exit, never waiting on a process that holds it
 * open: after {@link HOLDER_GRACE_MS} the holders are killed (`kill("SIGKILL")` finds them by the
 * pipes they hold), after {@link DRAIN_GRACE_MS} more reading stops. True when reading stopped
 * that way (the output was held open), false when every stream ended.
 *
 * Nothing the command wrote is lost on the way: each grace ends only once the event loop has
 * read the pipes dry (see {@link finishedWithin}), and stopping hands on what was buffered.
 */
export async function readOutputToEnd(
  child: Pick<SandboxedProcess, "kill">,
  readings: readonly OutputReading[],
): Promise<boolean> {
  if (await finishedWithin(readings, HOLDER_GRACE_MS)) return false;
  child.kill("SIGKILL");
  if (await finishedWithin(readings, DRAIN_GRACE_MS)) return false;
  for (const reading of readings) reading.stop();
  return true;
}

/**
 * True when every reading finished within `ms`. The clock alone decides nothing: on a host whose
 * event loop was starved (busy with other calls' work), the timer fired before the loop had read
 * what the command wrote before it exited, and the result claimed the output was held open and
 * lost what was still in the pipe. So once the time is up the loop takes turns, each of which
 * reads whatever the pipes hold (a timer's `setImmediate` runs after that iteration's poll for
 * I/O), for as long as output keeps coming; only turns that bring nothing new end the wait.
 */
export async function finishedWithin(readings: readonly OutputReading[], ms: number): Promise<boolean> {
  const all = Promise.all(readings.map((reading) => reading.done));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    if (await Promise.race([all.then(() => true), late])) return true;
  } finally {
    clearTimeout(timer);
  }
  let quiet = 0;
  // Bounded: a holder that writes without end keeps every turn busy.
  for (let turn = 0; turn < MAX_DRAIN_TURNS && quiet < QUIET_TURNS; turn++) {
    const before = receivedBy(readings);
    await nextTurn();
    if (readings.every((reading) => reading.finished)) return true;
    quiet = receivedBy(readings) === before ? quiet + 1 : 0;
  }
  return readings.every((reading) => reading.finished);
}

/**
 * Turns without new output after which a stream still open is taken as held open. Two, not one:
 * a stream whose reading paused for its consumer resumes reading only at the next poll.
 */
const QUIET_TURNS = 2;

/**
 * Most turns taken after a grace. What the command wrote before it exited is at most what the
 * kernel buffers for a pipe or socket (hundreds of KiB), read in the first turn or two (each
 * reads up to 2 MiB per stream); the rest only stop a holder that keeps writing from keeping the
 * call open.
 */
const MAX_DRAIN_TURNS = 64;

function receivedBy(readings: readonly OutputReading[]): number {
  let total = 0;
  for (const reading of readings) total += reading.received;
  return total;
}

/** One turn of the event loop: resolves in the check phase, after the loop polled for I/O. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
