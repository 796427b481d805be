/**
 * Property test: when several files of the parent are equally good copy or rename sources (the
 * same blob, or the same similarity), `git_file_history` following renames names the one `git log
 * --follow` names, and `git_diff_range` pairs renames as `git diff -M` does.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DiffRangeOutput } from "../../src/git/diff-range-tool.js";
import type { FileHistoryOutput } from "../../src/git/file-history-tool.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";

const gitCapability = capability("git");
const RUNS = Number(process.env.GIT_FUZZ_RUNS ?? 8);
const SEED = Number(process.env.GIT_FUZZ_SEED ?? 39);
const author = { name: "A", email: "a@example.com" };

/** Paths whose byte order, tree order and basenames differ: f14 sorts before f4, d/f15 shares a basename. */
const NAMES = [
  ...Array.from({ length: 20 }, (_, index) => `f${index}`),
  "d/f15",
  "d/f4",
  "e f/f1",
  "f4.txt",
  "d/e/f14",
  "f1-x",
  "f1.d/y",
];
const TARGETS = ["f15", "d/f15", "new", "f4.txt", "f1.d/z"];

/** Ten lines; variant `v` keeps every line but edits `v` of them, so variants tie against a target. */
function text(variant: number): string {
  if (variant === 5) return "";
  if (variant === 6) return "\u0000binary\n";
  return Array.from({ length: 10 }, (_, line) => (line < variant ? `line ${line} edited ${variant}` : `line ${line} of the text`))
    .map((line) => `${line}\n`)
    .join("");
}

const plan = fc.record({
  files: fc.uniqueArray(fc.record({ name: fc.nat({ max: NAMES.length - 1 }), variant: fc.nat({ max: 6 }) }), {
    minLength: 2,
    maxLength: NAMES.length,
    selector: (file) => file.name,
  }),
  target: fc.nat({ max: TARGETS.length - 1 }),
  targetVariant: fc.nat({ max: 6 }),
  /** Per file in the second commit: 0 unchanged, 1 deleted, 2 modified. */
  fate: fc.array(fc.nat({ max: 2 }), { minLength: NAMES.length, maxLength: NAMES.length }),
});

/** One drawn (or pinned) plan. */
type Plan = typeof plan extends fc.Arbitrary<infer T> ? T : never;

/** git's --follow answer for the last commit: status letter and source path. */
function gitFollowLast(directory: string, target: string): string {
  const out = git(directory, ["log", "-1", "--follow", "--name-status", "--format=", "--", target]).trim();
  const [status = "", first = "", second] = out.split("\t");
  return second === undefined ? `${status} ${first}` : `${status.slice(0, 1)} ${first}`;
}

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) removeDirectory(directory);
});

/** A file `content` at each of `paths`, committed; then `change` and a second commit. */
function twoCommits(paths: readonly string[], content: string, change: (fixture: FixtureRepository) => void): FixtureRepository {
  const fixture = FixtureRepository.create("identical-sources");
  directories.push(fixture.directory);
  for (const file of paths) fixture.write(file, content);
  fixture.commit("sources", author);
  change(fixture);
  fixture.commit("change", author);
  return fixture;
}

/** `a/f100` ... `a/f<last>`: identical files sorting before the source git would prefer. */
const identicalFiles = (last: number) => Array.from({ length: last - 99 }, (_, index) => `a/f${100 + index}`);

