/**
 * Differential test: seeded random histories written with one `git fast-import` each (odd
 * authors, skewed and identical timestamps in several zones, paths with a leading dash, a tab,
 * non-UTF-8 bytes, octopus and criss-cross merges, renames, copies, a file and a directory
 * swapping), every git tool's answer compared with the git CLI's on the same repository. A
 * failure prints the seed and the fast-import stream. GIT_DIFF_SEEDS=<first>:<count> for a longer sweep.
 */
import type { Run } from "agent-tool-catalog";
import { afterAll, describe, expect, it } from "vitest";
import type { BlameOutput } from "../../src/git/blame-tool.js";
import type { ContributorOutput } from "../../src/git/contributor-tool.js";
import type { DiffRangeOutput } from "../../src/git/diff-range-tool.js";
import type { FileHistoryOutput } from "../../src/git/file-history-tool.js";
import type { LogSearchOutput } from "../../src/git/log-search-tool.js";
import { capability } from "../support/capabilities.js";
import { buildFastImportHistory, type FastImportHistory } from "./support/fast-import-history.js";
import { type GitAnswer, git, gitMany, removeDirectory, useGitSession } from "./support/git-fixture.js";
import { porcelainBlameIds } from "./support/git-oracle.js";
import { failure, gitRun, output } from "./support/git-run.js";

const gitCapability = capability("git");
const [FIRST_SEED, SEED_COUNT] = (process.env.GIT_DIFF_SEEDS ?? "5700:2").split(":").map(Number) as [number, number];
/** Commits per history (GIT_DIFF_COMMITS): 12 by default, more for a sweep that wants criss-cross merges. */
const COMMITS = Number(process.env.GIT_DIFF_COMMITS ?? 12);
const short = (id: string) => id.slice(0, 10);

useGitSession();
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) removeDirectory(directory);
});

function must(answer: GitAnswer | undefined): string {
  if (answer?.ok !== true) throw new Error("a git command failed");
  return answer.stdout;
}
const ids = (answer: GitAnswer | undefined) =>
  must(answer)
    .split("\n")
    .filter((line) => /^[0-9a-f]{40}$/.test(line))
    .map(short);

/** `git log --numstat -z` blocks: commit id, parent count, and the per-file counts (renames by new name). */
function numstatBlocks(
  text: string,
): { id: string; merge: boolean; added: number; removed: number; binary: boolean; files: number }[] {
  return text
    .split("\x01")
    .slice(1)
    .map((block) => {
      const [header = "", ...rest] = block.split("\n");
      const [id = "", ...parents] = header.replace(/\0/g, "").trim().split(" ");
      let added = 0;
      let removed = 0;
      let binary = false;
      let files = 0;
      for (const field of rest.join("\n").split("\0")) {
        const match = /^(\d+|-)\t(\d+|-)\t/.exec(field.replace(/^\n/, ""));
        if (match === null) continue;
        files++;
        if (match[1] === "-") binary = true;
        else {
          added += Number(match[1]);
          removed += Number(match[2]);
        }
      }
      return { id: short(id), merge: parents.length > 1, added, removed, binary, files };
    });
}

