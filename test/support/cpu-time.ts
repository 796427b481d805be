/**
 * CPU time of synchronous work, for tests that bound how much work something does ("linear",
 * "bounded"). Wall time measures the machine's load as well: on 2 shared cores at load 20 the same
 * call took 200-1,150 ms of wall time and 26-65 ms of CPU. The process's CPU time (user + system,
 * every thread, so a helper thread's work counts too) stays what the work costs.
 */
export function cpuMsOf<T>(work: () => T): { result: T; cpuMs: number } {
  const before = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(before);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

/** This process's CPU time (user + system, every thread) since `since`, in ms: for asynchronous work. */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}
