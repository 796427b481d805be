/**
 * Which parent version git blame passes lines to (git's `pass_blame`): every parent's file at the
 * same path first, in parent order, then renames, each found with the blamed path as the only
 * destination; a directory of the same name counts as no file, another file type as no origin.
 * Each case is the smallest repository that showed our answer differing from `git blame`.
 */
import { chmodSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BlameOutput } from "../../src/git/blame-tool.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";

const gitCapability = capability("git");
const author = { name: "Ann", email: "ann@example.com" };
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) removeDirectory(directory);
});

function repository(prefix: string): FixtureRepository {
  const fixture = FixtureRepository.create(prefix);
  directories.push(fixture.directory);
  fixture.git("checkout", "-q", "-b", "main");
  return fixture;
}

/** `git blame --porcelain`'s commit per line (short ids). */
function gitBlame(directory: string, file: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const line of git(directory, ["blame", "--porcelain", "HEAD", "--", file]).split("\n")) {
    const match = /^([0-9a-f]{40}) (\d+) (\d+)/.exec(line);
    if (match !== null) lines.set(Number(match[3]), (match[1] ?? "").slice(0, 10));
  }
  return lines;
}

async function toolBlame(directory: string, file: string): Promise<Map<number, string>> {
  const answer = output<BlameOutput>(
    await gitRun(directory).call("git_blame_context", { path: file, start_line: 1, end_line: 50, context: 0 }),
  );
  return new Map(answer.lines.map((line) => [line.line, line.sha]));
}

/** The tool agrees with git blame, and git blames every line on `expected`: read loose, then from a commit-graph. */
async function expectGitsAnswer(fixture: FixtureRepository, file: string, expected: string): Promise<void> {
  const answer = gitBlame(fixture.directory, file);
  expect([...new Set(answer.values())], `git blame ${file}`).toEqual([expected.slice(0, 10)]);
  expect(await toolBlame(fixture.directory, file), file).toEqual(answer);
  fixture.git("commit-graph", "write", "--reachable", "--changed-paths");
  expect(await toolBlame(fixture.directory, file), `${file} (commit-graph)`).toEqual(gitBlame(fixture.directory, file));
}

/** A commit on top that leaves `file` alone, so the walk reaches the interesting commit from the graph. */
function commitOnTop(fixture: FixtureRepository): void {
  fixture.write("top.txt", "top\n").commit("top", author);
}

