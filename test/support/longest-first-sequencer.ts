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
  // Stop 49: 123 s in its first clean-clone run (8 kill rounds of an 800-file grouped change).
  "test/tools/group-kill-restore.test.ts",
  "test/tools/file-open-limit.test.ts",
  "test/redis/clock-skew.test.ts",
  "test/redis/bullmq-jobs.test.ts",
  "test/git/follow-copy-bounds.test.ts",
  "test/tools/listing-huge-directory.test.ts",
  "test/redis/bullmq-delivery.test.ts",
  "test/tools/bash-run-budget-children.test.ts",
  "test/redis/redis-fault-injection.test.ts",
  "test/escape/git-sequencer-sandbox.test.ts",
  "test/tools/file-crash.test.ts",
  "test/git/git-cli-property.test.ts",
  "test/tools/bash-run-limits.test.ts",
  "test/mcp/trust-store-kill.test.ts",
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