async function compareHistory(history: FastImportHistory, run: Run): Promise<void> {
  const { directory, paths } = history;
  const answers = gitMany(
    directory,
    paths.flatMap((file) => [
      ["log", "--format=%H", "--", file],
      ["log", "--numstat", "-z", "--format=%x01%H %P", "--", file],
      ["log", "--follow", "--format=%H", "--", file],
      ["cat-file", "-t", `HEAD:${file}`],
    ]),
  );
  for (const [index, file] of paths.entries()) {
    const [plain, numstat, follow, type] = answers.slice(4 * index, 4 * index + 4);
    const expected = ids(plain);
    const result = await run.call("git_file_history", { path: file, follow_renames: false, max_results: 200 });
    const label = `history of ${JSON.stringify(file)}`;
    if (expected.length === 0) {
      expect(failure(result).code, label).toBe("path_not_found");
      continue;
    }
    const answer = output<FileHistoryOutput>(result);
    expect(
      answer.commits.map((commit) => commit.sha),
      label,
    ).toEqual(expected);
    {
      // Line counts of each non-merge commit: git log --numstat -- <path> (no rename pairing outside the path).
      const blocks = new Map(numstatBlocks(must(numstat)).map((block) => [block.id, block]));
      for (const entry of answer.commits) {
        const block = blocks.get(entry.sha);
        if (block === undefined || block.merge || entry.status === "D") continue;
        if (entry.files_changed !== undefined) {
          // A directory's change (also where the file and a directory of its name replaced each
          // other): summed as `git log --shortstat` sums it, a binary file changed with no lines.
          expect([entry.files_changed, entry.added, entry.removed], `${label} ${entry.sha} shortstat`).toEqual([
            block.files,
            block.added,
            block.removed,
          ]);
        } else if (block.binary) expect(entry.binary, `${label} ${entry.sha} binary`).toBe(true);
        else expect([entry.added, entry.removed], `${label} ${entry.sha} lines`).toEqual([block.added, block.removed]);
      }
    }
    // Following renames: what git log --follow lists, for a file at HEAD.
    if (type?.ok !== true || type.stdout.trim() !== "blob") continue;
    const followed = ids(follow);
    if (followed.length === 0) continue; // only merges changed it: documented fallback, covered elsewhere
    const followAnswer = output<FileHistoryOutput>(await run.call("git_file_history", { path: file, max_results: 200 }));
    expect(
      followAnswer.commits.map((commit) => commit.sha),
      `--follow of ${JSON.stringify(file)}`,
    ).toEqual(followed);
  }
}

async function compareBlame(history: FastImportHistory, run: Run): Promise<void> {
  const files = git(history.directory, ["ls-tree", "-r", "-z", "--name-only", "HEAD"]).split("\0").filter(Boolean);
  const readable = files.filter((file) => !file.includes("\uFFFD"));
  const answers = gitMany(
    history.directory,
    readable.flatMap((file) => [
      ["cat-file", "blob", `HEAD:${file}`],
      ["blame", "--porcelain", "HEAD", "--", file],
    ]),
  );
  for (const [index, file] of readable.entries()) {
    const text = must(answers[2 * index]);
    if (text.includes("\0") || text === "") continue;
    const expected = new Map([...porcelainBlameIds(must(answers[2 * index + 1]))].map(([line, id]) => [line, short(id)]));
    const answer = output<BlameOutput>(
      await run.call("git_blame_context", { path: file, start_line: 1, end_line: expected.size, context: 0 }),
    );
    expect(new Map(answer.lines.map((line) => [line.line, line.sha])), `blame of ${JSON.stringify(file)}`).toEqual(expected);
  }
}

