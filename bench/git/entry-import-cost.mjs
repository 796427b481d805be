// Development aid: what importing the package's entries costs a new process, in CPU time (user +
// system, `process.cpuUsage`, the process's own report), for the ES module and CommonJS builds:
// the root entry alone, the git entry alone, and both (git first, as a host asking one git tool
// question does: the root's share is then what it loads beyond the chunks the git entry shares),
// with `node -e 0` timed in the same rounds. Cases alternate within each round, so load drifts
// reach all of them alike. (The files and bytes each entry loads: test/architecture/entry-eager-load.test.ts.)
// Usage: node bench/git/entry-import-cost.mjs [rounds, default 16] [dist directory] [result file]

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [roundsArgument = "16", distArgument, resultArgument] = process.argv.slice(2);
const rounds = Number(roundsArgument);
const dist = path.resolve(distArgument ?? path.join(here, "..", "..", "dist"));

/** A script that imports `files` in order and prints the CPU each took and the files loaded. */
function probe(format, files) {
  const load = (file) => (format === "esm" ? `await import(${JSON.stringify(file)})` : `require(${JSON.stringify(file)})`);
  const body = `const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    const marks = [cpu()];
    ${files.map((file) => `${load(file)}; marks.push(cpu());`).join("\n")}
    console.log(JSON.stringify({ start: marks[0], steps: marks.slice(1).map((mark, index) => mark - marks[index]) }));`;
  return format === "esm" ? ["--input-type=module", "-e", body] : ["-e", `(async () => {\n${body}\n})();`];
}

const extension = { esm: "js", cjs: "cjs" };
const cases = [];
for (const format of ["esm", "cjs"]) {
  const root = path.join(dist, `index.${extension[format]}`);
  const git = path.join(dist, "git", `index.${extension[format]}`);
  cases.push({ label: `${format} root`, args: probe(format, [root]) });
  cases.push({ label: `${format} git`, args: probe(format, [git]) });
  cases.push({ label: `${format} git then root`, args: probe(format, [git, root]) });
}
cases.push({
  label: "node -e 0",
  args: ["-e", "const u = process.cpuUsage(); console.log(JSON.stringify({ start: (u.user + u.system) / 1000, steps: [] }))"],
});

const samples = new Map(cases.map(({ label }) => [label, []]));
const loads = [loadavg()[0]];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const { label, args } of order) {
    samples.get(label).push(JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", cwd: dist })));
  }
  loads.push(loadavg()[0]);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round1 = (value) => Math.round(value * 10) / 10;
const rows = [...samples].map(([label, runs]) => ({
  label,
  startCpuMs: round1(median(runs.map((run) => run.start))),
  stepCpuMs: (runs[0]?.steps ?? []).map((_, index) => round1(median(runs.map((run) => run.steps[index])))),
}));
const load = { min: round1(Math.min(...loads)), max: round1(Math.max(...loads)), cpus: cpus().length };
const result = { node: process.version, date: new Date().toISOString().slice(0, 10), rounds, load, rows };
console.log(JSON.stringify(result, null, 2));
if (resultArgument !== undefined) writeFileSync(resultArgument, `${JSON.stringify(result, null, 2)}\n`);
