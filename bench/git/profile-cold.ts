/**
 * Development aid: each bench case's first call on an empty cache, in this process (JIT warmed
 * by one pass first), once. `node --import tsx bench/git/profile-cold.ts [filter]`; add
 * `--cpu-prof` to profile. Faster than the bench, for checking one change.
 */

import { execFileSync } from "node:child_process";
import { createRegistry } from "agent-tool-catalog";
import { createGitCache, createGitTools, GIT_TOOL_NAMES } from "../../src/git/index.js";
import { benchCases, cachedSyntheticHistory } from "./git-bench.js";

const history = cachedSyntheticHistory(20_000);
const lines =
  execFileSync("git", ["-C", history.directory, "show", `HEAD:${history.busyFile}`], { encoding: "utf8" }).split("\n").length - 1;
const filter = process.argv[2] ?? "";
const cases = benchCases({ ...history, lines }).filter((benchCase) => benchCase.label.includes(filter));
const newRun = () => {
  const run = createRegistry({ tools: createGitTools({ cache: createGitCache() }) }).createRun({
    permissions: { workspace: history.directory },
  });
  run.activate([...GIT_TOOL_NAMES]);
  return run;
};
if (process.env.SKIP_WARM === undefined) {
  const warm = newRun();
  for (const benchCase of cases) await warm.call(benchCase.tool, benchCase.args);
}
for (const benchCase of cases) {
  // CPU time (user + system), steadier than wall time on a loaded machine: git's from bash's `time`.
  const timed = execFileSync(
    "bash",
    ["-c", 'TIMEFORMAT="%U %S"; { time git "$@" >/dev/null; } 2>&1', "git", "-C", history.directory, ...benchCase.cli],
    { encoding: "utf8", maxBuffer: 1 << 28 },
  );
  const cli = timed
    .trim()
    .split(/\s+/)
    .map(Number)
    .reduce((sum, seconds) => sum + seconds * 1000, 0);
  const run = newRun();
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const started = cpu();
  const result = await run.call(benchCase.tool, benchCase.args);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const cold = cpu() - started;
  const again = cpu();
  await run.call(benchCase.tool, benchCase.args);
  const warm = cpu() - again;
  const show = (ms: number) => `${ms.toFixed(0).padStart(6)} (${(ms / cli).toFixed(2)}x)`;
  console.log(`${benchCase.label.padEnd(48)} git ${cli.toFixed(0).padStart(5)} cold ${show(cold)} warm ${show(warm)}`);
}