describe.skipIf(gitCapability.missing)(gitCapability.label("git_blame_context picks the parent version git blame picks"), () => {
  it("an octopus merge whose first side copied a file and whose second renamed it: the side with the same path takes the lines (it went to the renamed-from file; found by the property tests, seed 777)", async () => {
    const fixture = repository("blame-octopus");
    fixture.write("base.txt", "base\n").commit("base", author);
    fixture.write("s.txt", "alpha\n").commit("add s", author);
    fixture.git("checkout", "-q", "-b", "copy");
    const copied = fixture.write("a.txt", "alpha\n").commit("copy s to a", author);
    fixture.git("checkout", "-q", "-b", "rename", "main");
    fixture.move("s.txt", "a.txt");
    const renamed = fixture.commit("rename s to a", author);
    fixture.git("checkout", "-q", "main");
    fixture.git("merge", "-q", "--no-ff", "-m", "octopus", "copy", "rename");
    expect(fixture.git("rev-list", "--parents", "-1", "HEAD").trim().split(" ")).toHaveLength(4);
    commitOnTop(fixture);
    await expectGitsAnswer(fixture, "a.txt", copied);
    // Control: the renamed side alone (no parent with the same path) is followed through the rename.
    fixture.git("checkout", "-q", "rename");
    const added = fixture.git("log", "--format=%H", "--diff-filter=A", "--", "s.txt").trim();
    expect(added).not.toBe(renamed);
    await expectGitsAnswer(fixture, "a.txt", added);
  });

  it("a merge whose first parent has the same blob under another mode: the first parent takes the lines (the commit-graph path gave them to the second)", async () => {
    const fixture = repository("blame-mode");
    fixture.write("f.txt", "zero\n").commit("base", author);
    fixture.git("checkout", "-q", "-b", "side");
    fixture.write("f.txt", "one\ntwo\n");
    chmodSync(path.join(fixture.directory, "f.txt"), 0o755);
    const executable = fixture.commit("side: one two, executable", author);
    fixture.git("checkout", "-q", "main");
    const plain = fixture.write("f.txt", "one\ntwo\n").commit("main: one two", author);
    fixture.git("checkout", "-q", "side");
    fixture.git("merge", "-q", "--no-ff", "--no-commit", "main");
    chmodSync(path.join(fixture.directory, "f.txt"), 0o644);
    fixture.commit("merge main into side, not executable", author);
    expect(fixture.git("ls-tree", "HEAD^1", "f.txt").slice(0, 6)).toBe("100755");
    expect(fixture.git("ls-tree", "HEAD", "f.txt").slice(0, 6)).toBe("100644");
    commitOnTop(fixture);
    await expectGitsAnswer(fixture, "f.txt", executable);
    // Control: with the same mode on both sides the first parent takes the lines as well.
    fixture.git("checkout", "-q", "main");
    commitOnTop(fixture);
    await expectGitsAnswer(fixture, "f.txt", plain);
  });

  it("a deleted file that two added files are identical to: each is followed to it, not only the one full rename detection pairs it with", async () => {
    const fixture = repository("blame-single-follow");
    const base = fixture.write("x.txt", "one\ntwo\n").commit("base", author);
    fixture.remove("x.txt").write("a.txt", "one\ntwo\n").write("b.txt", "one\ntwo\n").commit("split x", author);
    commitOnTop(fixture);
    expect(fixture.git("diff", "--name-status", "-M", "HEAD~2", "HEAD~1")).toMatch(/^A\tb\.txt$/m);
    // a.txt is the control: full rename detection pairs it with x.txt too.
    await expectGitsAnswer(fixture, "a.txt", base);
    await expectGitsAnswer(fixture, "b.txt", base);
  });

  it("a file that replaced a directory of its name is followed to the file it was renamed from inside it", async () => {
    const fixture = repository("blame-directory");
    const base = fixture.write("a.txt/x", "one\ntwo\n").commit("base", author);
    fixture.git("rm", "-q", "-r", "a.txt");
    fixture.write("a.txt", "one\ntwo\n").commit("flatten a.txt", author);
    commitOnTop(fixture);
    await expectGitsAnswer(fixture, "a.txt", base);
    // Control: the same rename from a file elsewhere.
    const other = repository("blame-directory-control");
    const start = other.write("d/x", "one\ntwo\n").commit("base", author);
    other.remove("d/x").write("a.txt", "one\ntwo\n").commit("move d/x", author);
    commitOnTop(other);
    await expectGitsAnswer(other, "a.txt", start);
  });

  it("a file that was a symbolic link in its parent is not followed into the link, even when the link's text is the file's", async () => {
    const fixture = repository("blame-type-change");
    fixture.write("f", "one").commit("file", author);
    fixture.remove("f");
    symlinkSync("one", path.join(fixture.directory, "f"));
    fixture.commit("f becomes a link", author);
    fixture.remove("f").write("f", "one");
    const back = fixture.commit("f is a file again", author);
    commitOnTop(fixture);
    await expectGitsAnswer(fixture, "f", back);
    // Control: a link replaced by a link to the same target text is the same blob: followed.
    const links = repository("blame-type-control");
    symlinkSync("one", path.join(links.directory, "f"));
    const first = links.commit("link", author);
    links.write("other.txt", "x\n").commit("other", author);
    commitOnTop(links);
    await expectGitsAnswer(links, "f", first);
  });
});
