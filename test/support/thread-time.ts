/**
 * The calling thread's own time, for tests that bound how busy the event loop is. The process's
 * CPU time (`process.cpuUsage`) counts every thread (V8's concurrent marking and compiling, the
 * libuv pool): work that does not hold the event loop. And CPU over wall time measures the
 * machine's load as much as the code: a thread that wants to run but waits for a CPU (on 2 shared
 * cores at load 8-30, most of the time) looks idle. Linux's `/proc/thread-self/schedstat` gives
 * both: the time this thread ran, and the time it waited runnable in the run queue.
 */
import { readFileSync } from "node:fs";

/** Milliseconds this thread ran, and waited runnable for a CPU, since some fixed moment. */
export interface ThreadTimes {
  readonly ranMs: number;
  readonly waitedMs: number;
  readonly wallMs: number;
}

/** Whether the thread's own times can be read here (Linux); elsewhere the process's CPU stands in. */
export const threadTimesExact = (() => {
  try {
    readFileSync("/proc/thread-self/schedstat", "utf8");
    return true;
  } catch {
    return false;
  }
})();

/** The calling thread's times now (see {@link ThreadTimes}); without schedstat: the process's CPU, no wait. */
export function threadTimes(): ThreadTimes {
  const wallMs = performance.now();
  if (!threadTimesExact) {
    const used = process.cpuUsage();
    return { ranMs: (used.user + used.system) / 1000, waitedMs: 0, wallMs };
  }
  const [ran = "0", waited = "0"] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ");
  return { ranMs: Number(ran) / 1e6, waitedMs: Number(waited) / 1e6, wallMs };
}

/**
 * How busy the thread was since `since`: the time it ran over the time it could have run (wall
 * time less its wait for a CPU), so a machine's load neither hides a busy loop nor makes an idle
 * one look busy. Also the parts, for messages.
 */
export function busySince(since: ThreadTimes): { busy: number; ranMs: number; availableMs: number } {
  const now = threadTimes();
  const ranMs = now.ranMs - since.ranMs;
  const availableMs = now.wallMs - since.wallMs - (now.waitedMs - since.waitedMs);
  return { busy: availableMs > 0 ? ranMs / availableMs : 0, ranMs, availableMs };
}
