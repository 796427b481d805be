/**
 * Development aid: profiles the first call on an empty cache of the bench cases whose label has
 * the filter (after one pass of every case, as the bench's warm-up), with the inspector at a
 * 0.1 ms interval, and prints the functions with the most samples in those calls alone, self and
 * inclusive. Samples are counted (0.1 ms each), not time deltas, which on a loaded machine also
 * count time the process was descheduled. `node --expose-gc --import tsx
 * bench/git/profile-first-call.ts <label filter> [repeats]` (TOP=n rows); CHANGED_PATHS=1 uses the
 * copy with Bloom filters.
 */

import { execFileSync } from "node:child_process";
import { Session } from "node:inspector/promises";
import { createRegistry } from "agent-tool-catalog";
import { createGitCache, createGitTools, GIT_TOOL_NAMES } from "../../src/git/index.js";
import { benchCases, cachedSyntheticHistory, withChangedPaths } from "./git-bench.js";

const plain = cachedSyntheticHistory(20_000);
const history = process.env.CHANGED_PATHS === "1" ? { ...plain, directory: withChangedPaths(plain.directory) } : plain;
const lines =
  execFileSync("git", ["-C", history.directory, "show", `HEAD:${history.busyFile}`], { encoding: "utf8" }).split("\n").length - 1;
const filter = process.argv[2] ?? "";
const repeats = Number(process.argv[3] ?? 3);
const cases = benchCases({ ...history, lines }).filter((benchCase) => benchCase.label.includes(filter));
const newRun = () => {
  const run = createRegistry({ tools: createGitTools({ cache: createGitCache() }) }).createRun({
    permissions: { workspace: history.directory },
  });
  run.activate([...GIT_TOOL_NAMES]);
  return run;
};
const warm = newRun();
for (const benchCase of benchCases({ ...history, lines })) await warm.call(benchCase.tool, benchCase.args);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
interface Node {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
for (const benchCase of cases) {
  for (let index = 0; index < repeats; index++) {
    const run = newRun();
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.cpuUsage();
    await session.post("Profiler.start");
    const result = await run.call(benchCase.tool, benchCase.args);
    const { profile } = await session.post("Profiler.stop");
    const spent = process.cpuUsage(usage);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    console.log(`${benchCase.label}: ${((spent.user + spent.system) / 1000).toFixed(0)} ms CPU`);
    const nodes = profile.nodes as Node[];
    const byId = new Map(nodes.map((node) => [node.id, node]));
    const parents = new Map<number, number>();
    for (const node of nodes) for (const child of node.children ?? []) parents.set(child, node.id);
    const keyOf = (node: Node) => {
      const { functionName, url, lineNumber } = node.callFrame;
      return `${functionName || "(anon)"} ${url.replace(/.*\/(src|node_modules)\//, "$1/")}:${lineNumber + 1}`;
    };
    for (const id of profile.samples ?? []) {
      const node = byId.get(id);
      if (node === undefined) continue;
      // Sample counts, not time deltas: on a loaded machine a delta also counts time descheduled.
      // The inspector's own dispatch and idle time are not the call's.
      const key = keyOf(node);
      if (key.startsWith("dispatch ") || key.startsWith("(idle)")) continue;
      const ms = 0.1;
      self.set(key, (self.get(key) ?? 0) + ms);
      total += ms;
      const seen = new Set<string>();
      for (let at: Node | undefined = node; at !== undefined; at = byId.get(parents.get(at.id) ?? -1)) {
        const name = keyOf(at);
        if (seen.has(name)) continue;
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
      }
    }
  }
}
console.log(`total sampled ${total.toFixed(0)} ms`);
for (const [title, map] of [
  ["self", self],
  ["inclusive", inclusive],
] as const) {
  console.log(`-- ${title} (samples of 0.1 ms)`);
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
    console.log(`${ms.toFixed(1).padStart(8)} ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`);
  }
}
