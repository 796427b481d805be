/**
 * Development aid: the bench's pickaxe sequence in one process, as `measureCase` runs it (one
 * warm-up pass of every case, then per run: the whole-history pickaxe on an empty cache, its warm
 * repeat, clear and collect; then the follow-up query on an empty cache), printing per first call
 * wall and CPU time, collections (count and ms), minor page faults and the heap the cache retained.
 * `node --expose-gc --import tsx bench/git/profile-follow-up.ts [runs]`; add `--trace-gc` or
 * `--cpu-prof` to see where the time goes.
 */

import { execFileSync } from "node:child_process";
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import { createRegistry } from "agent-tool-catalog";
import { createGitCache, createGitTools, GIT_TOOL_NAMES, type GitCache } from "../../src/git/index.js";
import { benchCases, cachedSyntheticHistory } from "./git-bench.js";

const history = cachedSyntheticHistory(20_000);
const show = execFileSync("git", ["-C", history.directory, "show", `HEAD:${history.busyFile}`], { encoding: "utf8" });
const cases = benchCases({ ...history, lines: show.split("\n").length - 1 });
const runs = Number(process.argv[2] ?? 5);
const collect = () => (globalThis as { gc?: () => void }).gc?.();
const newRun = (cache: GitCache) => {
  const run = createRegistry({ tools: createGitTools({ cache }) }).createRun({ permissions: { workspace: history.directory } });
  run.activate([...GIT_TOOL_NAMES]);
  return run;
};

const collections = { count: 0, ms: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    collections.count++;
    collections.ms += entry.duration;
  }
}).observe({ entryTypes: ["gc"] });

const warmUpCache = createGitCache();
const warmUp = newRun(warmUpCache);
for (const benchCase of cases) await warmUp.call(benchCase.tool, benchCase.args);
warmUpCache.clear();

const sequence = cases.filter((benchCase) => benchCase.label.startsWith("log search, pickaxe"));
for (let index = 0; index < runs; index++) {
  for (const benchCase of sequence) {
    const cache = createGitCache();
    const run = newRun(cache);
    collect();
    const heap = v8.getHeapStatistics().used_heap_size;
    const [usage, gcCount, gcMs, started] = [process.resourceUsage(), collections.count, collections.ms, performance.now()];
    const result = await run.call(benchCase.tool, benchCase.args);
    const wall = performance.now() - started;
    const after = process.resourceUsage();
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    // Let the collection entries of the call arrive before they are read.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collect();
    const retained = (v8.getHeapStatistics().used_heap_size - heap) / 1048576;
    const cpu = (after.userCPUTime - usage.userCPUTime + after.systemCPUTime - usage.systemCPUTime) / 1000;
    console.log(
      `${benchCase.label.padEnd(48)} first call ${wall.toFixed(0).padStart(5)} ms wall ${cpu.toFixed(0).padStart(5)} ms CPU; ` +
        `gc ${collections.count - gcCount} (${(collections.ms - gcMs).toFixed(0)} ms); ` +
        `minor faults ${after.minorPageFault - usage.minorPageFault}; cache retains ${retained.toFixed(1)} MiB`,
    );
    cache.clear();
  }
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