/** Builds a plan's two commits and checks the tools' sources against git's own answers. */
async function expectGitsSources({ files, target, targetVariant, fate }: Plan) {
  const targetPath = TARGETS[target] as string;
  const present = files.filter((file) => NAMES[file.name] !== targetPath);
  const fixture = FixtureRepository.create("copy-ties");
  directories.push(fixture.directory);
  for (const file of present) fixture.write(NAMES[file.name] as string, text(file.variant));
  fixture.commit("sources", author);
  for (const [index, file] of present.entries()) {
    const name = NAMES[file.name] as string;
    if (fate[index] === 1) fixture.remove(name);
    if (fate[index] === 2) fixture.write(name, `${text(file.variant)}more\n`);
  }
  fixture.write(targetPath, text(targetVariant));
  fixture.commit("target", author);
  const run = gitRun(fixture.directory);
  const history = output<FileHistoryOutput>(await run.call("git_file_history", { path: targetPath, max_results: 5 }));
  const first = history.commits[0];
  const actual = `${first?.status} ${first?.previous_path ?? first?.path}`;
  expect(actual, `--follow ${targetPath}`).toBe(gitFollowLast(fixture.directory, targetPath));
  const expected = git(fixture.directory, ["diff", "-M", "--name-status", "HEAD~", "HEAD"])
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/^R\d+/, "R"));
  const diff = output<DiffRangeOutput>(await run.call("git_diff_range", { from: "HEAD~", to: "HEAD" }));
  const tool = diff.files.map((file) =>
    file.previous_path === undefined ? `${file.status}\t${file.path}` : `${file.status}\t${file.previous_path}\t${file.path}`,
  );
  expect(tool, "diff -M").toEqual(expected);
}

describe.skipIf(gitCapability.missing)(gitCapability.label("equally good copy and rename sources"), () => {
  it("past 100 identical sources, git_file_history takes the first as git does (it took the deleted one further on: R for git's C)", async () => {
    for (const count of [120, 98]) {
      const fixture = twoCommits([...identicalFiles(100 + count), "z/target"], "same content\n", (repository) =>
        repository.git("mv", "z/target", "new-target"),
      );
      const history = output<FileHistoryOutput>(
        await gitRun(fixture.directory).call("git_file_history", { path: "new-target", max_results: 5 }),
      );
      const first = history.commits[0];
      const expected = gitFollowLast(fixture.directory, "new-target");
      // Control: with fewer than 100 identical files before it, git reaches the deleted one (a rename).
      expect(expected, `${count} identical`).toBe(count > 100 ? "C a/f100" : "R z/target");
      expect(`${first?.status} ${first?.previous_path}`, `${count} identical`).toBe(expected);
    }
  });

  it("past 100 identical deleted files, git_diff_range pairs the first as git does (it looked on for the one of the same name)", async () => {
    for (const count of [120, 98]) {
      const fixture = twoCommits([...identicalFiles(100 + count), "a/target"], "same content\n", (repository) => {
        repository.git("rm", "-rq", "a");
        repository.write("new/target", "same content\n");
      });
      const expected = git(fixture.directory, ["diff", "-M", "--name-status", "HEAD~", "HEAD"])
        .split("\n")
        .filter((line) => line.startsWith("R"));
      // Control: with fewer than 100 identical files before it, git reaches the one of the same name.
      expect(expected, `${count} identical`).toEqual([`R100\t${count > 100 ? "a/f100" : "a/target"}\tnew/target`]);
      const diff = output<DiffRangeOutput>(await gitRun(fixture.directory).call("git_diff_range", { from: "HEAD~", to: "HEAD" }));
      const renamed = diff.files.filter((file) => file.status === "R");
      expect(
        renamed.map((file) => `R100\t${file.previous_path}\t${file.path}`),
        `${count} identical`,
      ).toEqual(expected);
    }
  });

  it("git_file_history and git_diff_range pick the source git picks", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (drawn) => {
        fc.pre(drawn.files.some((file) => NAMES[file.name] !== TARGETS[drawn.target]));
        await expectGitsSources(drawn);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
  }, 60_000);

  it("an empty source scoring 0 takes no slot of the four git keeps: the tie between two deleted sources goes to git's (seed 2002)", async () => {
    // f0 (empty) scores 0 and comes first; f1 and f2 tie above f10 and f11. git keeps [f0, f1, f10,
    // f11], then f2 replaces f0, the worst: [f2, f1, f10, f11] and f2 wins the tie. An unused slot
    // that did not sink below f0 left f0 out, f2 took the last slot and f1 won (R f1 for git's R f2).
    await expectGitsSources({
      files: [
        { name: 10, variant: 0 },
        { name: 11, variant: 0 },
        { name: 0, variant: 5 },
        { name: 2, variant: 1 },
        { name: 1, variant: 1 },
      ],
      target: 0,
      targetVariant: 2,
      fate: [0, 0, 0, 1, 1, ...Array.from({ length: NAMES.length - 5 }, () => 0)],
    });
  });
});