async function compareDiffs(history: FastImportHistory, run: Run): Promise<void> {
  const { directory } = history;
  const all = git(directory, ["rev-list", "--all"]).split("\n").filter(Boolean);
  const branches = git(directory, ["for-each-ref", "--format=%(refname:short)", "refs/heads"]).split("\n").filter(Boolean);
  const root = all[all.length - 1] as string;
  const ranges: { from: string; to?: string; cli: string[] }[] = [
    { from: root, to: "HEAD", cli: [root, "HEAD"] },
    {
      from: all[1] ?? root,
      to: all[Math.floor(all.length / 2)] ?? root,
      cli: [all[1] ?? root, all[Math.floor(all.length / 2)] ?? root],
    },
    ...branches.filter((branch) => branch !== "main").map((branch) => ({ from: `main...${branch}`, cli: [`main...${branch}`] })),
  ];
  const answers = gitMany(
    directory,
    ranges.map(({ cli }) => ["diff", "--numstat", "-z", "-M", ...cli]),
  );
  for (const [index, range] of ranges.entries()) {
    const label = `diff ${range.cli.join(" ")}`;
    const answer = answers[index];
    const result = await run.call("git_diff_range", { from: range.from, ...(range.to === undefined ? {} : { to: range.to }) });
    if (answer?.ok !== true) {
      expect(failure(result).code, label).toBe("no_merge_base");
      continue;
    }
    const raw = answer.stdout.split("\0");
    const expected: { path: string; previous?: string; added?: number; removed?: number }[] = [];
    for (let at = 0; at < raw.length - 1; at++) {
      // The name is everything after the second tab: a name may hold a tab itself.
      const [added = "", removed = "", ...nameParts] = (raw[at] ?? "").split("\t");
      const name = nameParts.join("\t");
      const counts = added === "-" ? {} : { added: Number(added), removed: Number(removed) };
      if (name === "") {
        expected.push({ path: raw[at + 2] ?? "", previous: raw[at + 1] ?? "", ...counts });
        at += 2;
      } else expected.push({ path: name, ...counts });
    }
    const actual = output<DiffRangeOutput>(result).files.map((file) => ({
      path: file.path,
      ...(file.previous_path === undefined ? {} : { previous: file.previous_path }),
      ...(file.added === undefined ? {} : { added: file.added, removed: file.removed }),
    }));
    const order = (list: typeof expected) => [...list].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    expect(order(actual), label).toEqual(order(expected));
  }
}

async function compareContributors(history: FastImportHistory, run: Run): Promise<void> {
  const scopes = [undefined, "d", "x", "a.txt"];
  const answers = gitMany(
    history.directory,
    scopes.flatMap((scope) => {
      const pathArgs = scope === undefined ? [] : ["--", scope];
      return [
        ["shortlog", "-sne", "HEAD", ...pathArgs],
        ["log", "--numstat", "-z", "--format=%x01%H %P", "HEAD", ...pathArgs],
      ];
    }),
  );
  for (const [index, scope] of scopes.entries()) {
    const expected = new Map<string, number>();
    for (const line of must(answers[2 * index])
      .split("\n")
      .filter(Boolean)) {
      const [count = "", person = ""] = line.trim().split("\t");
      expected.set(person, Number(count));
    }
    const result = await run.call("git_contributor_context", {
      ...(scope === undefined ? {} : { path: scope }),
      max_results: 100,
    });
    const label = `contributors of ${scope ?? "."}`;
    if (scope !== undefined && expected.size === 0) {
      expect(failure(result).code, label).toBe("path_not_found");
      continue;
    }
    const answer = output<ContributorOutput>(result);
    expect(new Map(answer.contributors.map((person) => [`${person.name} <${person.email}>`, person.commits])), label).toEqual(
      expected,
    );
    const blocks = numstatBlocks(must(answers[2 * index + 1])).filter((block) => !block.merge);
    const sum = (
      pick: (value: { added: number; removed: number }) => number,
      list: readonly { added: number; removed: number }[],
    ) => list.reduce((total, value) => total + pick(value), 0);
    expect(
      [sum((value) => value.added, answer.contributors), sum((value) => value.removed, answer.contributors)],
      `${label} lines`,
    ).toEqual([sum((value) => value.added, blocks), sum((value) => value.removed, blocks)]);
  }
}

