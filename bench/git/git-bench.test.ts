import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitTools, type FileHistoryOutput, GIT_TOOL_NAMES, type LogSearchOutput } from "../../src/git/index.js";
import { benchCases, measureGitCases, renderGitBench } from "./git-bench.js";
import { type SyntheticHistory, writeSyntheticHistory } from "./synthetic-history.js";

const git = (directory: string, ...args: string[]) => execFileSync("git", ["-C", directory, ...args], { encoding: "utf8" });
const ids = (output: string) => output.split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line));

let directory: string;
let history: SyntheticHistory;

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), "atc-git-bench-smoke-"));
  git(directory, "init", "-q", "-b", "main");
  history = writeSyntheticHistory(directory, { commits: 300, files: 24, seed: 3 });
  git(directory, "reset", "-q", "--hard", "main");
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("the synthetic history", () => {
  it("has the commits, merges and renames it reports", () => {
    expect(Number(git(directory, "rev-list", "--count", "HEAD"))).toBe(history.commits);
    expect(Number(git(directory, "rev-list", "--count", "--merges", "HEAD"))).toBe(history.merges);
    expect(history.merges).toBeGreaterThan(0);
    expect(history.renames).toBeGreaterThan(0);
    expect(git(directory, "ls-files")).toContain(history.busyFile);
  });
});

describe("the git benchmark on a small repository", () => {
  it("asks questions the tools answer like git", async () => {
    const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: directory } });
    run.activate([...GIT_TOOL_NAMES]);
    const search = await run.call("git_log_search", { query: history.rareToken, mode: "pickaxe", max_results: 200 });
    const expected = ids(git(directory, "log", `-S${history.rareToken}`, "-s", "--format=%H"));
    expect(expected.length).toBeGreaterThan(0);
    expect(search.ok && (search.output as LogSearchOutput).commits.map((commit) => commit.sha)).toEqual(
      expected.map((id) => id.slice(0, 10)),
    );
    const file = await run.call("git_file_history", { path: history.busyFile, max_results: 200, follow_renames: false });
    const follow = ids(git(directory, "log", "--format=%H", "--", history.busyFile));
    expect(file.ok && (file.output as FileHistoryOutput).commits.map((commit) => commit.sha)).toEqual(
      follow.map((id) => id.slice(0, 10)),
    );
  });

  it("measures every case against the CLI and renders a table", async () => {
    const lines = git(directory, "show", `HEAD:${history.busyFile}`).split("\n").length - 1;
    const cases = benchCases({ ...history, lines, diffDistance: 20 });
    const result = await measureGitCases(directory, cases, { runs: 1, synthetic: true });
    expect(result.measurements.map((row) => row.tool)).toEqual(cases.map((benchCase) => benchCase.tool));
    for (const row of result.measurements) {
      expect(row.cliMs, row.label).toBeGreaterThan(0);
      expect(Number.isFinite(row.coldRatio) && Number.isFinite(row.warmRatio), row.label).toBe(true);
      expect(row.verified, row.label).toBe(true);
    }
    expect(renderGitBench(result)).toContain("| log search, pickaxe, whole history |");
    // With dist/ built, each case also ran once in a new node process: allow for those starts.
  }, 120_000);

  it("measures only the rows asked for, after checking every case (run-git-rows.ts)", async () => {
    const lines = git(directory, "show", `HEAD:${history.busyFile}`).split("\n").length - 1;
    const cases = benchCases({ ...history, lines, diffDistance: 20 });
    const only = ["file history, 200 commits", "log search, pickaxe, new query on a warm cache"];
    const result = await measureGitCases(directory, cases, { runs: 1, synthetic: true, only });
    // In the cases' order, whatever the order asked.
    expect(result.measurements.map((row) => row.label)).toEqual([...only].reverse());
    for (const row of result.measurements) expect(row.verified, row.label).toBe(true);
  }, 120_000);
});
