/**
 * The order test files start in (vitest.config.ts's `sequence.sequencer`): the files known to take
 * longest first, in {@link LONGEST_FILES}'s order, then every other file in vitest's own order
 * (the cached durations of earlier runs, longest first; on a fresh clone, with no cache, the
 * largest files first). A long file started among the last ones ran alone at the end of a run
 * while the other workers sat idle; started first, it runs beside the many short ones.
 */
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Test files by wall time in a clean-clone `npm test` (stop 48, 3 workers on 2 cores), longest
 * first. The two Redis cron files wait for a minute boundary (up to a minute each, little CPU):
 * begun early, that wait overlaps the CPU-bound files instead of ending the run.
 */
export const LONGEST_FILES: readonly string[] = [
  // Wall seconds in a clean-clone run of 2026-12-06 (load 4-10), longest first; the files that
  // mostly wait (redis leases, kill loops) gain most from starting early.
  "test/tools/file-open-limit.test.ts", // 79
  "test/redis/bullmq-jobs.test.ts", // 64
  "test/tools/group-kill-restore.test.ts", // 47
  "test/redis/bullmq-delivery.test.ts", // 35
  "test/redis/clock-skew.test.ts", // 34
  "test/redis/call-claim-lease.test.ts", // 33, a 31 s lease waited out
  "test/tools/one-group-kill-revert.test.ts", // 32
  "test/tools/bash-run-budget-children.test.ts", // 31
  "test/tools/bash-run-limits.test.ts", // 30
  "test/redis/redis-fault-injection.test.ts", // 27
  "test/tools/file-crash.test.ts", // 21
  "test/git/git-cli-property.test.ts", // 21
  "test/mcp/trust-store-kill.test.ts", // 20
  "test/escape/races-control-file-removal.test.ts", // 18
  "test/escape/r29-mcp-listing-size.test.ts", // 18
  "test/sandbox/grep-engines.test.ts", // 17
  "test/tools/rename-fail-state-full.test.ts", // 17
  "test/escape/git-sequencer-sandbox.test.ts", // 17
  "test/tools/listing-huge-directory.test.ts", // 15
  "test/git/follow-copy-bounds.test.ts",
  "test/git/git-tools.test.ts",
];

/** Vitest's sequencer with {@link LONGEST_FILES} moved to the front. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const index = LONGEST_FILES.indexOf(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join("/"));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
