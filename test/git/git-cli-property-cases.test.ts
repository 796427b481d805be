/**
 * The minimal cases the property tests of git-cli-property.test.ts found, kept as regression
 * tests: each compares a tool's answer with the git CLI on the smallest repository that showed it.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { FileHistoryOutput } from "../../src/git/file-history-tool.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";

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
});
