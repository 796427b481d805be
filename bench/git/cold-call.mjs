// One git tool call in a fresh node process, as a host that starts, answers and exits would pay
// it: module loading, repository opening and the call. Prints the answer's size, the peak RSS
// and where the time went: node's own start (before this module runs), importing the package's
// root and git entries, and the call.
// Usage: node bench/git/cold-call.mjs <repository> <tool> <json arguments> [dist directory, default ../../dist]

import { readFileSync } from "node:fs";

const booted = performance.now();
const cpuNow = () => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
const bootCpu = cpuNow();
const [directory, tool, args, dist = "../../dist"] = process.argv.slice(2);
const { createGitTools, GIT_TOOL_NAMES } = await import(`${dist}/git/index.js`);
const { createRegistry } = await import(`${dist}/index.js`);
const imported = performance.now();
const importedCpu = cpuNow();

const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: directory } });
run.activate([...GIT_TOOL_NAMES]);
const result = await run.call(tool, JSON.parse(args));
const called = performance.now();
const calledCpu = cpuNow();
if (!result.ok) {
  process.stderr.write(JSON.stringify(result.error));
  process.exit(1);
}

/**
 * This process's own peak RSS: VmHWM belongs to its address space, while getrusage's maxRSS
 * keeps the high-water mark of the process it was forked from (the bench, hundreds of MiB).
 */
function peakRssKb() {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "latin1"));
    if (match !== null) return Number(match[1]);
  } catch {
    // Not Linux: the rusage figure, an upper bound.
  }
  return process.resourceUsage().maxRSS;
}

process.stdout.write(
  JSON.stringify({
    bytes: JSON.stringify(result.output).length,
    maxRssKb: peakRssKb(),
    bootMs: booted,
    importMs: imported - booted,
    callMs: called - imported,
    // The whole process's CPU time so far (all its threads), in microseconds' resolution, and its
    // split: node's start (before this module ran), importing the two entries, the call.
    cpuMs: cpuNow(),
    bootCpuMs: bootCpu,
    importCpuMs: importedCpu - bootCpu,
    callCpuMs: calledCpu - importedCpu,
  }),
);
