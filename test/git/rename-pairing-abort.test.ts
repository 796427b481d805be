/**
 * Rename pairing inside `git_contributor_context` (line totals), `git_log_search` (pickaxe: a
 * rename that keeps the count is no match) and `git_blame_context` (the file's origin across a
 * rename) compares up to a million pairs in a commit that moves a wide tree: each yields to the
 * event loop while it pairs and stops soon after the call is aborted, as git_diff_range does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BlameOutput, ContributorOutput, LogSearchOutput } from "../../src/git/index.js";
import { capability } from "../support/capabilities.js";
import { cpuMsSince } from "../support/cpu-time.js";
import { threadTimes } from "../support/thread-time.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";
import { importCommits } from "./support/import-commits.js";

const gitCapability = capability("git");
const author = { name: "A", email: "a@example.com" };
/**
 * Files moved and edited in the last commit: 800 x 800 pairs, within git's rename limit, all compared.
 * With pairing's yields removed (stop 53), the abort test's timer due at 100 ms of the call's run
 * could first fire at 308 ms with 400 files (160,000 pairs), too close to its bound of 200; at
 * 1,013 ms with 800.
 */
const FILES = 800;
const body = (index: number, edited: boolean) =>
  Array.from({ length: 30 }, (_, line) => `file ${index} line ${line} ${edited && line % 7 === 3 ? "changed" : "same"}\n`).join(
    "",
  );

/** Files deleted beside the one blame follows: 6,000 sources for its one destination. */
const DELETED = 6000;

let repository: FixtureRepository;
let blamed: FixtureRepository;

/**
 * Wall-time bounds that are not what this file claims (its claims are CPU time: the loop's longest
 * hold, the work after an abort): building the fixture (6,800 files written, git add and commit)
 * missed 120 s at load 35 on 2 cores before it was imported with git fast-import; a test's calls
 * pair for seconds of CPU each.
 */
const FIXTURE_MS = 600_000;
const TEST_MS = 300_000;
/** An aborted call's answer in wall time: only a hang misses it (the work after the abort is bounded in CPU time). */
const ABORT_HANG_MS = 30_000;
/** The call's own run time (this thread's, see {@link longestBlock}) before the test aborts it. */
const ABORT_AFTER_MS = 100;

/** `count` files named `name(index)`, with {@link body}. */
function* files(count: number, name: (index: number) => string, edited: boolean): Generator<[string, string]> {
  for (let index = 0; index < count; index++) yield [name(index), body(index, edited)];
}

beforeAll(() => {
  if (gitCapability.missing) return;
  repository = FixtureRepository.create("pairing-abort");
  importCommits(repository.directory, [
    { message: "old", author, write: files(FILES, (index) => `old/a${index}.txt`, false) },
    { message: "new", author, delete: ["old"], write: files(FILES, (index) => `new/b${index}.txt`, true) },
  ]);
  blamed = FixtureRepository.create("pairing-blame");
  importCommits(blamed.directory, [
    { message: "many", author, write: files(DELETED, (index) => `many/a${index}.txt`, false) },
    { message: "moved", author, delete: ["many"], write: [["moved.txt", body(7, true)]] },
  ]);
}, FIXTURE_MS);

afterAll(() => {
  if (repository !== undefined) removeDirectory(repository.directory);
  if (blamed !== undefined) removeDirectory(blamed.directory);
});

/**
 * Runs `work` while a 1 ms timer measures the longest block of the event loop as the time this
 * thread ran between two ticks (test/support/thread-time.ts): on a loaded machine (2 cores, load
 * 8-20) the wall time between ticks is mostly time the process was not scheduled at all (blocks of
 * 30-300 ms wall measured with 3-30 ms CPU in them), and the process's CPU time also counts its
 * other threads (V8's concurrent marking and compiling, the libuv pool), which do not block the loop.
 */
async function longestBlock<Result>(work: () => Promise<Result>): Promise<{ result: Result; longest: number }> {
  let last = threadTimes().ranMs;
  let longest = 0;
  const sinceLast = () => {
    const now = threadTimes().ranMs;
    longest = Math.max(longest, now - last);
    last = now;
  };
  const timer = setInterval(sinceLast, 1);
  try {
    const result = await work();
    sinceLast();
    return { result, longest };
  } finally {
    clearInterval(timer);
  }
}

/** The calls whose answers need the last commit's renames paired. */
const CALLS: readonly { tool: string; input: Record<string, unknown> }[] = [
  { tool: "git_contributor_context", input: {} },
  { tool: "git_log_search", input: { query: "same", mode: "pickaxe" } },
];

