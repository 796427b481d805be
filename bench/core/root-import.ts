/**
 * What a fresh process pays to import `agent-tool-catalog`, against two references in the same
 * rounds: node's own start (`node -e ''`: the same script with nothing imported) and importing
 * `zod` alone (which the root loaded until its own tools stopped using zod; the tools and host
 * entries still do, so it stays the yardstick). Each sample is a new Node process that reports its
 * own CPU (user + system, all threads, from its start) and the import's share of it; the three
 * kinds alternate so that machine load hits them alike, and medians are reported. Checked: the
 * root import's exports include `createRegistry`, zod's `z.object`; the host entry, timed in the
 * same rounds, its `HttpWebFetcher`. Needs `npm run build`.
 *   node --import tsx bench/core/root-import.ts [samples]   writes bench/results/root-import.json
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, round } from "../stats.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** One fresh process: its whole CPU, the import's CPU and wall time (ms), and the export it checked. */
interface ProcessSample {
  readonly processCpuMs: number;
  readonly importCpuMs: number;
  readonly importWallMs: number;
  readonly checked: boolean;
}

/** Medians of one kind of process. */
export interface ImportCost {
  /** CPU of the whole process up to the end of the import (node's start included), ms. */
  readonly processCpuMs: number;
  /** CPU of the import alone, ms. */
  readonly importCpuMs: number;
  /** Wall time of the import alone, ms. */
  readonly importWallMs: number;
}

/** {@link measureRootImport}'s figures. */
export interface RootImportResult {
  /** `node -e ''` with the same script and nothing imported: node's own start. */
  readonly nodeStart: ImportCost;
  readonly zod: ImportCost;
  readonly root: ImportCost;
  /** `agent-tool-catalog/host` (its tools build their zod schemas at first use, so zod loads then, not here). */
  readonly host: ImportCost;
  /** root.importCpuMs / zod.importCpuMs. */
  readonly ratioToZod: number;
  /** root.processCpuMs / nodeStart.processCpuMs: a process that imports the root, against an empty one. */
  readonly processRatioToNodeStart: number;
  /** Kept for the files that cite it: the imports' wall-time medians, ms. */
  readonly zodMs: number;
  readonly rootMs: number;
  readonly ratio: number;
  readonly samples: number;
  readonly loadAverage: readonly number[];
}

/** One fresh process importing `specifier` (none for node's own start), checking `exportName` is a function. */
function sample(specifier: string | undefined, exportName: string): ProcessSample {
  const load = specifier === undefined ? "const m = { x: () => 0 };" : `const m = await import(${JSON.stringify(specifier)});`;
  const check =
    exportName === "z.object" ? "typeof (m.z ?? m.default)?.object === 'function'" : `typeof m.${exportName} === 'function'`;
  const script = [
    "const c0 = process.cpuUsage(); const t0 = performance.now();",
    load,
    "const wall = performance.now() - t0; const c = process.cpuUsage(c0); const all = process.cpuUsage();",
    `console.log(JSON.stringify({ processCpuMs: (all.user + all.system) / 1000, importCpuMs: (c.user + c.system) / 1000, importWallMs: wall, checked: ${check} }));`,
  ].join("\n");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  return JSON.parse(out) as ProcessSample;
}

function medians(samples: readonly ProcessSample[]): ImportCost {
  return {
    processCpuMs: round(median(samples.map((s) => s.processCpuMs)), 1),
    importCpuMs: round(median(samples.map((s) => s.importCpuMs)), 1),
    importWallMs: round(median(samples.map((s) => s.importWallMs)), 1),
  };
}

/** Medians over `samples` rounds of four fresh processes each (empty, zod, the root and host entries). */
export function measureRootImport(samples = 15): RootImportResult {
  const entry = join(root, "dist", "index.js");
  const kinds = [
    { name: "nodeStart", specifier: undefined, exportName: "x" },
    { name: "zod", specifier: "zod", exportName: "z.object" },
    { name: "root", specifier: entry, exportName: "createRegistry" },
    { name: "host", specifier: join(root, "dist", "host", "index.js"), exportName: "HttpWebFetcher" },
  ] as const;
  for (const kind of kinds) sample(kind.specifier, kind.exportName); // warms the file cache
  const taken: Record<string, ProcessSample[]> = { nodeStart: [], zod: [], root: [], host: [] };
  for (let i = 0; i < samples; i++)
    for (const kind of i % 2 === 0 ? kinds : [...kinds].reverse()) {
      const one = sample(kind.specifier, kind.exportName);
      if (!one.checked) throw new Error(`root-import: ${kind.name}'s import lacks ${kind.exportName}`);
      taken[kind.name]?.push(one);
    }
  const nodeStart = medians(taken.nodeStart ?? []);
  const zod = medians(taken.zod ?? []);
  const rootCost = medians(taken.root ?? []);
  return {
    nodeStart,
    zod,
    root: rootCost,
    host: medians(taken.host ?? []),
    ratioToZod: round(rootCost.importCpuMs / zod.importCpuMs, 2),
    processRatioToNodeStart: round(rootCost.processCpuMs / nodeStart.processCpuMs, 2),
    zodMs: zod.importWallMs,
    rootMs: rootCost.importWallMs,
    ratio: round(rootCost.importWallMs / zod.importWallMs, 2),
    samples,
    loadAverage: loadavg().map((value) => round(value, 1)),
  };
}

/** The README's paragraph for {@link measureRootImport}. */
export function renderRootImport(result: RootImportResult): string {
  const row = (name: string, cost: ImportCost) =>
    `| ${name} | ${cost.processCpuMs} | ${cost.importCpuMs} | ${cost.importWallMs} |`;
  return [
    "### Importing the root entry in a new process",
    "",
    `Each sample a new Node process reporting its own CPU (user + system, from its start to the end of the import) and the import's share; an empty script (\`node -e ''\`, node's own start) and \`import("zod")\` alternate with \`import("agent-tool-catalog")\` and \`import("agent-tool-catalog/host")\` in the same rounds, medians of ${result.samples}; checked: each import has its export (\`createRegistry\`, \`z.object\`, the host entry's \`HttpWebFetcher\`); load average ${result.loadAverage.join(" / ")} on ${cpus().length} cores. The root import takes ${result.ratioToZod}x the CPU of importing zod alone; a process that imports it, ${result.processRatioToNodeStart}x an empty one.`,
    "",
    "| process | process CPU (ms) | import CPU (ms) | import wall (ms) |",
    "| --- | --- | --- | --- |",
    row("`node -e ''` (node's start)", result.nodeStart),
    row('`import("zod")`', result.zod),
    row('`import("agent-tool-catalog")`', result.root),
    row('`import("agent-tool-catalog/host")`', result.host),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const machine = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    date: new Date().toISOString().slice(0, 10),
  };
  const results = measureRootImport(Number(process.argv[2] ?? 15));
  const markdown = [renderRootImport(results)];
  writeFileSync(
    join(root, "bench", "results", "root-import.json"),
    `${JSON.stringify({ machine, results, markdown }, null, 2)}\n`,
  );
  console.log(markdown[0]);
}
