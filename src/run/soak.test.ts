import { describe, expect, it } from "vitest";
import { runCoreSoak } from "../../bench/core/core-soak.js";

describe("core soak (bounded; the full size runs in npm run bench)", () => {
  it("keeps heap, descriptors and child processes flat over registries, runs and calls", async () => {
    // Warm up first, so module loading and JIT do not count as growth.
    await runCoreSoak({ registries: 5, runs: 20, calls: 200 });
    const result = await runCoreSoak({ registries: 50, runs: 500, calls: 4_000 });
    expect(result.okResults).toBeGreaterThan(1000);
    expect(result.failedResults).toBeGreaterThan(1000);
    expect(result.heapGrowthMiB).toBeLessThan(8);
    expect(result.fdsAfter).toBeLessThanOrEqual(result.fdsBefore + 2);
    expect(result.childProcessesAfter).toBeLessThanOrEqual(result.childProcessesBefore);
  }, 60_000);
});
