import * as nodeFs from "node:fs";
import type { Run } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  BlameOutput,
  ContributorOutput,
  DiffRangeOutput,
  FileHistoryOutput,
  GitToolOptions,
  LogSearchOutput,
} from "../../src/git/index.js";
import { copyRepository, git, removeDirectory } from "./support/git-fixture.js";
import { blameIds, contributorTotals, diffNameStatus, diffNumstat, logIds, logNumstat } from "./support/git-oracle.js";
import { gitRun, output } from "./support/git-run.js";
import { buildHistoryFixture, type HistoryFixture } from "./support/history-fixture.js";

const short = (id: string) => id.slice(0, 10);
const shas = (result: { commits: readonly { sha: string }[] }) => result.commits.map((commit) => commit.sha);

let loose: HistoryFixture;
let packed: HistoryFixture;

beforeAll(() => {
  loose = buildHistoryFixture("loose");
  // The same history (same commit ids: the build is deterministic), copied rather than built twice.
  packed = { ...loose, directory: copyRepository(loose.directory, "packed") };
  // Packed with deltas (and without offset deltas for half the objects' bases), to drive the pack reader.
  git(packed.directory, ["-c", "repack.useDeltaBaseOffset=false", "gc", "-q", "--aggressive"]);
});

afterAll(() => {
  removeDirectory(loose.directory);
  removeDirectory(packed.directory);
});

const variants: [string, () => HistoryFixture, GitToolOptions][] = [
  ["loose objects, node reader", () => loose, {}],
  ["packed objects, node reader", () => packed, {}],
  ["loose objects, isomorphic-git reader", () => loose, { fs: nodeFs }],
  ["packed objects, isomorphic-git reader", () => packed, { fs: nodeFs }],
];

