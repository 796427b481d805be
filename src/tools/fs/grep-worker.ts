import { Worker } from "node:worker_threads";
import { ToolError } from "agent-tool-catalog";
import { CPU_LIMIT_WALL_FACTOR, type CpuLimitStart, cpuLimitRecheckMs, readThreadCpuMs } from "../../tool/thread-cpu-time.js";

/**
 * The worker's source, evaluated as CommonJS in a worker thread (no file to locate in the ESM
 * and CJS builds). It compiles the pattern once and answers each batch of texts with the
 * indices of matching lines, split on `\n` only as ripgrep does (a `\r` stays in the line).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
let statPath;
try {
  statPath = "/proc/" + require("node:fs").readlinkSync("/proc/thread-self") + "/stat";
} catch {}
parentPort.postMessage({ statPath });
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on("message", (batch) => {
  const results = batch.texts.map((text) => {
    if (text === "") return [];
    const lines = text.split("\\n");
    if (text.endsWith("\\n")) lines.pop();
    const found = [];
    for (let index = 0; index < lines.length; index++) if (regex.test(lines[index])) found.push(index);
    return found;
  });
  parentPort.postMessage({ id: batch.id, results });
});
`;

/**
 * A worker that could not start for want of descriptors, as the model's error; any other error
 * of the worker as it is.
 */
function workerFailure(error: Error): Error {
  if (error instanceof ToolError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ERR_WORKER_INIT_FAILED" && /\bE[MN]FILE\b/.test(error.message)) {
    return new ToolError(
      "too_many_open_files",
      "grep could not start its matching thread: too many files are open in this process.",
      {
        hint: "Try again in a moment, with fewer calls at once.",
      },
    );
  }
  return error;
}

/** Thrown when matching took longer than the deadline; the worker was terminated. */
export class MatchDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`matching took longer than ${deadlineMs} ms`);
    this.name = "MatchDeadlineError";
  }
}

/**
 * Runs a model's regular expression off the host's event loop: a worker thread matches, and a
 * batch that does not finish within `deadlineMs` (catastrophic backtracking such as `^(a+)+$`)
 * or an abort terminates the worker, which stops the match in the middle (V8 cannot be
 * interrupted any other way).
 *
 * The deadline measures the match, not the host: it starts once the worker runs and has named its
 * /proc stat file (starting a thread on a loaded host took seconds, and a trivial pattern was
 * answered `pattern_too_slow`),
 * and when it is up the loop takes one turn to receive an answer the worker already sent (on a
 * starved loop the timer fired in the same iteration the answer arrived, before it was read).
 * On Linux it counts the worker thread's CPU time (read from its /proc stat file, which the
 * worker names when it starts): a thread that waits for a CPU on a loaded host has not matched,
 * so the deadline is met only once the thread has run that long, or once
 * `CPU_LIMIT_WALL_FACTOR` times it has passed in wall time (a thread that gets no CPU at all).
 * Elsewhere it is wall time.
 */
export class LineMatcher {
  private readonly worker: Worker;
  private nextId = 0;
  private closed = false;
  /** Why the worker died outside a match (it could not start): later matches fail with it. */
  private failure: Error | undefined;
  /**
   * Settles once the worker runs and sent its first message, naming its stat file (never rejects:
   * a worker that cannot start emits 'error').
   */
  private readonly ready: Promise<void>;
  /** The worker thread's /proc stat file, once it named it (Linux). */
  private statPath: string | undefined;

  constructor(
    source: string,
    flags: string,
    private readonly deadlineMs: number,
    /** The thread CPU clock (a seam for tests: a thread the host starved is hard to make at will). */
    private readonly readCpu: (statPath: string) => number | undefined = readThreadCpuMs,
  ) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source, flags } });
    this.worker.unref();
    this.ready = new Promise((resolve) => {
      const named = (message: { id?: number; statPath?: string }) => {
        if (message.id !== undefined) return;
        this.statPath = message.statPath;
        this.worker.off("message", named);
        resolve();
      };
      this.worker.on("message", named);
    });
    // A worker that cannot start (no descriptors left: ERR_WORKER_INIT_FAILED, EMFILE) says so
    // with an 'error' event, often while no match listens (the file is still being read): unheard,
    // that event ended the host process.
    this.worker.on("error", (error: Error) => {
      this.failure ??= workerFailure(error);
    });
  }

  /** Indices of the matching lines of each text. */
  match(texts: readonly string[], signal: AbortSignal): Promise<number[][]> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error("the matcher is closed"));
    // A signal that fired between two pieces (while a file was read) sends no further "abort" event.
    if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (error: Error | undefined, results?: number[][]) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.worker.off("message", onMessage);
        this.worker.off("error", onError);
        if (error !== undefined) {
          void this.close();
          reject(error);
        } else resolve(results as number[][]);
      };
      const onMessage = (message: { id: number; results: number[][] }) => {
        if (message.id === id) finish(undefined, message.results);
      };
      const onError = (error: Error) => finish(workerFailure(error));
      const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      // setImmediate runs after the loop's poll for I/O, which delivers an answer already sent.
      const expire = () => setImmediate(() => finish(new MatchDeadlineError(this.deadlineMs)));
      let limit: CpuLimitStart | undefined;
      // At the deadline in wall time: expired, or looked at again when it could be.
      const check = () => {
        const recheckMs = limit === undefined ? 0 : cpuLimitRecheckMs(limit, this.cpuMs());
        if (recheckMs === 0) expire();
        else timer = setTimeout(check, recheckMs);
      };
      void this.ready.then(() => {
        if (settled) return;
        limit = {
          limitMs: this.deadlineMs,
          wallFactor: CPU_LIMIT_WALL_FACTOR,
          startWallMs: performance.now(),
          startCpuMs: this.cpuMs(),
        };
        timer = setTimeout(check, this.deadlineMs);
      });
      this.worker.on("message", onMessage);
      this.worker.on("error", onError);
      signal.addEventListener("abort", onAbort, { once: true });
      this.worker.postMessage({ id, texts });
    });
  }

  /** The worker thread's CPU time now, in ms; `undefined` without /proc (or once it ended). */
  private cpuMs(): number | undefined {
    return this.statPath === undefined ? undefined : this.readCpu(this.statPath);
  }

  /** Ends the worker (mid-match if need be). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker.terminate();
  }
}
