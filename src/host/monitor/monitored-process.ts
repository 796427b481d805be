import { OutputReading, readOutputToEnd } from "../../tools/sandbox/output-reading.js";
import type { SandboxedExit, SandboxedProcess } from "../../tools/sandbox/process-sandbox.js";
import { OutputBuffer } from "./output-buffer.js";

/** A background command and what it printed (stdout and stderr interleaved as they came). */
export class MonitoredProcess {
  readonly id: string;
  readonly command: string;
  readonly startedAt: number;
  readonly output: OutputBuffer;
  exit: SandboxedExit | undefined;
  /**
   * True when, after the exit, a process still held the output open that could not be ended, so
   * reading stopped (the output may miss what it wrote later); set with {@link exit}.
   */
  outputHeldOpen = false;
  /** Where the model's last poll stopped. */
  cursor = 0;
  private readonly process: SandboxedProcess;
  private readonly listeners = new Set<() => void>();
  readonly exited: Promise<SandboxedExit>;

  constructor(id: string, command: string, process: SandboxedProcess, capacity: number, now: number) {
    this.id = id;
    this.command = command;
    this.process = process;
    this.startedAt = now;
    this.output = new OutputBuffer(capacity);
    const onData = (chunk: Buffer) => {
      this.output.push(chunk);
      this.notify();
    };
    const readings = [new OutputReading(process.stdout, onData), new OutputReading(process.stderr, onData)];
    // Exited once its output is read to the end (or reading stopped, for a process holding it
    // open): the exit's answer ("exited", with what it printed last) must not come before the
    // last chunk the command wrote, which the host may read after it learned of the exit.
    this.exited = process.exited.then(async (exit) => {
      this.outputHeldOpen = await readOutputToEnd(process, readings);
      this.exit = exit;
      this.notify();
      return exit;
    });
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** Calls `listener` on every output chunk and on exit; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the process and everything it started (its process group, or the sandbox's namespace). */
  stop(): void {
    if (this.running) this.process.kill("SIGKILL");
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
