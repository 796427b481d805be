/**
 * Every git tool against the git CLI on a generated long history (3,000 commits with merges that
 * resolve both sides, merges equal to one side, exact and edited renames, clock skew and many
 * identical lines): the tools must give git's answer, not an approximation of it.
 */
import type { Run } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BlameOutput } from "../../src/git/blame-tool.js";
import type { ContributorOutput } from "../../src/git/contributor-tool.js";
import type { DiffRangeOutput } from "../../src/git/diff-range-tool.js";
import type { FileHistoryOutput } from "../../src/git/file-history-tool.js";
import type { LogSearchOutput } from "../../src/git/log-search-tool.js";
import { capability } from "../support/capabilities.js";
import { git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { diffNumstat, logNumstat } from "./support/git-oracle.js";
import { gitRun, output } from "./support/git-run.js";
import { type LongHistory, writeLongHistory } from "./support/long-history.js";

const gitCapability = capability("git");

let directory: string;
let history: LongHistory;
let run: Run;

const ids = (text: string) => text.split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line));
const shortOf = (id: string) => id.slice(0, 10);

/** Files with the longest histories at the tip (the interesting ones), and a few others. */
function busyFiles(count: number): string[] {
  const counts = new Map<string, number>();
  for (const line of git(directory, ["log", "--format=", "--name-only", "-n", "1500"]).split("\n")) {
    if (history.paths.includes(line)) counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, count)
    .map(([path]) => path);
}

/** Per author e-mail: commits, merges and numstat lines of `git log --numstat [-- path]` (default simplification). */
function numstatTotals(pathArgs: readonly string[]) {
  const expected = new Map<string, { commits: number; merges: number; added: number; removed: number }>();
  for (const block of logNumstat(directory, ["--format=%x01%H%x00%ae%x00%P", ...pathArgs])) {
    const email = (block.header[1] ?? "").toLowerCase();
    const tally = expected.get(email) ?? { commits: 0, merges: 0, added: 0, removed: 0 };
    tally.commits++;
    if ((block.header[2] ?? "").split(" ").length > 1) tally.merges++;
    for (const file of block.files) {
      tally.added += file.added ?? 0;
      tally.removed += file.removed ?? 0;
    }
    expected.set(email, tally);
  }
  return expected;
}

