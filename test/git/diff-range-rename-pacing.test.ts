/**
 * Rename detection in `git_diff_range` over a range with hundreds of deleted and added files
 * compares up to a million pairs (git's `diff.renameLimit`): it yields to the event loop and stops
 * when the call is aborted, with git's totals.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DiffRangeOutput } from "../../src/git/index.js";
import { threadTimes } from "../support/thread-time.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";

const author = { name: "A", email: "a@example.com" };
/** Files on each side: 900 x 900 pairs, within git's 1000 x 1000 limit, so every pair is compared. */
const FILES = 900;
const body = (index: number, edited: boolean) =>
  Array.from({ length: 30 }, (_, line) => `file ${index} line ${line} ${edited && line % 7 === 3 ? "changed" : "same"}\n`).join(
    "",
  );

let repository: FixtureRepository;

beforeAll(() => {
  repository = FixtureRepository.create("diff-renames-wide");
  mkdirSync(path.join(repository.directory, "old"));
  for (let index = 0; index < FILES; index++)
    writeFileSync(path.join(repository.directory, "old", `a${index}.txt`), body(index, false));
  repository.commit("old", author);
  // Every file moved and edited under a new name: no exact or basename pair, all go to the inexact pass.
  rmSync(path.join(repository.directory, "old"), { recursive: true });
  mkdirSync(path.join(repository.directory, "new"));
  for (let index = 0; index < FILES; index++)
    writeFileSync(path.join(repository.directory, "new", `b${index}.txt`), body(index, true));
  repository.commit("new", author);
}, 120_000);

afterAll(() => {
  if (repository !== undefined) removeDirectory(repository.directory);
});

/**
 * Runs `work` while a 1 ms timer measures the longest block of the event loop as the time this
 * thread ran between two ticks (test/support/thread-time.ts), as rename-pairing-abort does: on a
 * loaded machine the wall time between ticks is mostly time the process was not scheduled at all,
 * which no pacing in the library can shorten.
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

describe("git_diff_range rename detection over a wide range", () => {
  it("gives git's totals and renames while the event loop keeps running", async () => {
    const run = gitRun(repository.directory);
    await run.call("git_diff_range", { from: "HEAD~1", to: "HEAD", path: "new/b1.txt" }); // warm up (module and repository loading)
    const { result, longest } = await longestBlock(async () =>
      output<DiffRangeOutput>(await run.call("git_diff_range", { from: "HEAD~1", to: "HEAD" })),
    );
    const shortstat = git(repository.directory, ["diff", "--shortstat", "-M", "HEAD~1", "HEAD"]).trim();
    expect(`${result.files_changed} files changed, ${result.added} insertions(+), ${result.removed} deletions(-)`).toBe(
      shortstat,
    );
    // Every file was paired as a rename, as git pairs them.
    const statuses = git(repository.directory, ["diff", "-M", "--name-status", "HEAD~1", "HEAD"]).trim().split("\n");
    expect(statuses.filter((line) => line.startsWith("R"))).toHaveLength(FILES);
    expect(result.files.length).toBeGreaterThan(0);
    for (const file of result.files) {
      const index = file.path.slice("new/b".length, -".txt".length);
      expect(file).toMatchObject({ status: "R", previous_path: `old/a${index}.txt` });
    }
    // The comparisons took 1.3-3.6 s of one unbroken block before they yielded; now they yield every 8 ms of work.
    expect(longest).toBeLessThan(500);
  }, 120_000);

  it("stops comparing when the call is aborted", async () => {
    const run = gitRun(repository.directory);
    await run.call("git_diff_range", { from: "HEAD~1", to: "HEAD", path: "new/b1.txt" });
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = threadTimes().ranMs;
      controller.abort();
    }, 50);
    const result = await run.call("git_diff_range", { from: "HEAD~1", to: "HEAD" }, { signal: controller.signal });
    // What this thread still ran after the abort (its own time, not the time it waited for a CPU
    // on a loaded machine): the comparisons stopped, they did not run on to the end.
    const ranAfter = threadTimes().ranMs - abortedAt;
    expect(result.ok ? "answered" : result.error.code).toBe("aborted");
    expect(abortedAt).toBeGreaterThan(0);
    expect(ranAfter).toBeLessThan(500);
    // Positive control: the same call without an abort answers, every file listed as git lists it.
    const answered = output<DiffRangeOutput>(await run.call("git_diff_range", { from: "HEAD~1", to: "HEAD" }));
    expect(answered.files_changed).toBe(FILES);
  }, 120_000);
});