describe.skipIf(gitCapability.missing)(gitCapability.label("rename pairing in contributors, log search and blame"), () => {
  it(
    "keeps the event loop running and gives git's answers",
    async () => {
      // Warm up module and repository loading with a call that pairs nothing.
      await gitRun(repository.directory).call("git_file_history", { path: "new/b1.txt", follow_renames: false });
      for (const { tool, input } of CALLS) {
        // A new run each time: nothing paired by an earlier call is cached.
        const { result, longest } = await longestBlock(() => gitRun(repository.directory).call(tool, input));
        if (tool === "git_contributor_context") {
          const answer = output<ContributorOutput>(result);
          const numstat = git(repository.directory, ["log", "-M", "--numstat", "--format=", "HEAD"])
            .split("\n")
            .filter(Boolean)
            .map((line) => line.split("\t").map(Number));
          expect(answer.contributors[0]?.added).toBe(numstat.reduce((sum, [added = 0]) => sum + added, 0));
        } else {
          const ids = git(repository.directory, ["log", "-Ssame", "--format=%H"]).split("\n").filter(Boolean);
          expect(output<LogSearchOutput>(result).commits.map((commit) => commit.sha)).toEqual(ids.map((id) => id.slice(0, 10)));
        }
        // Pairing held the loop for 4.7 s of CPU in one block before it yielded; now every 8 ms of work.
        expect(longest, tool).toBeLessThan(100);
      }
    },
    TEST_MS,
  );

  it(
    "stops pairing soon after the call is aborted",
    async () => {
      await gitRun(repository.directory).call("git_file_history", { path: "new/b1.txt", follow_renames: false });
      for (const { tool, input } of CALLS) {
        const run = gitRun(repository.directory);
        const controller = new AbortController();
        let abortedAt: { wall: number; cpu: NodeJS.CpuUsage; ranMs: number } | undefined;
        // The abort comes once this thread has run ABORT_AFTER_MS for the call, not after a wall
        // time (on a loaded machine 100 ms of wall time can pass before pairing begins, and an abort
        // then proves nothing about it): it is in pairing by then (an unaborted call pairs for
        // about a second of CPU), and only pairing's yields let the timer run.
        const start = threadTimes().ranMs;
        const timer = setInterval(() => {
          const ranMs = threadTimes().ranMs - start;
          if (ranMs < ABORT_AFTER_MS) return;
          clearInterval(timer);
          abortedAt = { wall: performance.now(), cpu: process.cpuUsage(), ranMs };
          controller.abort();
        }, 1);
        const result = await run.call(tool, input, { signal: controller.signal }).finally(() => clearInterval(timer));
        expect(result.ok ? "answered" : result.error.code, tool).toBe("aborted");
        if (abortedAt === undefined) throw new Error(`${tool} answered before the abort`);
        // The abort was seen within one hold of the loop (the first test's bound) of being due:
        // without pairing's yields it ran only once pairing was done (1,013 ms into the call).
        expect(abortedAt.ranMs, `${tool}: the call ran ${Math.round(abortedAt.ranMs)} ms before the abort fired`).toBeLessThan(
          ABORT_AFTER_MS + 100,
        );
        // The work done after the abort, in CPU time; the wall time only bounds a hang (1 s was
        // missed at load 35, where 50 ms of CPU can take seconds to get).
        expect(cpuMsSince(abortedAt.cpu), tool).toBeLessThan(50);
        expect(performance.now() - abortedAt.wall, tool).toBeLessThan(ABORT_HANG_MS);
      }
    },
    TEST_MS,
  );

  it(
    "blame across a rename among many deleted files keeps the loop running",
    async () => {
      const { result, longest } = await longestBlock(() =>
        gitRun(blamed.directory).call("git_blame_context", { path: "moved.txt", start_line: 1, end_line: 30 }),
      );
      const expected = new Map<number, string>();
      for (const line of git(blamed.directory, ["blame", "--porcelain", "HEAD", "--", "moved.txt"]).split("\n")) {
        const match = /^([0-9a-f]{40}) (\d+) (\d+)/.exec(line);
        if (match !== null) expected.set(Number(match[3]), (match[1] ?? "").slice(0, 10));
      }
      const answer = output<BlameOutput>(result);
      expect(new Map(answer.lines.map((line) => [line.line, line.sha]))).toEqual(expected);
      // Control: the rename was followed (git gives most lines to the first commit).
      expect(new Set(expected.values()).size).toBe(2);
      expect(longest).toBeLessThan(100);
    },
    TEST_MS,
  );
});
