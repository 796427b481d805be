// CPU of the file locks of one multi-file change, alone: `withFileLocks` over N keys spread over
// directories as the bench's real diff spreads its 383 changed files over 307 directories, with a
// task that does nothing. Each round takes the in-process locks, creates every lock file (one
// owner file linked under each lock's name) and removes them. The first round pays for loading
// and compiling; the later ones are what an apply after the first pays for its locks.
//
//   npx tsx bench/tools/file-lock-cost.ts [--keys=383] [--rounds=12] [--out=FILE]
//
// The lock directory is the one a host uses (`lockDirectory()`), stale lock files of dead
// processes included; give AGENT_TOOL_CATALOG_LOCK_DIR to measure another (say, an empty one).
import { readdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { lockDirectory, withFileLocks } from "../../src/tools/fs/cross-process-lock.js";
import { median } from "../stats.js";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key as string, value ?? "true"];
  }),
);

async function main(): Promise<void> {
  const count = Number(args.get("keys") ?? 383);
  const rounds = Number(args.get("rounds") ?? 12);
  // Keys as real file identities look: paths, a few files sharing a directory.
  const keys = Array.from({ length: count }, (_, index) => `/bench/tree/dir-${index % Math.ceil(count * 0.8)}/file-${index}.js`);
  const entries = (await readdir(lockDirectory()).catch(() => [] as string[])).length;
  const perRound: { userMs: number; systemMs: number; cpuMs: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    const cpu = process.cpuUsage();
    await withFileLocks(keys, async () => undefined);
    const used = process.cpuUsage(cpu);
    perRound.push({ userMs: used.user / 1000, systemMs: used.system / 1000, cpuMs: (used.user + used.system) / 1000 });
    const last = perRound.at(-1) as (typeof perRound)[number];
    console.log(
      `round ${round + 1}: cpu ${last.cpuMs.toFixed(1)} ms (user ${last.userMs.toFixed(1)}, system ${last.systemMs.toFixed(1)})`,
    );
  }
  const after = perRound.slice(1).map((each) => each.cpuMs);
  console.log(
    `${count} keys, lock directory holding ${entries} entries: median after the first round ${median(after).toFixed(1)} ms CPU`,
  );
  const out = args.get("out");
  if (out !== undefined) {
    const figures = {
      date: new Date().toISOString(),
      keys: count,
      lockDirectoryEntries: entries,
      load: loadavg().map((each) => Number(each.toFixed(1))),
      rounds: perRound,
      medianCpuMsAfterFirst: median(after),
    };
    await writeFile(out, `${JSON.stringify(figures, null, 2)}\n`);
  }
}

await main();
