// One git tool call in a fresh node process, split into the steps a host that starts, answers and
// exits pays, each step's CPU time (user + system of the whole process, `process.cpuUsage`):
// node's own start (before this module runs), importing the git and root entries, importing the
// tool's handler chunk and node:zlib (which the first call would import), building the
// registry and run, opening the repository (a `git_diff_range` of HEAD against itself on the
// run's cache: refs, pack index, commit-graph, one tree, with the code of the open run cold; for
// another tool this step also loads the diff tool's own chunk, which its call alone would not), then
// the question itself on that open repository; then, outside the process's total, the same question
// on a new cache with the code already run once. Prints the steps and the answer (the driver checks
// both answers against git's). Development aid for `bench/git/new-process-split.ts`, not the bench's timing
// (that is `cold-call.mjs`, one step).
// Usage: node bench/git/new-process-phases.mjs <repository> <tool> <json arguments> <dist directory>

import { readdirSync } from "node:fs";
import path from "node:path";

const cpuNow = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const marks = [cpuNow()];
const [directory, tool, args, dist] = process.argv.slice(2);
const { createGitTools, GIT_TOOL_NAMES } = await import(`${dist}/git/index.js`);
// The root entry's own share (what it loads beyond the chunks the git entry already loaded), for
// createRegistry: reported apart, still part of the import step.
const gitImported = cpuNow();
await import(`${dist}/index.js`);
marks.push(cpuNow());
// The chunk the first call imports (its name carries a content hash; each tool has its own, which
// imports the code the tools share; a build before stop 50 had one for all five, git-handlers),
// and zlib, which it imports.
const handlerChunk = {
  git_log_search: "log-search",
  git_file_history: "file-history",
  git_blame_context: "blame",
  git_diff_range: "diff-range",
  git_contributor_context: "contributor",
}[tool];
const chunkName = new RegExp(`^(git-handlers|${handlerChunk})-[A-Z0-9]+\\.js$`);
for (const file of readdirSync(dist).filter((name) => chunkName.test(name))) {
  await import(path.join(dist, file));
}
await import("node:zlib");
marks.push(cpuNow());
const { createRegistry } = await import(`${dist}/index.js`);
const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: directory } });
run.activate([...GIT_TOOL_NAMES]);
marks.push(cpuNow());
const opened = await run.call("git_diff_range", { from: "HEAD", to: "HEAD" });
if (!opened.ok) throw new Error(JSON.stringify(opened.error));
marks.push(cpuNow());
const result = await run.call(tool, JSON.parse(args));
if (!result.ok) throw new Error(JSON.stringify(result.error));
marks.push(cpuNow());
// The same question again on a new cache (the repository opened again, untimed) with the code now
// compiled: what the question costs once the JIT has seen it, as a first call in a warm process.
const again = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: directory } });
again.activate([...GIT_TOOL_NAMES]);
await again.call("git_diff_range", { from: "HEAD", to: "HEAD" });
const warmStarted = cpuNow();
const warm = await again.call(tool, JSON.parse(args));
if (!warm.ok) throw new Error(JSON.stringify(warm.error));
const warmCodeCpuMs = cpuNow() - warmStarted;
const step = (index) => marks[index + 1] - marks[index];
process.stdout.write(
  JSON.stringify({
    startCpuMs: marks[0],
    importEntriesCpuMs: step(0),
    importRootCpuMs: marks[1] - gitImported,
    importHandlersCpuMs: step(1),
    setupCpuMs: step(2),
    openCpuMs: step(3),
    queryCpuMs: step(4),
    cpuMs: marks[5],
    queryWarmCodeCpuMs: warmCodeCpuMs,
    output: result.output,
    warmOutput: warm.output,
  }),
);