describe.skipIf(gitCapability.missing)(gitCapability.label("git tools give the git CLI's answers on a long history"), () => {
  beforeAll(() => {
    directory = temporaryDirectory("parity");
    git(directory, ["init", "-q"]);
    history = writeLongHistory(directory, { commits: 3000 });
    // As `git gc` leaves real repositories: with a commit-graph, which the walks read (the suites
    // of git-tools.test.ts run without one; commit-graph.test.ts checks a stale one).
    git(directory, ["commit-graph", "write", "--reachable"]);
    run = gitRun(directory);
  }, 120_000);
  afterAll(() => removeDirectory(directory));

  it("builds a history with the hard cases", () => {
    expect(history.commits).toBeGreaterThanOrEqual(3000);
    expect(history.merges).toBeGreaterThan(100);
    expect(history.renames).toBeGreaterThan(50);
  });

  it("git_contributor_context counts what git shortlog and git log --numstat count, with history simplification", async () => {
    const scopes = [undefined, ...history.directories.slice(0, 3), ...busyFiles(4)];
    for (const scope of scopes) {
      const pathArgs = scope === undefined ? [] : ["--", scope];
      const expected = numstatTotals(pathArgs);
      const shortlog = git(directory, ["shortlog", "-sne", "HEAD", ...pathArgs]);
      const shortlogTotal = shortlog
        .split("\n")
        .filter((line) => line.trim() !== "")
        .reduce((sum, line) => sum + Number(line.trim().split("\t")[0]), 0);
      const answer = output<ContributorOutput>(
        await run.call("git_contributor_context", { ...(scope === undefined ? {} : { path: scope }), max_results: 100 }),
      );
      expect(answer.total_commits, `total for ${scope ?? "."}`).toBe(shortlogTotal);
      const actual = new Map(
        answer.contributors.map((c) => [
          c.email.toLowerCase(),
          { commits: c.commits, merges: c.merges, added: c.added, removed: c.removed },
        ]),
      );
      expect(actual, `contributors of ${scope ?? "."}`).toEqual(expected);
    }
  }, 300_000);

  it("git_log_search finds what git log --grep and git log -S find", async () => {
    const file = busyFiles(1)[0] as string;
    const cases: { args: Record<string, unknown>; cli: string[] }[] = [
      { args: { query: "refactor", mode: "message" }, cli: ["-i", "-F", "--grep=refactor"] },
      { args: { query: "refactor", mode: "message", path: "src/io" }, cli: ["-i", "-F", "--grep=refactor", "--", "src/io"] },
      { args: { query: "NEEDLE_cache", mode: "pickaxe" }, cli: ["-SNEEDLE_cache"] },
      {
        args: { query: "NEEDLE_parser", mode: "pickaxe", path: "src" },
        cli: ["-SNEEDLE_parser", "--", "src"],
      },
      {
        args: { query: "return null;", mode: "pickaxe", path: file },
        cli: ["-Sreturn null;", "--", file],
      },
    ];
    for (const { args, cli } of cases) {
      const expected = ids(git(directory, ["log", "--format=%H", ...cli])).map(shortOf);
      const answer = output<LogSearchOutput>(await run.call("git_log_search", { ...args, max_results: 200 }));
      expect(
        answer.commits.map((commit) => commit.sha),
        JSON.stringify(args),
      ).toEqual(expected.slice(0, 200));
      expect(answer.truncated).toBe(expected.length > 200);
    }
  }, 300_000);

  it("git_file_history lists what git log -- <path> lists (directories, files without --follow) and git log --follow lists (files)", async () => {
    const cases: { path: string; follow?: boolean; cli: string[] }[] = [
      ...history.directories.slice(0, 3).map((path) => ({ path, cli: ["--", path] })),
      ...busyFiles(3).map((path) => ({ path, follow: false, cli: ["--", path] })),
      // Following (the default) through the history's merges and renames: git log --follow walks
      // every commit and lists no merge (stop 38; the tool compared merges with their first parent).
      ...busyFiles(3).map((path) => ({ path, cli: ["--follow", "--", path] })),
    ];
    for (const { path, follow, cli } of cases) {
      const expected = ids(git(directory, ["log", "--format=%H", ...cli])).map(shortOf);
      const answer = output<FileHistoryOutput>(
        await run.call("git_file_history", {
          path,
          max_results: 200,
          ...(follow === undefined ? {} : { follow_renames: follow }),
        }),
      );
      expect(
        answer.commits.map((commit) => commit.sha),
        path,
      ).toEqual(expected.slice(0, 200));
    }
  }, 300_000);

  it("git_blame_context attributes every line as git blame does, identical lines included", async () => {
    let compared = 0;
    const long = history.paths.filter((path) => /-\d*0\.ts$/.test(path)).slice(0, 6);
    for (const file of [...new Set([...busyFiles(12), ...long])]) {
      const total = git(directory, ["show", `HEAD:${file}`]).split("\n").length - 1;
      for (let start = 1; start <= total; start += 150) {
        const end = Math.min(total, start + 149);
        const expected = new Map<number, string>();
        for (const line of git(directory, ["blame", "--porcelain", "-L", `${start},${end}`, "HEAD", "--", file]).split("\n")) {
          const match = /^([0-9a-f]{40}) (\d+) (\d+)/.exec(line);
          if (match !== null) expected.set(Number(match[3]), shortOf(match[1] ?? ""));
        }
        const answer = output<BlameOutput>(
          await run.call("git_blame_context", { path: file, start_line: start, end_line: end, context: 0 }),
        );
        const actual = new Map(answer.lines.map((line) => [line.line, line.sha]));
        expect(actual, `${file} ${start}-${end}`).toEqual(expected);
        compared += expected.size;
      }
    }
    expect(compared).toBeGreaterThan(200);
  }, 300_000);

  it("git_diff_range gives git diff's files, renames and totals, over every file", async () => {
    const root = git(directory, ["rev-list", "--max-parents=0", "HEAD"]).trim();
    for (const from of ["HEAD~1", "HEAD~10", "HEAD~100", "HEAD~700", root]) {
      const expected = diffNumstat(directory, from, "HEAD");
      const shortstat = git(directory, ["diff", "--shortstat", "-M", from, "HEAD"]);
      const number = (pattern: RegExp) => Number(pattern.exec(shortstat)?.[1] ?? 0);
      const answer = output<DiffRangeOutput>(await run.call("git_diff_range", { from, max_bytes: 1000 }));
      expect(answer.files_changed, from).toBe(number(/(\d+) files? changed/));
      expect(answer.added, from).toBe(number(/(\d+) insertions?/));
      expect(answer.removed, from).toBe(number(/(\d+) deletions?/));
      const listed = answer.files.map((file) => ({ path: file.path, added: file.added, removed: file.removed }));
      expect(listed, from).toEqual(expected.slice(0, listed.length).map((file) => ({ ...file })));
      expect(listed.length, from).toBeGreaterThanOrEqual(Math.min(expected.length, 150));
      if (listed.length < expected.length) expect(answer.omitted, from).toContain(`of ${expected.length} changed files`);
      // At the default budget the whole answer fits the run's 40,000-character limit (never condensed).
      const full = await run.call("git_diff_range", { from });
      expect(full.ok && typeof full.output, from).toBe("object");
      const names = git(directory, ["diff", "--name-status", "-M", from, "HEAD"])
        .split("\n")
        .filter((line) => line.startsWith("R"))
        .map((line) => line.split("\t").slice(1).join(" -> "));
      const renames = answer.files.filter((file) => file.status === "R").map((file) => `${file.previous_path} -> ${file.path}`);
      if (listed.length === expected.length) expect(renames.sort(), from).toEqual(names.sort());
    }
  }, 300_000);
});
