/**
 * What a command's cgroup costs: `true` run 20 times under bubblewrap (scope workspace) with the
 * default limits (a cgroup made, joined, read and removed per command) and with `limits: false`,
 * interleaved so load changes hit both alike; prints the medians and their difference.
 *
 *   node --import tsx bench/tools/sandbox-limits-overhead.ts
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";

const RUNS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function main(): Promise<void> {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-limits-bench-")));
  try {
    const limited = new BubblewrapSandbox({ scope: "workspace", workspace });
    const unlimited = new BubblewrapSandbox({ scope: "workspace", workspace, limits: false });
    if (!limited.resourceLimits.enforced || limited.resourceLimits.cgroup === undefined) {
      console.log(`limits are not enforced here: ${limited.resourceLimits.reason ?? "no cgroup"}`);
      return;
    }
    const time = async (sandbox: BubblewrapSandbox) => {
      const started = performance.now();
      const result = await runSandboxed(sandbox, { command: "true", args: [], cwd: workspace });
      if (result.exitCode !== 0) throw new Error(`true failed: ${result.stderr}`);
      return performance.now() - started;
    };
    await time(limited);
    await time(unlimited);
    const withLimits: number[] = [];
    const without: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      withLimits.push(await time(limited));
      without.push(await time(unlimited));
    }
    const a = median(withLimits);
    const b = median(without);
    console.log(
      `cgroup v${String(limited.resourceLimits.cgroup)}: median of ${RUNS} with limits ${a.toFixed(1)} ms, ` +
        `without ${b.toFixed(1)} ms, overhead ${(a - b).toFixed(1)} ms`,
    );
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

await main();
