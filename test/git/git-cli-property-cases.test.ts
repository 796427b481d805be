/**
 * The minimal cases the property tests of git-cli-property.test.ts found, kept as regression
 * tests: each compares a tool's answer with the git CLI on the smallest repository that showed it.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ContributorOutput } from "../../src/git/contributor-tool.js";
import type { DiffRangeOutput } from "../../src/git/diff-range-tool.js";
import type { FileHistoryOutput } from "../../src/git/file-history-tool.js";
import type { LogSearchOutput } from "../../src/git/log-search-tool.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";
import { buildRepository, type RepositoryPlan } from "./support/random-repository.js";

const gitCapability = capability("git");
const author = { name: "Ann", email: "ann@example.com" };
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) removeDirectory(directory);
});

const logIds = (directory: string, path: string) =>
  git(directory, ["log", "--format=%H", "--", path])
    .split("\n")
    .filter(Boolean)
    .map((id) => id.slice(0, 10));

describe.skipIf(gitCapability.missing)(gitCapability.label("minimal cases found by the git property tests"), () => {
  it("git_file_history of a directory deleted before HEAD lists what git log -- <dir> lists (it said path_not_found)", async () => {
    const fixture = FixtureRepository.create("gone-dir");
    directories.push(fixture.directory);
    fixture.write("a.txt", "a\n").commit("first", author);
    fixture.write("d/b.txt", "b\n").write("d/e/c.txt", "c\n").commit("add d", author);
    fixture.write("d/b.txt", "b\nb\n").commit("edit d", author);
    fixture.remove("d/b.txt").remove("d/e/c.txt").commit("remove d", author);
    const run = gitRun(fixture.directory);
    for (const path of ["d", "d/e"]) {
      const expected = logIds(fixture.directory, path);
      expect(expected.length).toBeGreaterThan(1);
      const answer = output<FileHistoryOutput>(await run.call("git_file_history", { path, follow_renames: false }));
      expect(
        answer.commits.map((commit) => commit.sha),
        path,
      ).toEqual(expected);
      expect(answer.kind, path).toBe("directory");
      expect(answer.commits[0]?.files_changed, path).toBeGreaterThan(0);
    }
    // Control: a deleted file is still a file, with its deletion first.
    const file = output<FileHistoryOutput>(await run.call("git_file_history", { path: "d/b.txt" }));
    expect(file.kind).toBe("file");
    expect(file.commits.map((commit) => commit.sha)).toEqual(logIds(fixture.directory, "d/b.txt"));
    expect(file.commits[0]?.status).toBe("D");
  });

  it("a commit named by id in git_diff_range is not counted twice by later walks of a commit-graph history (it was: 5 commits, git 4)", async () => {
    const fixture = FixtureRepository.create("peel-twice");
    directories.push(fixture.directory);
    const root = fixture.write("a.txt", "a\n").commit("root needle", author);
    fixture.git("checkout", "-q", "-b", "side");
    fixture.write("b.txt", "b\n").commit("side needle", author);
    fixture.git("checkout", "-q", "main");
    const merge = fixture.merge("side", "merge needle", author);
    // The graph lists these three; the next commit is outside it, so the walk reads its parents by
    // id: the merge and the root parsed by id (named in git_diff_range), the side commit from the
    // graph, whose parent (the root again) the walk reaches by graph position.
    fixture.git("commit-graph", "write", "--reachable");
    fixture.write("a.txt", "a\nc\n").commit("tip needle", author);
    const expected = git(fixture.directory, ["log", "--format=%H"])
      .split("\n")
      .filter(Boolean)
      .map((id) => id.slice(0, 10));
    expect(expected).toHaveLength(4);
    const run = gitRun(fixture.directory);
    const search = async () =>
      output<LogSearchOutput>(
        await run.call("git_log_search", { query: "needle", mode: "message", max_results: 50 }),
      ).commits.map((commit) => commit.sha);
    // Control: the same questions before any commit was named by id.
    expect(await search()).toEqual(expected);
    for (const [from, to] of [
      [root, "HEAD"],
      [merge, "HEAD"],
    ]) {
      expect((await run.call("git_diff_range", { from, to })).ok).toBe(true);
    }
    expect(await search()).toEqual(expected);
    const contributors = output<ContributorOutput>(await run.call("git_contributor_context", {}));
    expect(contributors.total_commits).toBe(4);
  });

  it("in a bare repository, a path starting with a dot (.mailmap) is that path (it lost the dot: path_not_found)", async () => {
    const fixture = FixtureRepository.create("bare-dot");
    directories.push(fixture.directory);
    fixture.write(".hidden", "one\n").write("plain.txt", "one\n").commit("first", author);
    fixture.write(".hidden", "one\ntwo\n").commit("second", author);
    const bare = `${fixture.directory}-bare.git`;
    directories.push(bare);
    git(fixture.directory, ["clone", "-q", "--bare", fixture.directory, bare]);
    const run = gitRun(fixture.directory, { repositoryPath: bare });
    // Control: a name without a dot, and "./" before a dotted name, which is the same path.
    for (const path of ["plain.txt", ".hidden", "./.hidden"]) {
      const answer = output<FileHistoryOutput>(await run.call("git_file_history", { path }));
      expect(
        answer.commits.map((commit) => commit.sha),
        path,
      ).toEqual(logIds(bare, path));
      expect(answer.path, path).toBe(path.replace(/^\.\//, ""));
    }
  });
  it("git_file_history follows a file added as a copy of another file, changed or not, exact or similar, as git log --follow does (it followed renames only: the copy's history stopped at the copy)", async () => {
    const fixture = FixtureRepository.create("follow-copies");
    directories.push(fixture.directory);
    fixture.write("x.txt", "one\ntwo\nthree\nfour\n").commit("add x", author);
    fixture.write("x.txt", "one\ntwo\nthree\nfour\nfive\n").commit("edit x", author);
    fixture.write("y.txt", "one\ntwo\nthree\nfour\nfive\n").commit("copy x to y, x unchanged", author);
    fixture
      .write("z.txt", "one\ntwo\nthree\nfour\nfive\n")
      .write("x.txt", "one\ntwo\nthree\nfour\nfive\nsix\n")
      .commit("copy x to z, x changed", author);
    fixture.write("w.txt", "one\ntwo\nthree\nfour\nfive\nseven\n").commit("w: a similar copy of x", author);
    // Control: a rename with an identical copy source left beside it is a rename (git prefers the deleted file).
    fixture.move("z.txt", "v.txt").commit("rename z to v", author);
    const run = gitRun(fixture.directory);
    const followed = (path: string) =>
      git(fixture.directory, ["log", "--follow", "--format=%H", "--", path])
        .split("\n")
        .filter(Boolean)
        .map((id) => id.slice(0, 10));
    for (const [path, status, from] of [
      ["y.txt", "C", "x.txt"],
      ["z.txt", "C", "x.txt"],
      ["w.txt", "C", "x.txt"],
      ["v.txt", "R", "z.txt"],
      ["x.txt", "M", undefined],
    ] as const) {
      const answer = output<FileHistoryOutput>(await run.call("git_file_history", { path, max_results: 50 }));
      const expected = followed(path);
      if (path !== "x.txt") expect(expected.length, path).toBeGreaterThan(2);
      expect(
        answer.commits.map((commit) => commit.sha),
        path,
      ).toEqual(expected);
      const source = answer.commits.find((commit) => commit.previous_path !== undefined);
      expect(source?.status ?? "M", path).toBe(status);
      expect(source?.previous_path, path).toBe(from);
    }
  });
  it("git_file_history of a file that was a directory of the same name before lists the directory's commits too, as git log -- <path> does (found by the property tests, seed 2001)", async () => {
    const fixture = FixtureRepository.create("file-was-directory");
    directories.push(fixture.directory);
    fixture.write("b.txt", "b\n").commit("first", author);
    fixture.write("a.txt/x", "x\n").commit("a.txt is a directory", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "a\n").commit("a.txt is a file", author);
    const expected = logIds(fixture.directory, "a.txt");
    expect(expected).toHaveLength(2);
    const run = gitRun(fixture.directory);
    const answer = output<FileHistoryOutput>(await run.call("git_file_history", { path: "a.txt", follow_renames: false }));
    expect(answer.commits.map((commit) => commit.sha)).toEqual(expected);
    // Control: a file that was never a directory.
    const plain = output<FileHistoryOutput>(await run.call("git_file_history", { path: "b.txt", follow_renames: false }));
    expect(plain.commits.map((commit) => commit.sha)).toEqual(logIds(fixture.directory, "b.txt"));
  });

  it("a submodule entry moved with its commit unchanged is an exact rename in git_diff_range and git_file_history, as git pairs it (the tool never paired submodule entries); found once the generator could build seed 2001 (git add -A refused the conflicted submodule's empty directory)", async () => {
    const empty = { edits: [], author: 0, sameTime: false };
    const plan: RepositoryPlan = {
      first: empty,
      steps: [
        {
          step: "merge",
          sides: [[{ ...empty, edits: [{ op: "gitlink", file: 0 }] }], [empty]],
          mainline: [{ ...empty, edits: [{ op: "symlink", file: 0, target: 1 }] }],
          resolve: "ours",
        },
        { step: "commit", commit: empty },
      ],
    };
    const directory = buildRepository(plan);
    directories.push(directory);
    const run = gitRun(directory);
    // The repository it builds: git pairs the submodule entry on the merge's side as an exact
    // rename (R100, `a.txt~side-1` to `a.txt`) between the merge and its side, and the tool did not (it never paired submodule entries).
    const expected = git(directory, ["diff", "-M", "--name-status", "HEAD~1", "HEAD~1^2"]).trim().split("\n").sort();
    const answer = output<DiffRangeOutput>(await run.call("git_diff_range", { from: "HEAD~1", to: "HEAD~1^2" }));
    const listed = answer.files.map((file) =>
      file.previous_path === undefined
        ? `${file.status}\t${file.path}`
        : `${file.status}100\t${file.previous_path}\t${file.path}`,
    );
    expect(listed.sort()).toEqual(expected);
    for (const path of ["a.txt", "a.txt~side-1", "a.txt~HEAD"]) {
      const followed = git(directory, ["log", "--follow", "--format=%H", "--", path]).split("\n").filter(Boolean);
      const result = await run.call("git_file_history", { path });
      const commits = result.ok ? (result.output as FileHistoryOutput).commits.map((commit) => commit.sha) : [];
      if (followed.length === 0 && result.ok) {
        // A file only a merge added (here `a.txt~side-1`, the merge's resolution): git log --follow
        // prints nothing; the tool gives `git log -- <path>` (the checkFollow rule) and says so.
        const plain = git(directory, ["log", "--format=%H", "--", path]).split("\n").filter(Boolean);
        expect((result.output as FileHistoryOutput).follows_renames, path).toBe(false);
        expect(commits, path).toEqual(plain.map((id) => id.slice(0, 10)));
        continue;
      }
      expect(commits, path).toEqual(followed.map((id) => id.slice(0, 10)));
    }
  }, 60_000);

  it("git_file_history of a file that replaced a directory of its name follows no copy from elsewhere, as git log --follow (seed 3001: it followed an identical d/b.txt)", async () => {
    const fixture = FixtureRepository.create("dir-then-copy");
    directories.push(fixture.directory);
    fixture.write("a.txt/x", "hello\n").commit("a.txt is a directory", author);
    fixture.write("d/b.txt", "xx\0yy\n").commit("add d/b.txt", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "xx\0yy\n").commit("a.txt is a copy of d/b.txt", author);
    const expected = git(fixture.directory, ["log", "--follow", "--format=%H", "--", "a.txt"])
      .split("\n")
      .filter(Boolean)
      .map((id) => id.slice(0, 10));
    expect(expected).toHaveLength(2);
    const answer = output<FileHistoryOutput>(await gitRun(fixture.directory).call("git_file_history", { path: "a.txt" }));
    expect(answer.commits.map((commit) => commit.sha)).toEqual(expected);
    expect(answer.commits.some((commit) => commit.previous_path === "d/b.txt")).toBe(false);
  });

  it("git_file_history of a file that replaced a directory of its name follows no rename into that directory, as git log --follow (seed 52406: it followed a.txt/x on to d/b.txt)", async () => {
    // git's --follow switches its path only where the followed path alone was added; where a file
    // replaced a directory of its name, the directory's files are deleted in the same commit, the
    // R shown is the log's own rename detection, and git goes on by the pathspec "a.txt": the
    // commit that made a.txt/x (a rename of d/b.txt) shows as its addition, followed no further.
    const fixture = FixtureRepository.create("dir-renamed-in");
    directories.push(fixture.directory);
    fixture.write("d/b.txt", "l1\nl2\nl3\nl4\n").commit("add d/b.txt", author);
    fixture.remove("d/b.txt").write("a.txt/x", "l1\nl2\nl3\nl4\n").commit("d/b.txt becomes a.txt/x", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "l1\nl2\nl3\nl4\n").commit("a.txt/x becomes a.txt", author);
    const expected = git(fixture.directory, ["log", "--follow", "--format=%H", "--", "a.txt"])
      .split("\n")
      .filter(Boolean)
      .map((id) => id.slice(0, 10));
    expect(expected).toHaveLength(2);
    const answer = output<FileHistoryOutput>(await gitRun(fixture.directory).call("git_file_history", { path: "a.txt" }));
    expect(answer.commits.map((commit) => commit.sha)).toEqual(expected);
    // The older commit is the change of the directory a.txt (git's pathspec), as every commit
    // with a directory of the file's name is: git prints `A a.txt/x` there.
    expect(answer.commits.map((commit) => [commit.status, commit.path, commit.previous_path, commit.files_changed])).toEqual([
      ["R", "a.txt", "a.txt/x", undefined],
      ["M", "a.txt", undefined, 1],
    ]);
  });

  it("git_file_history of a path gone at the start follows the file into the directory it replaced, as git log --follow (property seed 5402: it summed that commit up as the directory's change)", async () => {
    const fixture = FixtureRepository.create("absent-into-directory");
    directories.push(fixture.directory);
    fixture.write("a.txt/x", "l1\nl2\nl3\nl4\nl5\n").write("a.txt/y", "}\n").commit("a.txt is a directory", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "l1\nl2\nl3\nl4\nl5 edited\n").commit("a.txt/x becomes a.txt, a.txt/y goes", author);
    fixture.remove("a.txt").commit("a.txt goes", author);
    const expected = followNameStatus(fixture.directory);
    expect(expected.map((line) => [line.status, line.from, line.to])).toEqual([
      ["D", "a.txt", undefined],
      ["R", "a.txt/x", "a.txt"],
      ["A", "a.txt/x", undefined],
    ]);
    const answer = output<FileHistoryOutput>(await gitRun(fixture.directory).call("git_file_history", { path: "a.txt" }));
    expect(answer.kind).toBe("file");
    expect(answer.commits.map((commit) => [commit.sha, commit.status, commit.previous_path, commit.files_changed])).toEqual([
      [expected[0]?.sha, "D", undefined, undefined],
      [expected[1]?.sha, "R", "a.txt/x", undefined],
      [expected[2]?.sha, "M", undefined, 2],
    ]);
  });

  /** `git log --follow --name-status -- a.txt` as `sha status [old -> ]new` lines, one per commit (its first file). */
  const followNameStatus = (directory: string) =>
    git(directory, ["log", "--follow", "--format=@%H", "--name-status", "--", "a.txt"])
      .split("@")
      .filter(Boolean)
      .map((block) => {
        const [id, , first] = block.split("\n");
        const [status, from, to] = (first ?? "").split("\t");
        return { sha: (id ?? "").slice(0, 10), status: status?.[0], from, to };
      });

  it("git_file_history, after following a file into the directory it replaced, lists every older change under that directory, as git log --follow (its pathspec stays a.txt; it listed only a.txt/x's)", async () => {
    const fixture = FixtureRepository.create("replaced-dir-prefix");
    directories.push(fixture.directory);
    fixture.write("a.txt", "f0\nf1\nf2\nf3\n").commit("a.txt is a file", author);
    fixture.remove("a.txt").write("a.txt/x", "l1\nl2\nl3\nl4\n").write("a.txt/y", "y1\n").commit("a.txt is a directory", author);
    fixture.write("a.txt/y", "y1\ny2\n").commit("edit a.txt/y", author);
    fixture.write("a.txt/x", "l1\nl2\nl3\nl4\nl5\n").commit("edit a.txt/x", author);
    fixture.write("a.txt/z", "z\n").commit("add a.txt/z", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "l1\nl2\nl3\nl4\nl5\n").commit("a.txt/x becomes a.txt", author);
    fixture.write("a.txt", "l1\nl2\nl3\nl4\nl5\nl6\n").commit("edit a.txt", author);
    const expected = followNameStatus(fixture.directory);
    expect(expected.map((line) => line.status)).toEqual(["M", "R", "A", "M", "M", "D", "A"]);
    const answer = output<FileHistoryOutput>(await gitRun(fixture.directory).call("git_file_history", { path: "a.txt" }));
    expect(answer.commits.map((commit) => commit.sha)).toEqual(expected.map((line) => line.sha));
    expect(answer.commits.map((commit) => [commit.status, commit.path, commit.previous_path, commit.files_changed])).toEqual([
      ["M", "a.txt", undefined, undefined],
      ["R", "a.txt", "a.txt/x", undefined],
      ["M", "a.txt", undefined, 1],
      ["M", "a.txt", undefined, 1],
      ["M", "a.txt", undefined, 1],
      ["M", "a.txt", undefined, 3],
      ["A", "a.txt", undefined, undefined],
    ]);
  });

  it("git_file_history, after following a file into the directory it replaced, still follows an older rename to a.txt, as git log --follow (its pathspec stays a.txt)", async () => {
    const fixture = FixtureRepository.create("replaced-dir-then-rename");
    directories.push(fixture.directory);
    fixture.write("b.txt", "b1\nb2\nb3\nb4\nb5\n").commit("add b.txt", author);
    fixture.write("c.txt", "other\n").commit("add c.txt", author);
    fixture.remove("b.txt").write("a.txt", "b1\nb2\nb3\nb4\nb5\nb6\n").commit("b.txt becomes a.txt", author);
    fixture.remove("a.txt").write("a.txt/x", "l1\nl2\nl3\nl4\n").write("a.txt/y", "y1\n").commit("a.txt is a directory", author);
    fixture.write("a.txt/y", "y1\ny2\n").commit("edit a.txt/y", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "l1\nl2\nl3\nl4\n").commit("a.txt/x becomes a.txt", author);
    const expected = followNameStatus(fixture.directory);
    expect(expected.map((line) => `${line.status} ${line.from}`)).toEqual([
      "R a.txt/x",
      "M a.txt/y",
      "D a.txt",
      "R b.txt",
      "A b.txt",
    ]);
    const answer = output<FileHistoryOutput>(await gitRun(fixture.directory).call("git_file_history", { path: "a.txt" }));
    expect(answer.commits.map((commit) => commit.sha)).toEqual(expected.map((line) => line.sha));
    expect(answer.commits.map((commit) => [commit.status, commit.path, commit.previous_path])).toEqual([
      ["R", "a.txt", "a.txt/x"],
      ["M", "a.txt", undefined],
      ["M", "a.txt", undefined],
      ["R", "a.txt", "b.txt"],
      ["A", "b.txt", undefined],
    ]);
  });

  it("a submodule entry added under one (a.txt/x where a.txt is one) replaces it, as the working tree has it (the generator's update-index refused: seed 5005)", async () => {
    const empty = { edits: [], author: 0, sameTime: false };
    const plan: RepositoryPlan = {
      first: empty,
      steps: [
        {
          step: "merge",
          sides: [[{ ...empty, edits: [{ op: "gitlink", file: 0 }] }], [empty]],
          mainline: [],
          resolve: "ours",
        },
        { step: "commit", commit: { ...empty, edits: [{ op: "gitlink", file: 9 }] } },
        { step: "commit", commit: empty },
      ],
    };
    const directory = buildRepository(plan);
    directories.push(directory);
    const entries = git(directory, ["ls-files", "-s"]).trim().split("\n");
    expect(entries.map((entry) => entry.split("\t")[1])).toEqual(["a.txt/x"]);
    expect(entries[0]).toMatch(/^160000 /);
    // The tools agree with git on the history the two entries make.
    const run = gitRun(directory);
    for (const path of ["a.txt", "a.txt/x"]) {
      const answer = output<FileHistoryOutput>(await run.call("git_file_history", { path, follow_renames: false }));
      expect(answer.commits.map((commit) => commit.sha)).toEqual(logIds(directory, path));
    }
  });
});