describe.each(variants)("the git tools agree with the git CLI (%s)", (_, fixture, options) => {
  let run: Run;
  let directory: string;
  beforeAll(() => {
    directory = fixture().directory;
    run = gitRun(directory, { ...options, now: () => new Date("2024-01-12T00:00:00Z") });
  });

  const search = async (args: Record<string, unknown>) => output<LogSearchOutput>(await run.call("git_log_search", args));

  it("git_log_search message mode matches git log -i -F --grep", async () => {
    for (const query of ["needle", "FEATURE", "parser", "no such words"]) {
      const expected = logIds(directory, ["-i", "-F", `--grep=${query}`]).map(short);
      expect(shas(await search({ query, mode: "message" })), query).toEqual(expected);
    }
  });

  it("git_log_search pickaxe matches git log -S (merges have no diff of their own), binary files included", async () => {
    for (const query of ["needle", "parser", "value8 = 80", "export const again", "no such code"]) {
      const expected = logIds(directory, ["-S", query, "-s"]).map(short);
      const result = await search({ query, mode: "pickaxe", max_results: 200 });
      expect(shas(result), query).toEqual(expected);
    }
    const needle = await search({ query: "needle", mode: "pickaxe" });
    expect(needle.commits.find((commit) => commit.subject === "Tweak app and logo")?.files).toEqual(["assets/logo.png"]);
    expect(needle.commits.find((commit) => commit.subject === "Merge branch 'feature'")).toBeUndefined();
    // The pure rename moved the needle without changing how often it occurs.
    expect(needle.commits.some((commit) => commit.subject.startsWith("Rename"))).toBe(false);
  });

  it("git_log_search both mode is the union, and path limits both sides like a pathspec", async () => {
    const all = logIds(directory, []);
    const grep = new Set(logIds(directory, ["-i", "-F", "--grep=needle"]));
    const pickaxe = new Set(logIds(directory, ["-S", "needle", "-s"]));
    const both = await search({ query: "needle" });
    expect(both.mode).toBe("both");
    expect(shas(both)).toEqual(all.filter((id) => grep.has(id) || pickaxe.has(id)).map(short));
    // With a path, the walk is git log -- src (history simplified), filtered by --grep or -S.
    const grepInSrc = new Set(logIds(directory, ["-i", "-F", "--grep=needle", "--", "src"]));
    const pickaxeInSrc = new Set(logIds(directory, ["-S", "needle", "-s", "--", "src"]));
    const expected = logIds(directory, ["--", "src"])
      .filter((id) => grepInSrc.has(id) || pickaxeInSrc.has(id))
      .map(short);
    expect(shas(await search({ query: "needle", path: "src" }))).toEqual(expected);
  });

  it("git_log_search honours since (ISO and relative), ref and max_results", async () => {
    const since = logIds(directory, ["-i", "-F", "--grep=e", "--since=2024-01-07T00:00:00+00:00"]).map(short);
    expect(since.length).toBeGreaterThan(2);
    expect(shas(await search({ query: "e", mode: "message", since: "2024-01-07", max_results: 200 }))).toEqual(since);
    const relative = await search({ query: "e", mode: "message", since: "5 days ago", max_results: 200 });
    expect(shas(relative)).toEqual(since);
    const onFeature = await search({ query: "feature", mode: "message", ref: "feature" });
    expect(shas(onFeature)).toEqual(logIds(directory, ["-i", "-F", "--grep=feature", "feature"]).map(short));
    const cut = await search({ query: "needle", max_results: 2 });
    expect(cut.commits).toHaveLength(2);
    expect(cut.truncated).toBe(true);
    expect(cut.omitted).toContain("raise max_results");
    expect((await search({ query: "needle", max_results: 200 })).truncated).toBe(false);
  });

  const history = async (args: Record<string, unknown>) => output<FileHistoryOutput>(await run.call("git_file_history", args));

  it("git_file_history follows renames and counts lines like git log --follow --numstat", async () => {
    for (const path of ["src/main.ts", "lib/parser.ts", "docs/guide.md", "docs/old.txt"]) {
      // git's own --follow (no -m): no merge is listed or diffed (stop 38; until then the tool and
      // this test used --diff-merges=first-parent, which lists a merge as the file's addition).
      const blocks = logNumstat(directory, ["--follow", "--format=%x01%H", "--", path]);
      const expected = blocks.map((block) => ({
        sha: short(block.id),
        path: block.files[0]?.path,
        added: block.files[0]?.added,
        removed: block.files[0]?.removed,
      }));
      const result = await history({ path });
      expect(result.kind).toBe("file");
      expect(
        result.commits.map(({ sha, path: at, added, removed }) => ({ sha, path: at, added, removed })),
        path,
      ).toEqual(expected);
    }
    const main = await history({ path: "src/main.ts" });
    expect(main.commits.find((commit) => commit.status === "R")).toMatchObject({
      path: "src/main.ts",
      previous_path: "src/app.ts",
    });
    const parser = await history({ path: "lib/parser.ts" });
    expect(parser.commits.some((commit) => commit.merge === true)).toBe(false);
    // The file is followed to the side branch's commit that added it, not to the merge that brought it.
    expect(parser.commits.at(-1)).toMatchObject({ status: "A", path: "src/parser.ts" });
    expect(
      git(directory, ["rev-list", "--parents", "-n", "1", parser.commits.at(-1)?.sha ?? ""])
        .trim()
        .split(" "),
    ).toHaveLength(2);
  });

  it("git_file_history without follow, for a directory, and for a binary file", async () => {
    const unfollowed = await history({ path: "src/main.ts", follow_renames: false });
    expect(unfollowed.follows_renames).toBe(false);
    const since = logNumstat(directory, [
      "--full-history",
      "--diff-merges=first-parent",
      "--no-renames",
      "--format=%x01%H",
      "--",
      "src/main.ts",
    ]);
    expect(shas(unfollowed)).toEqual(since.filter((block) => block.files.length > 0).map((block) => short(block.id)));
    expect(unfollowed.commits.at(-1)?.status).toBe("A");

    const directoryHistory = await history({ path: "src", max_results: 200 });
    expect(directoryHistory.kind).toBe("directory");
    const blocks = logNumstat(directory, ["--full-history", "--diff-merges=first-parent", "--format=%x01%H", "--", "src"]).filter(
      (block) => block.files.length > 0,
    );
    expect(
      directoryHistory.commits.map(({ sha, added, removed, files_changed }) => ({ sha, added, removed, files_changed })),
    ).toEqual(
      blocks.map((block) => ({
        sha: short(block.id),
        added: block.files.reduce((sum, file) => sum + (file.added ?? 0), 0),
        removed: block.files.reduce((sum, file) => sum + (file.removed ?? 0), 0),
        files_changed: block.files.length,
      })),
    );

    const logo = await history({ path: "assets/logo.png" });
    expect(logo.commits.map((commit) => commit.binary)).toEqual([true, true]);
    expect(logo.commits.every((commit) => commit.added === undefined)).toBe(true);
  });

  const blame = async (args: Record<string, unknown>) => output<BlameOutput>(await run.call("git_blame_context", args));

  it("git_blame_context matches git blame --porcelain through merges and renames", async () => {
    for (const [revision, path] of [
      ["HEAD", "src/main.ts"],
      ["HEAD", "lib/parser.ts"],
      ["HEAD", "README.md"],
      ["HEAD", "docs/guide.md"],
      ["HEAD", "notes.txt"],
      ["v1", "src/app.ts"],
      ["v2", "lib/parser.ts"],
    ] as const) {
      const result = await blame({ path, ref: revision, start_line: 1, end_line: 400, context: 0 });
      const expected = blameIds(directory, revision, path, 1, result.total_lines);
      expect(new Map(result.lines.map((line) => [line.line, line.sha])), `${revision}:${path}`).toEqual(
        new Map([...expected].map(([line, id]) => [line, short(id)])),
      );
    }
  });

  it("git_blame_context shows context lines, commit subjects and the path a line came from", async () => {
    const result = await blame({ path: "lib/parser.ts", line: 3, context: 1 });
    expect(result.range).toEqual({ start: 3, end: 3 });
    expect(result.lines.map((line) => [line.line, line.context === true])).toEqual([
      [2, true],
      [3, false],
      [4, true],
    ]);
    const line = result.lines[1];
    expect(line?.text).toBe("  return needle;");
    const commit = result.commits[line?.sha ?? ""];
    expect(commit).toMatchObject({ author: "Carol Cole", subject: "feature: add parser", path: "src/parser.ts" });
    const shared = await blame({ path: "notes.txt", line: 2, context: 0 });
    expect(shared.lines.map((entry) => [entry.text, entry.author, shared.commits[entry.sha]?.subject])).toEqual([
      ["shared", "Carol Cole", "feature: drop one needle"],
    ]);
    const readme = await blame({ path: "README.md", start_line: 4 });
    expect(readme.lines.at(-1)).toMatchObject({ line: 4, author: "Carol Cole", text: "Now with a parser.", date: "2024-01-04" });
  });

  const diff = async (args: Record<string, unknown>) => output<DiffRangeOutput>(await run.call("git_diff_range", args));

  it("git_diff_range prints exactly what git diff prints, with the same numstat and renames", async () => {
    const { commits } = fixture();
    for (const [from, to, path] of [
      [commits.initial, "HEAD", undefined],
      ["v1", "v2", undefined],
      [commits.tweak, commits.merge, undefined],
      [commits.needle, "HEAD", "src"],
      ["HEAD", commits.initial, undefined],
      [commits.move, commits.docs, undefined],
    ] as const) {
      const result = await diff({ from, to, ...(path === undefined ? {} : { path }), max_bytes: 200_000 });
      const label = `${from}..${to} ${path ?? ""}`;
      expect(result.diff, label).toBe(git(directory, ["diff", from, to, ...(path === undefined ? [] : ["--", path])]));
      expect(
        result.files.map((file) => ({ path: file.path, added: file.added, removed: file.removed })),
        label,
      ).toEqual(diffNumstat(directory, from, to, path));
      if (path === undefined) {
        expect(
          result.files.map((file) => ({
            status: file.status,
            path: file.path,
            ...(file.previous_path ? { previous: file.previous_path } : {}),
          })),
        ).toEqual(diffNameStatus(directory, from, to));
      }
      expect(result.truncated).toBe(false);
    }
  });

  it("git_diff_range marks binary files and cuts at max_bytes, saying what it left out", async () => {
    const binary = await diff({ from: fixture().commits.initial, to: "v1", path: "assets" });
    expect(binary.files).toEqual([{ path: "assets/logo.png", status: "M", binary: true }]);
    expect(binary.diff).toContain("Binary files a/assets/logo.png and b/assets/logo.png differ");
    expect(binary.diff.split("\n").some((line) => /^[+-][^+-]/.test(line))).toBe(false);
    const cut = await diff({ from: fixture().commits.initial, max_bytes: 1000 });
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.diff)).toBeLessThanOrEqual(1000);
    expect(cut.omitted).toMatch(/The diff of \S+ is cut after \d+ of \d+ lines/);
    expect(cut.files).toHaveLength(diffNumstat(directory, fixture().commits.initial, "HEAD").length);
    // Every file is either in the diff text or named as left out.
    for (const file of cut.files) {
      const shown = cut.diff.includes(` b/${file.path}\n`);
      expect(shown || (cut.omitted ?? "").includes(file.path), file.path).toBe(true);
    }
    const tiny = await diff({ from: fixture().commits.initial, max_bytes: 1000, context_lines: 0, path: "docs" });
    expect(tiny.truncated).toBe(false);
  });

  const contributors = async (args: Record<string, unknown>) =>
    output<ContributorOutput>(await run.call("git_contributor_context", args));

  it("git_contributor_context counts commits and lines like git log --numstat", async () => {
    for (const path of [undefined, "src", "lib/parser.ts"]) {
      const result = await contributors(path === undefined ? {} : { path });
      const expected = contributorTotals(directory, path);
      const actual = new Map(
        result.contributors.map((entry) => [
          entry.email,
          { commits: entry.commits, merges: entry.merges, added: entry.added, removed: entry.removed },
        ]),
      );
      expect(actual, path ?? "repository").toEqual(expected);
      expect(result.total_commits).toBe([...expected.values()].reduce((sum, entry) => sum + entry.commits, 0));
    }
    const ranking = [...contributorTotals(directory)]
      .sort(([x, a], [y, b]) => b.commits - a.commits || b.added + b.removed - (a.added + a.removed) || x.localeCompare(y))
      .map(([email]) => email);
    const top = await contributors({ max_results: 2 });
    expect(top.contributors.map((entry) => entry.email)).toEqual(ranking.slice(0, 2));
    expect(top).toMatchObject({ truncated: true, total_contributors: 4 });
    expect(top.omitted).toContain("2 less active contributors left out");
    const alice = (await contributors({})).contributors.find((entry) => entry.name === "Alice Able");
    expect(alice).toMatchObject({ first_commit: "2024-01-02T12:00:00+01:00", last_commit: "2024-01-08T12:00:00+01:00" });
  });
});
