/**
 * The order test files start in (vitest.config.ts's `sequence.sequencer`): the files known to take
 * longest first, in {@link LONGEST_FILES}'s order, then every other file of the shared project
 * (`isolate: false`) in vitest's own order (the cached durations of earlier runs, longest first; on
 * a fresh clone, with no cache, the largest files first), then the files of the projects that give
 * each file a fresh process (`isolated`, `own-process`), in vitest's own order too. A long file
 * started among the last ones ran alone at the end of a run while the other workers sat idle;
 * started first, it runs beside the many short ones.
 *
 * Why the fresh-process files come last: vitest's pool keeps a shared worker (and the module graph
 * it loaded) for the next file only while the next file in the queue is a shared one too; a worker
 * that finishes while the queue's head is a fresh-process file is stopped, and a new one loads the
 * graph again for the shared files after it. vitest's order puts the projects one after another
 * (by name: `isolated`, `own-process`, `shared`), so with the long shared files moved in front the
 * fresh-process files sat between two runs of shared files, and every shared worker of the first
 * run was stopped there. Last, they stop each shared worker only once its work is done. They are
 * also the files that time the library or the host's share of wall time (vitest.config.ts's
 * OWN_PROCESS): at the end of `npm test` no other step runs beside the unit tests. (A listed long
 * file still starts first whatever its project: ending a run on it would idle the other workers.)
 */
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Test files by wall time in clean-clone `npm test` runs (3 workers on 2 cores), longest first. The
 * two Redis cron files wait for a minute boundary (up to a minute each, little CPU): begun early,
 * that wait overlaps the CPU-bound files instead of ending the run.
 */
export const LONGEST_FILES: readonly string[] = [
  // Median wall seconds of the 17 clean-clone runs of 2026-12-06 (17:26-21:07 UTC; vitest's
  // results cache of each), longest first, with the longest seen. Stop 51: single-file-kill,
  // redis-bounded-operations, schema-check-pool-failures, processes-output-holders,
  // hostile-mcp-protocol, aborted-mutations and object-store took longer than files listed before
  // them but started wherever vitest's order put them (on a clean clone, by file size); the
  // longest of them took up to 69 s.
  // CPU-s alone (user + sys of `vitest run` of the file, stop 51, load 22-31): file-open-limit 51,
  // file-crash 24, group-kill-restore 22, one-group-kill-revert 21, trust-store-kill 15,
  // bullmq-jobs 14, grep-engines 14, clock-skew 12, git-cli-property 11, r29-mcp-listing-size 9,
  // bullmq-delivery 8, bash-run-budget-children 7, call-claim-lease 7, bash-run-limits 6,
  // races-control-file-removal 6, redis-fault-injection 5: the Redis, bash-run and lease files
  // mostly wait (a minute boundary, a 31 s lease, sleeping commands).
  "test/tools/file-open-limit.test.ts", // 79 (174)
  "test/tools/group-kill-restore.test.ts", // 76 (123)
  "test/redis/bullmq-jobs.test.ts", // 61 (69)
  "test/redis/clock-skew.test.ts", // 42 (61)
  "test/redis/bullmq-delivery.test.ts", // 35 (40)
  "test/tools/bash-run-budget-children.test.ts", // 31 (37)
  "test/redis/redis-fault-injection.test.ts", // 27 (28)
  "test/tools/one-group-kill-revert.test.ts", // 27 (81)
  "test/tools/bash-run-limits.test.ts", // 24 (30)
  "test/tools/file-crash.test.ts", // 21 (38)
  "test/tools/listing-huge-directory.test.ts", // 20 (42)
  "test/git/git-cli-property.test.ts", // 19 (50)
  "test/escape/r29-mcp-listing-size.test.ts", // 18 (30)
  "test/tools/single-file-kill.test.ts", // 18 (69)
  // Stop 58: not listed before, and the second longest file of stop 57's last clean-clone CI (63 s
  // wall; 35-40 CPU-s alone, most of it gigabytes of delta chains built and refused): on a clean
  // clone vitest's order (by file size, 9 KB) could start it anywhere, the end of the run included.
  // After that stop's pack-read fix: 17 s of test time alone (median of 3: 25, 17.5, 14 s; 14.7
  // CPU-s; load 12-16), so here, not second.
  "test/escape/r33-resources-delta-amplification.test.ts",
  "test/redis/redis-bounded-operations.test.ts", // 17 (17)
  "test/mcp/trust-store-kill.test.ts", // 16 (34)
  "test/mcp/schema-check-pool-failures.test.ts", // 16 (18)
  "test/sandbox/grep-engines.test.ts", // 16 (43)
  "test/tools/rename-fail-state-full.test.ts", // 16 (60)
  "test/escape/processes-output-holders.test.ts", // 15 (30)
  "test/escape/git-sequencer-sandbox.test.ts", // 14 (37)
  "test/redteam/hostile-mcp-protocol.test.ts", // 14 (16)
  // Stop 53: was 33 (34), a 31 s lease waited out; now a 6 s lease: 14 s of tests alone at load 30-38.
  "test/redis/call-claim-lease.test.ts",
  "test/redteam/aborted-mutations.test.ts", // 13 (14)
  "test/git/object-store.test.ts", // 12 (30)
  "test/git/follow-copy-bounds.test.ts", // 11 (44)
  "test/escape/races-control-file-removal.test.ts", // 11 (20)
  "test/git/git-tools.test.ts", // 4 (25)
];

/** Vitest's sequencer with {@link LONGEST_FILES} moved to the front and fresh-process files to the end. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const index = LONGEST_FILES.indexOf(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join("/"));
      if (index !== -1) return index;
      return file.project.config.isolate === false ? LONGEST_FILES.length : LONGEST_FILES.length + 1;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
