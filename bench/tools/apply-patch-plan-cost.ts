// The plan alone (parse, hunk matching, rendering) of the bench's real multi-file diff, in memory:
// the files are read into memory once before the clock, then planned several times in one process.
// The first plan pays for compiling; later ones are what a warm host pays for the patch engine.
//
//   npx tsx bench/tools/apply-patch-plan-cost.ts --keep=DIR [--plans=8]     (DIR made by apply-patch-ab.ts --keep=DIR)
import { readFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { planPatch } from "../../src/tools/fs/patch/index.js";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"];
  }),
);

async function main(): Promise<void> {
  const base = path.resolve(args.get("keep") ?? ".");
  const diff = await readFile(path.join(base, "change.diff"), "utf8");
  const paths = JSON.parse(await readFile(path.join(base, "paths.json"), "utf8")) as string[];
  const files = new Map<string, Buffer>();
  for (const each of paths) {
    const bytes = await readFile(path.join(base, "pristine", each)).catch(() => undefined);
    if (bytes !== undefined) files.set(each, bytes);
  }
  const reader = { read: async (at: string) => files.get(at)?.toString("utf8"), readBytes: async (at: string) => files.get(at) };
  const plans = Number(args.get("plans") ?? 8);
  for (let attempt = 1; attempt <= plans; attempt++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const plan = await planPatch({ kind: "unified", patch: diff }, reader);
    const used = process.cpuUsage(cpu);
    if (!plan.ok) throw new Error(plan.error.message);
    console.log(
      `plan ${attempt}: ${plan.changes.length} changes, cpu ${((used.user + used.system) / 1000).toFixed(1)} ms, wall ${(performance.now() - started).toFixed(1)} ms`,
    );
  }
}

await main();
