/**
 * How long `import("agent-tool-catalog")` takes in a fresh process, against `import("zod")` alone
 * (which the root loaded until its own tools stopped using zod; the tools and host entries still
 * do, so it stays the yardstick). Each sample is a new Node process, alternating the
 * two so that machine load hits both alike; the median is reported. Needs `npm run build`.
 *   node --import tsx bench/core/root-import.ts [samples]   writes bench/results/root-import.json
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Milliseconds one fresh process spends importing `specifier`. */
function importTime(specifier: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" }));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Medians of both imports over `samples` process pairs, and their ratio. */
export function measureRootImport(samples = 15): { zodMs: number; rootMs: number; ratio: number; samples: number } {
  const entry = join(root, "dist", "index.js");
  const zod: number[] = [];
  const rootEntry: number[] = [];
  importTime("zod"); // warms the file cache for both
  importTime(entry);
  for (let i = 0; i < samples; i++) {
    zod.push(importTime("zod"));
    rootEntry.push(importTime(entry));
  }
  const zodMs = median(zod);
  const rootMs = median(rootEntry);
  return {
    zodMs: Math.round(zodMs * 10) / 10,
    rootMs: Math.round(rootMs * 10) / 10,
    ratio: Math.round((rootMs / zodMs) * 100) / 100,
    samples,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const machine = { node: process.version, date: new Date().toISOString().slice(0, 10) };
  const result = { machine, results: measureRootImport(Number(process.argv[2] ?? 15)) };
  writeFileSync(join(root, "bench", "results", "root-import.json"), `${JSON.stringify(result, null, 2)}\n`);
  console.log(result);
}
