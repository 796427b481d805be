import type { SandboxedExit, SandboxedProcess } from "../../tools/sandbox/process-sandbox.js";
import { OutputBuffer } from "./output-buffer.js";

/** A background command and what it printed (stdout and stderr interleaved as they came). */
export class MonitoredProcess {
  readonly id: string;
  readonly command: string;
  readonly startedAt: number;
  readonly output: OutputBuffer;
  exit: SandboxedExit | undefined;
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
    const onData = (chunk: Buffer | string) => {
      this.output.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      this.notify();
    };
    // A stream error (the process was killed) ends its output; `exited` says what happened.
    process.stdout.on("data", onData).on("error", () => undefined);
    process.stderr.on("data", onData).on("error", () => undefined);
    this.exited = process.exited.then((exit) => {
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
