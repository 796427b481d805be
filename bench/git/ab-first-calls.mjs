// Development aid: first calls of four git tools, as the bench's cold column measures them (an
// empty cache each, after one warm-up pass of all four), in CPU milliseconds (medians of 3), and
// the heap and array buffers a cache retains after the bench's pickaxe sequence. Run it with an
// old and a new build alternately, in fresh processes, for an A/B that the machine's load does
// not decide.
// Usage: node --expose-gc bench/git/ab-first-calls.mjs <dist directory> <repository> <busy file> <its line count>

import v8 from "node:v8";

const [dist, repository, busyFile, lineCount] = process.argv.slice(2);
const { createGitTools, GIT_TOOL_NAMES, createGitCache } = await import(`${dist}/git/index.js`);
const { createRegistry } = await import(`${dist}/index.js`);
const collect = globalThis.gc;
if (collect === undefined) throw new Error("Run with --expose-gc.");

const newRun = (cache) => {
  const run = createRegistry({ tools: createGitTools({ cache }) }).createRun({ permissions: { workspace: repository } });
  run.activate([...GIT_TOOL_NAMES]);
  return run;
};
const cases = {
  wholeHistoryPickaxe: ["git_log_search", { query: "RARE_TOKEN", mode: "pickaxe", max_results: 200 }],
  followUpPickaxe: ["git_log_search", { query: "cache_", mode: "pickaxe", max_results: 200 }],
  blame: ["git_blame_context", { path: busyFile, start_line: 1, end_line: Number(lineCount), context: 0 }],
  fileHistory: ["git_file_history", { path: busyFile, max_results: 200, follow_renames: false }],
};
const check = (result) => {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result;
};

const warmUp = createGitCache();
const warmUpRun = newRun(warmUp);
for (const [tool, args] of Object.values(cases)) check(await warmUpRun.call(tool, args));
warmUp.clear();

const cpu = {};
for (let repeat = 0; repeat < 3; repeat++) {
  for (const [name, [tool, args]] of Object.entries(cases)) {
    const cache = createGitCache();
    const run = newRun(cache);
    collect();
    const before = process.cpuUsage();
    check(await run.call(tool, args));
    const used = process.cpuUsage(before);
    cpu[name] ??= [];
    cpu[name].push((used.user + used.system) / 1000);
    cache.clear();
  }
}

// The bench's sequence on one cache: the whole-history pickaxe (cleared, then again), then the follow-up.
collect();
const heapBefore = v8.getHeapStatistics().used_heap_size;
const cache = createGitCache();
const run = newRun(cache);
check(await run.call(...cases.wholeHistoryPickaxe));
cache.clear();
check(await run.call(...cases.wholeHistoryPickaxe));
check(await run.call(...cases.followUpPickaxe));
collect();
const retainedMiB = (v8.getHeapStatistics().used_heap_size - heapBefore) / 1048576;
const arrayBuffersMiB = process.memoryUsage().arrayBuffers / 1048576;
cache.clear();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const medians = Object.fromEntries(Object.entries(cpu).map(([name, values]) => [name, Math.round(median(values))]));
console.log(
  JSON.stringify({
    cpuMs: medians,
    retainedMiB: Number(retainedMiB.toFixed(1)),
    arrayBuffersMiB: Number(arrayBuffersMiB.toFixed(1)),
  }),
);