async function compareSearches(history: FastImportHistory, run: Run): Promise<void> {
  const { directory } = history;
  const dates = git(directory, ["log", "--all", "--format=%ct"]).split("\n").filter(Boolean).map(Number).sort();
  const middle = new Date((dates[Math.floor(dates.length / 2)] as number) * 1000).toISOString();
  const branches = git(directory, ["for-each-ref", "--format=%(refname:short)", "refs/heads"]).split("\n").filter(Boolean);
  const cases: { args: Record<string, unknown>; cli: string[] }[] = [
    { args: { query: "needle", mode: "message" }, cli: ["-i", "-F", "--grep=needle"] },
    { args: { query: "ünïcode", mode: "message" }, cli: ["-i", "-F", "--grep=Ünïcode"] },
    { args: { query: "return null;", mode: "pickaxe" }, cli: ["-Sreturn null;"] },
    { args: { query: "gamma", mode: "pickaxe", path: "d" }, cli: ["-Sgamma", "--", "d"] },
    { args: { query: "needle", mode: "message", since: middle }, cli: ["-i", "-F", "--grep=needle", `--since=${middle}`] },
    { args: { query: "alpha", mode: "pickaxe", since: middle }, cli: ["-Salpha", `--since=${middle}`] },
    ...branches.map((branch) => ({ args: { query: "e", mode: "message", ref: branch }, cli: ["-i", "-F", "--grep=e", branch] })),
  ];
  const logs = gitMany(
    directory,
    cases.map(({ cli }) => ["log", "--format=%H", ...cli]),
  );
  for (const [index, { args }] of cases.entries()) {
    const answer = output<LogSearchOutput>(await run.call("git_log_search", { ...args, max_results: 200 }));
    expect(
      answer.commits.map((commit) => commit.sha),
      JSON.stringify(args),
    ).toEqual(ids(logs[index]));
  }
  // File history and contributors since the same moment.
  const sinceAnswers = gitMany(directory, [
    ["log", "--format=%H", `--since=${middle}`, "--", "a.txt"],
    ["shortlog", "-sne", `--since=${middle}`, "HEAD"],
  ]);
  const expectedHistory = ids(sinceAnswers[0]);
  const historyResult = await run.call("git_file_history", {
    path: "a.txt",
    follow_renames: false,
    since: middle,
    max_results: 200,
  });
  if (historyResult.ok)
    expect(
      output<FileHistoryOutput>(historyResult).commits.map((commit) => commit.sha),
      "history of a.txt since",
    ).toEqual(expectedHistory);
  else expect(expectedHistory, "history of a.txt since (the tool found none)").toEqual([]);
  const contributors = output<ContributorOutput>(
    await run.call("git_contributor_context", { since: middle, max_results: 100 }),
  ).contributors.reduce((total, person) => total + person.commits, 0);
  const shortlogTotal = must(sinceAnswers[1])
    .split("\n")
    .filter(Boolean)
    .reduce((total, line) => total + Number(line.trim().split("\t")[0]), 0);
  expect(contributors, "contributors since").toBe(shortlogTotal);
}

/** Runs every comparison on the repository of `seed`; on failure, the seed and the stream. */
export async function checkSeed(seed: number, commits = 12): Promise<void> {
  const history = buildFastImportHistory(seed, commits);
  directories.push(history.directory);
  const run = gitRun(history.directory);
  try {
    await compareHistory(history, run);
    await compareBlame(history, run);
    await compareDiffs(history, run);
    await compareContributors(history, run);
    await compareSearches(history, run);
  } catch (error) {
    const stream = history.stream.toString("utf8");
    throw new Error(
      `seed ${seed} (${history.directory}): ${(error as Error).message}\n--- fast-import stream ---\n${stream}--- end ---`,
    );
  }
}

describe.skipIf(gitCapability.missing)(gitCapability.label("git tools against the git CLI on fast-import histories"), () => {
  it(
    `seeds ${FIRST_SEED}..${FIRST_SEED + SEED_COUNT - 1}: file history, follow, blame, diff, contributors and log search equal git's`,
    async () => {
      // Every seed is checked (a sweep reports all its failing seeds, one line each, then the first in full).
      const failures: Error[] = [];
      for (let seed = FIRST_SEED; seed < FIRST_SEED + SEED_COUNT; seed++) {
        await checkSeed(seed, COMMITS).catch((error: Error) => failures.push(error));
      }
      if (failures.length > 0) {
        const summary = failures.map((error) => error.message.split("\n")[0]).join("\n");
        throw new Error(`${failures.length} of ${SEED_COUNT} seeds differ:\n${summary}\n\n${failures[0]?.message}`);
      }
    },
    300_000 * Math.max(1, SEED_COUNT / 2),
  );
});
